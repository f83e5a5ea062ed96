/**
 * Contract: pure, synchronous, dependency-free secret scanning.
 * - `findSecrets` reports every secret-shaped span with a human kind, the 1-based line and column where it
 *   starts, and a masked preview that never holds the whole secret.
 * - `redactSecrets` replaces each span with `[REDACTED:<slug>]` (slug: the kind lower-cased, " assignment"
 *   dropped, non-alphanumerics turned into `-`). For assignments, headers and URLs only the value is
 *   replaced, so `password=[REDACTED:password]` keeps its key. Redacting redacted text changes nothing.
 * - `isSecretFilePath` names files whose whole content is secret (.env, key files, credential stores);
 *   committed templates (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`) and `*.pub` are not.
 * - Every regex starts on a literal or a boundary and has bounded quantifiers: scanning is linear in the
 *   input (5 MB of adversarial text scans in well under a second).
 * Placeholder policy (not reported): empty values, `<token>`, `${TOKEN}`, `$TOKEN`, `$(cmd)`, `%TOKEN%`,
 * `{{ token }}`, `{token}`, `[REDACTED...]`, runs of one character (`xxx`, `****`), values with six or more
 * `x`/`*` in a row, ENV_VAR_NAMES, `your_...`/`..._here`, values containing `EXAMPLE` (the AWS documented
 * keys), and stop words such as changeme, password, secret, none, null, true, required, test, dummy.
 * Prose and code are not values: `token: see below` (a `:` or spaced `=` value must end the line),
 * `const token = getToken()`, `password = os.environ[...]`, and keys such as `password_hint`, `token_type`,
 * `max_tokens`, `next_page_token` are ignored, as is the shell's `PWD=/a/path`. A `key: value` password
 * written as one plain word (`password: hunter`) is taken for prose; quoted or `=` forms are reported.
 */

import { candidateScan, charClass, matchesAt, runsOfAtLeast } from './candidates.js';
import type { Hit } from './kinds.js';
import { scanContext } from './context.js';
import { scanPem } from './pem.js';
import { TOKEN_RULES } from './rules/index.js';
import { isPlaceholder, mask } from './values.js';
import { escapedScalars } from './yaml-quoted.js';

export { isSecretFilePath } from './files.js';

/** One secret-shaped span: its kind, where it starts (1-based line and column) and a masked preview. */
export interface SecretFinding {
  kind: string;
  line: number;
  column: number;
  preview: string;
}

/**
 * The rules that can match `text`: those with a keyword in it (case-insensitively) and those without keywords.
 * Every match holds one of its rule's keywords (rules/rule.ts), so skipping the others loses nothing; so does a
 * token split in two (scanSplit), whose first part holds its rule's prefix, and the prefix a keyword
 * (test/secrets-rules.test.ts). The keywords are found in one walk of the text: a table of their first two
 * characters (lower-cased) says where one may start.
 */
const UNKEYED = TOKEN_RULES.flatMap((r, i) => (r.keywords ? [] : [i]));
const KEYWORDS_AT = new Map<number, { keyword: string; rules: number[] }[]>();
TOKEN_RULES.forEach((r, i) => {
  for (const keyword of r.keywords ?? []) {
    const pair = keyword.charCodeAt(0) * 128 + keyword.charCodeAt(1);
    const list = KEYWORDS_AT.get(pair) ?? [];
    const entry = list.find((e) => e.keyword === keyword);
    if (entry) entry.rules.push(i);
    else list.push({ keyword, rules: [i] });
    KEYWORDS_AT.set(pair, list);
  }
});
const PAIRS = new Uint8Array(128 * 128);
for (const pair of KEYWORDS_AT.keys()) PAIRS[pair] = 1;

/** ASCII lower-casing by table (128 and above: 0, which starts no keyword). */
const LOWER = new Uint8Array(65536);
for (let c = 1; c < 128; c++) LOWER[c] = c >= 65 && c <= 90 ? c + 32 : c;

