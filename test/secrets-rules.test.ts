// Every provider rule (src/core/secrets/rules/), table-driven: its samples are found whole with its kind (alone,
// in prose, on a line of their own) and redacted; its near-misses give no finding at all; its keywords (the
// scan's prefilter) are in every sample; its regex is bounded and passes the regex-safety check.
import { describe, expect, it } from 'vitest';
import { findSecrets, redactSecrets } from '../src/core/secrets/scan.js';
import { TOKEN_RULES } from '../src/core/secrets/rules/index.js';
import { regexRisk } from '../src/core/format/regex-risk.js';

/** The quantifiers of a regex source outside character classes that have no upper bound (`*`, `+`, `{n,}`). */
function unbounded(source: string): string[] {
  const out: string[] = [];
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '*' || c === '+') out.push(`${c} at ${i}`);
    else if (c === '{' && /^\{\d+,\}/.test(source.slice(i))) out.push(`{n,} at ${i}`);
  }
  return out;
}

const rules = TOKEN_RULES.map((rule, i) => [`${i} ${rule.kind}`, rule] as const);

describe('provider rules (src/core/secrets/rules/)', () => {
  it('cover the providers of gitleaks\' default set that spec/secrets.md lists', () => {
    expect(new Set(TOKEN_RULES.map((r) => r.kind)).size).toBeGreaterThanOrEqual(70);
  });

  it.each(rules)('%s: samples are found whole, with the rule\'s kind, alone or in prose, and redacted', (_name, rule) => {
    expect(rule.samples.length).toBeGreaterThan(0);
    expect(rule.re.global).toBe(true);
    for (const s of rule.samples) {
      const whole = rule.context ? rule.context(s) : s;
      for (const text of [whole, `the value is ${whole} for now`, `x\n${whole}\n`]) {
        const found = findSecrets(text);
        expect(found.map((f) => f.kind), text).toEqual([rule.kind]);
        expect(redactSecrets(text).text).not.toContain(s);
      }
    }
  });

  it.each(rules.filter(([, r]) => !r.context))('%s: samples are found as a file name in a path, and in a commit message naming it', (_name, rule) => {
    for (const s of rule.samples) {
      if (s.includes('/')) continue;
      for (const text of [`entries/${s}.md`, `notes/sub/${s}.markdown`, `adopt kb-0001: A title (was entries/${s}.md)`]) {
        expect(findSecrets(text).map((f) => f.kind), text).toEqual([rule.kind]);
      }
    }
  });

  it.each(rules)('%s: near-misses give no finding', (_name, rule) => {
    for (const text of rule.nearMisses ?? []) expect(findSecrets(text), text).toEqual([]);
  });

  it.each(rules)('%s: every sample holds a keyword; the regex is bounded and safe', (_name, rule) => {
    for (const s of rule.samples) {
      const m = [...(rule.context ? rule.context(s) : s).matchAll(rule.re)][0]!;
      if (rule.keywords) expect(rule.keywords.some((k) => m[0].toLowerCase().includes(k)), `${s} holds none of ${rule.keywords}`).toBe(true);
    }
    // A token split in two is looked for only where its rule's keyword is: the prefix (its first part) holds one.
    if (rule.prefix && rule.keywords) {
      const heads = rule.samples.map((s) => new RegExp(`^(?:${rule.prefix})`, 'i').exec(s)?.[0]).filter((h) => h !== undefined);
      expect(heads.length, `a sample starts with the prefix ${rule.prefix}`).toBeGreaterThan(0);
      for (const head of heads) expect(rule.keywords.some((k) => head.toLowerCase().includes(k)), `the prefix ${rule.prefix} holds a keyword`).toBe(true);
    }
    for (const k of rule.keywords ?? []) expect(k, 'a keyword is lower case, ASCII, two characters or more').toMatch(/^[\x20-\x40\x5b-\x7e]{2,}$/);
    expect(unbounded(rule.re.source)).toEqual([]);
    expect(regexRisk(rule.re.source, rule.re.flags.replace(/[gdy]/g, ''))).toBeUndefined();
  });
});
