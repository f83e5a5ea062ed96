import { describe, expect, it } from 'vitest';
import { ruleRisk } from '../../src/core/format/entry.js';
import { regexRisk } from '../../src/core/format/regex-risk.js';

/** Runs a pattern over adversarial text and returns the milliseconds it took. */
function timeOn(pattern: string, flags: string, text: string): number {
  const re = new RegExp(pattern, `${flags.replace(/[gy]/g, '')}g`);
  const t0 = performance.now();
  for (const _ of text.matchAll(re)) if (performance.now() - t0 > 2_000) break;
  return performance.now() - t0;
}

const SAFE: Array<[string, string?]> = [
  ['\\bleverage\\b'],
  ['\\b(utilize|leverage|delve)\\b'],
  ['\\b(?:in\\s+order\\s+to)\\b'],
  ['!{2,}'],
  ['—'],
  ['\\u2014', 'u'],
  ['^.{73,}$', 'm'],
  ['\\butiliz\\w*'],
  ['[^.]{0,80}\\bvery\\b[^.]{0,80}'],
  ['(?:foo|bar)+'],
  ['\\b\\w+ly\\b'],
  ['very\\s+unique'],
  ['\\s{2,}'],
  ['(?:\\w+\\s+){2}\\w+'],
  ['\\bplease note\\b'],
  ['[A-Z]{5,}'],
  ['(?<!\\w)etc\\.(?!\\w)'],
  ['\\p{Extended_Pictographic}', 'u'],
  ['\\blet\'s dive in\\b'],
  ['[\\u2018\\u2019]', 'u'],
  ['^#{1,6} .*[.:]$', 'm'],
];

const RISKY: Array<[string, RegExp, string?]> = [
  ['(a+)+$', /repetition inside a repetition/],
  ['((a+))+$', /repetition inside a repetition/],
  ['(?:a*)*b', /repetition inside a repetition/],
  ['(a{1,30}){1,30}$', /repetition inside a repetition/],
  ['(\\w+\\s?)+$', /repetition inside a repetition/],
  ['(?:x|(?:y+))+z', /repetition inside a repetition/],
  ['(a|a)+$', /alternatives/],
  ['(a|ab)*c', /alternatives/],
  ['(?:\\s|\\s)+x', /alternatives/],
  ['(?:A|a)+$', /alternatives/, 'i'],
  ['(x?)*y', /match nothing/],
  ['.*a.*b.*c', /open-ended runs/],
  ['[^.]*\\bvery\\b[^.]*', /open-ended runs/],
  ['[\\s\\S]*foo[\\s\\S]+', /open-ended runs/],
  ['(\\w)\\1', /back-references/],
  ['(?<w>\\w)\\k<w>', /back-references/],
];

describe('ruleRisk', () => {
  it.each(SAFE)('accepts %s', (pattern, flags = 'i') => {
    expect(ruleRisk(pattern, flags)).toBeUndefined();
  });

  it.each(RISKY)('refuses %s', (pattern, reason, flags = 'i') => {
    expect(ruleRisk(pattern, flags)).toMatch(reason);
  });

  it('refuses what does not compile, bad flags, empty matches and huge patterns', () => {
    expect(ruleRisk('(unclosed', 'i')).toMatch(/does not compile/);
    expect(ruleRisk('a', 'q')).toMatch(/not valid/);
    expect(ruleRisk('a', 'ii')).toMatch(/not valid/);
    expect(ruleRisk('x*', 'i')).toMatch(/matches empty text/);
    expect(ruleRisk('(?:)', 'i')).toMatch(/matches empty text/);
    expect(ruleRisk('a'.repeat(501), 'i')).toMatch(/longer than/);
  });

  it('the refused shapes really are slow, and the accepted ones fast, on long input', () => {
    // Cubic: under a thousand characters already cost tens of milliseconds; exponential: two dozen.
    expect(timeOn('.*a.*b.*c', 'i', 'a '.repeat(400))).toBeGreaterThan(20);
    expect(timeOn('(a|a)+$', '', `${'a'.repeat(22)}!`)).toBeGreaterThan(20);
    // The safe ones end on the same kind of text (a catastrophic one would not, within the test timeout).
    for (const [p, f = 'i'] of SAFE) expect(timeOn(p, f, `${'a '.repeat(50_000)}very unique!!`), p).toBeGreaterThanOrEqual(0);
  });

  it('never throws on odd but valid syntax', () => {
    for (const p of ['[]]', '[^]', 'a{', 'a{1', '\\c', '\\u{1F600}', '(?<n>x)', '\\0', '[\\]]+', 'x{2}{3}', '\\k']) {
      let ok = true;
      try {
        new RegExp(p, 'i');
      } catch {
        ok = false;
      }
      if (ok) expect(() => regexRisk(p, 'i')).not.toThrow();
    }
  });
});