/** Whether `keyword` (lower case) is at `i` in `text`, in any case. */
function keywordAt(text: string, i: number, keyword: string): boolean {
  if (i + keyword.length > text.length) return false;
  for (let j = 2; j < keyword.length; j++) if (LOWER[text.charCodeAt(i + j)] !== keyword.charCodeAt(j)) return false;
  return true;
}

function rulesFor(text: string): number[] {
  const on = new Set(UNKEYED);
  const n = text.length - 1;
  let c1 = LOWER[text.charCodeAt(0)]!;
  for (let i = 0; i < n; i++) {
    const c0 = c1;
    c1 = LOWER[text.charCodeAt(i + 1)]!;
    if (PAIRS[c0 * 128 + c1] === 0 || c0 === 0 || c1 === 0) continue;
    for (const e of KEYWORDS_AT.get(c0 * 128 + c1)!) if (keywordAt(text, i, e.keyword)) for (const r of e.rules) on.add(r);
  }
  return [...on].sort((a, b) => a - b);
}

/** Adds the provider-format secrets of `text` to `out` (tier 1; `order` offsets the rule order). */
function scanTokens(text: string, out: Hit[], rules: number[], kindSuffix = ''): void {
  for (const order of rules) {
    const rule = TOKEN_RULES[order]!;
    for (const m of text.matchAll(rule.re)) {
      const v = m[rule.value ?? 0]!;
      if (isPlaceholder(v) || (rule.check && !rule.check(v))) continue;
      const [s, e] = rule.value ? m.indices![rule.value]! : [m.index, m.index + v.length];
      out.push({ start: s, end: e, kind: rule.kind + kindSuffix, preview: mask(v), tier: 1, order });
    }
  }
}

/** For each rule with a prefix: the token, then one space or a line break (and indentation), then more token. */
const SPLIT_RES = TOKEN_RULES.map((rule) =>
  rule.prefix ? new RegExp(`(?<![A-Za-z0-9_.-])(${rule.prefix}[A-Za-z0-9_-]{0,400})( |\\r?\\n[ \\t]{0,40})([A-Za-z0-9_-]{1,400})`, 'g') : undefined,
);
const ANCHORED = TOKEN_RULES.map((rule) => new RegExp(`^(?:${rule.re.source})`, rule.re.flags.replace(/[gdy]/g, '')));

/**
 * Adds tokens split in two by one space or a line break: the two parts are joined and the rule tried on the
 * whole; the span covers both parts and the break. Only `rules` (those whose keyword the text holds) are tried.
 */
function scanSplit(text: string, out: Hit[], rules: number[]): void {
  for (const order of rules) {
    const re = SPLIT_RES[order];
    if (!re) continue;
    const rule = TOKEN_RULES[order]!;
    for (const m of text.matchAll(re)) {
      const head = m[1]!;
      if (ANCHORED[order]!.exec(head)?.[0] === head) continue; // whole already: found by scanTokens
      const joined = ANCHORED[order]!.exec(head + m[3]!)?.[0];
      if (!joined || joined.length <= head.length || isPlaceholder(joined) || (rule.check && !rule.check(joined))) continue;
      const end = m.index + head.length + m[2]!.length + (joined.length - head.length);
      out.push({ start: m.index, end, kind: rule.kind, preview: mask(joined), tier: 1, order });
    }
  }
}

const BASE64_RUN_RE = /(?<![A-Za-z0-9+\/_-])[A-Za-z0-9+\/_-]{24,8192}={0,2}(?![A-Za-z0-9+\/_=-])/g;
const isBase64Char = charClass('AZaz09', '+/_-');
/**
 * BASE64_RUN_RE tried where it can match: its lookbehind lets a match start only where a run of base64
 * characters starts, and only a run of 24 or more can match (exported for the equivalence test).
 */
