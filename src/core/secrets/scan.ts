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

import { K, type Hit } from './kinds.js';
import { scanContext } from './context.js';
import { scanPem } from './pem.js';
import { TOKEN_RULES } from './rules/index.js';
import { credentialLike, isPlaceholder, mask } from './values.js';

export { isSecretFilePath } from './files.js';

/** One secret-shaped span: its kind, where it starts (1-based line and column) and a masked preview. */
export interface SecretFinding {
  kind: string;
  line: number;
  column: number;
  preview: string;
}

const AZURE_RE = /(?<![A-Za-z0-9])AccountKey=([A-Za-z0-9+\/]{40,200}={0,2})/dgi;

function scanTokens(text: string, out: Hit[]): void {
  TOKEN_RULES.forEach((rule, order) => {
    for (const m of text.matchAll(rule.re)) {
      const s = m[0];
      if (isPlaceholder(s) || (rule.check && !rule.check(s))) continue;
      out.push({ start: m.index, end: m.index + s.length, kind: rule.kind, preview: mask(s), tier: 1, order });
    }
  });
  for (const m of text.matchAll(AZURE_RE)) {
    const [s, e] = m.indices![1]!;
    const v = m[1]!;
    if (!credentialLike(v)) continue;
    out.push({ start: s, end: e, kind: K.azure, preview: mask(v), tier: 1, order: TOKEN_RULES.length });
  }
}

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
  scanTokens(text, cands);
  scanContext(text, cands);
  return resolve(cands);
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

/** Finds secret-shaped content in `text`, in order of position, each with a masked preview. */
export function findSecrets(text: string): SecretFinding[] {
  const hits = scan(text);
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

/** Replaces every secret in `text` with `[REDACTED:<kind-slug>]`, keeping keys, headers and URL users. */
export function redactSecrets(text: string): { text: string; count: number; kinds: string[] } {
  const hits = scan(text);
  if (hits.length === 0) return { text, count: 0, kinds: [] };
  const parts: string[] = [];
  const kinds: string[] = [];
  let pos = 0;
  for (const h of hits) {
    parts.push(text.slice(pos, h.start), `[REDACTED:${slugOf(h.kind)}]`);
    pos = h.end;
    if (!kinds.includes(h.kind)) kinds.push(h.kind);
  }
  parts.push(text.slice(pos));
  return { text: parts.join(''), count: hits.length, kinds };
}