export const BASE64_SCAN = candidateScan(BASE64_RUN_RE, (text) => runsOfAtLeast(text, 24, isBase64Char));

/**
 * Whether a base64 run can decode to text (every byte under 0x80): the first character of each 4-character
 * group holds the top six bits of a byte, so it must stand for a value under 32 (`A`-`Z`, `a`-`f`). File names
 * and slugs (`kb-0042-use-pnpm-workspaces`) fail this at once and are not decoded.
 */
function mayDecodeToText(run: string): boolean {
  for (let j = 0; j + 1 < run.length && run[j] !== '=' && run[j + 1] !== '='; j += 4) {
    const c = run.charCodeAt(j);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** How many `/` of a base64 run are tried as the end of a path before it (a bound, so the scan stays linear). */
const PATH_SLASHES = 8;

/**
 * Adds base64-wrapped provider tokens (a token in a base64 config value or a Basic header of its own): a
 * base64 run that decodes to printable text holding a provider token is reported, kind "(base64)". `/` is a base64
 * character, so a run may be a path ending in an encoded token (`entries/QUtJ...=.md`): the part after each of its
 * first few `/` is tried too, and the hit covers that part.
 */
function scanEncoded(text: string, out: Hit[]): void {
  for (const m of matchesAt(text, BASE64_SCAN)) {
    const run = m[0];
    let from = 0;
    for (let tries = 0; tries <= PATH_SLASHES && from !== -1; tries++) {
      const part = run.slice(from);
      const kind = part.length >= 24 ? encodedTokenKind(part) : undefined;
      if (kind) {
        out.push({ start: m.index + from, end: m.index + run.length, kind, preview: mask(part), tier: 1, order: TOKEN_RULES.length });
        break;
      }
      const slash = run.indexOf('/', from);
      from = slash === -1 ? -1 : slash + 1;
    }
  }
}

/** The kind of the provider token a base64 text decodes to (printable text holding one), or undefined. */
function encodedTokenKind(run: string): string | undefined {
  if (!mayDecodeToText(run)) return undefined;
  const decoded = Buffer.from(run, /[-_]/.test(run) ? 'base64url' : 'base64').toString('latin1');
  if (decoded.length < 16 || !/^[\x20-\x7e\t\r\n]+$/.test(decoded)) return undefined;
  const inner: Hit[] = [];
  scanTokens(decoded, inner, rulesFor(decoded), ' (base64)');
  return inner[0]?.kind;
}

/** Keeps non-overlapping hits: lower tiers first (key blocks, then provider formats, then context). */
function resolve(cands: Hit[]): Hit[] {
  let accepted: Hit[] = [];
  for (const tier of [0, 1, 2]) {
    const list = cands
      .filter((c) => c.tier === tier)
      .sort((a, b) => a.start - b.start || a.order - b.order || b.end - a.end);
    const fresh: Hit[] = [];
    let i = 0;
    let lastEnd = -1;
    for (const c of list) {
      if (c.start < lastEnd) continue;
      while (i < accepted.length && accepted[i]!.end <= c.start) i++;
      if (i < accepted.length && accepted[i]!.start < c.end) continue;
      fresh.push(c);
      lastEnd = c.end;
    }
    accepted = mergeByStart(accepted, fresh);
  }
  return accepted;
}

function mergeByStart(a: Hit[], b: Hit[]): Hit[] {
  const out: Hit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

function scan(text: string): Hit[] {
  const cands: Hit[] = [];
  scanPem(text, cands);
  // NOTE: after a regex has run on the text (scanPem's): that flattens a string built by concatenation, which
  // rulesFor's walk by character reads several times faster.
  const rules = rulesFor(text);
  scanTokens(text, cands, rules);
  scanSplit(text, cands, rules);
  scanEncoded(text, cands);
  scanContext(text, cands);
  scanEscaped(text, cands);
  return resolve(cands);
}

/**
 * Adds the secrets of the front matter's escaped double-quoted scalars, read as YAML reads them (yaml-quoted.ts):
 * each spans its whole scalar, quotes included, and is redacted as a quoted marker, so the field stays a string.
 */
function scanEscaped(text: string, out: Hit[]): void {
  for (const q of escapedScalars(text)) {
    const inner = scan(q.value);
    if (inner.length === 0) continue;
    out.push({ ...inner[0]!, start: q.start, end: q.end, quoted: true });
  }
}

function slugOf(kind: string): string {
  return kind
    .toLowerCase()
    .replace(/ assignment$/, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

// ---------------------------------------------------------------------------------------------------------
// Public API

/**
 * Texts scanned and found clean, so a text scanned twice (an import checks each entry before it hands the same
 * text to the write transaction, whose guard scans every byte written) is scanned once. The scan is a pure
 * function of the text, so this changes no result. Kept only from rememberScans to the next forgetScans (the
 * write's guard calls it), so nothing else (lint, the gate, a long-lived process) keeps texts; bounded too:
 * dropped whole past CLEAN_CAP characters. Short texts too: an import's field values (types, tags, its one
 * `updated` stamp) repeat from note to note.
 */
const clean = new Set<string>();
let cleanChars = 0;
let remembering = false;
const CLEAN_CAP = 64 * 1024 * 1024;

function scanOnce(text: string): Hit[] {
  if (clean.has(text)) return [];
  const hits = scan(text);
  if (remembering && hits.length === 0) {
    if (cleanChars + text.length > CLEAN_CAP) {
      clean.clear();
      cleanChars = 0;
    }
    clean.add(text);
    cleanChars += text.length;
  }
  return hits;
}

/** From now until forgetScans, texts found clean are remembered (see `clean`). */
export function rememberScans(): void {
  remembering = true;
}

/** Drops the texts remembered as clean, and remembers no more. */
export function forgetScans(): void {
  remembering = false;
  clean.clear();
  cleanChars = 0;
}

/** Finds secret-shaped content in `text`, in order of position, each with a masked preview. */
export function findSecrets(text: string): SecretFinding[] {
  const hits = scanOnce(text);
  const findings: SecretFinding[] = [];
  let line = 1;
  let lineStart = 0;
  let nextNl = text.indexOf('\n');
  for (const h of hits) {
    while (nextNl !== -1 && nextNl < h.start) {
      line++;
      lineStart = nextNl + 1;
      nextNl = text.indexOf('\n', lineStart);
    }
    findings.push({ kind: h.kind, line, column: h.start - lineStart + 1, preview: h.preview });
  }
  return findings;
}

/**
 * The secret values in `text` as written (what redactSecrets replaces), longest first: a session learns them from
 * its commands, so the same value met later with nothing around it that looks secret (a reply quoting the
 * password a `PGPASSWORD=` gave) is still replaced.
 */
export function secretValuesIn(text: string): string[] {
  const out = new Set<string>();
  for (const h of scanOnce(text)) {
    let v = text.slice(h.start, h.end);
    if (h.quoted) v = v.replace(/^"(.*)"$/s, '$1');
    if (v.length >= 6) out.add(v);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/** Replaces every secret in `text` with `[REDACTED:<kind-slug>]`, keeping keys, headers and URL users. */
export function redactSecrets(text: string): { text: string; count: number; kinds: string[] } {
  const hits = scanOnce(text);
  if (hits.length === 0) return { text, count: 0, kinds: [] };
  const parts: string[] = [];
  const kinds: string[] = [];
  let pos = 0;
  for (const h of hits) {
    parts.push(text.slice(pos, h.start), h.quoted ? `"[REDACTED:${slugOf(h.kind)}]"` : `[REDACTED:${slugOf(h.kind)}]`);
    pos = h.end;
    if (!kinds.includes(h.kind)) kinds.push(h.kind);
  }
  parts.push(text.slice(pos));
  return { text: parts.join(''), count: hits.length, kinds };
}
