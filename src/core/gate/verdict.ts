/**
 * Contract: reading the model judge's answer (spec/hooks.md, "Layer 2"). Pure: `judgeOutcome` turns the judge's
 * exit and stdout into pass, fail (only violations whose quote is found in the prose, each located) or error.
 * The verdict is one JSON object, `{"pass": true}` or `{"pass": false, "violations": [{"rule", "quote",
 * "fix"?}]}` (`"verdict": "pass"|"fail"` is read too), bare or as the `result` string of the
 * `--output-format json` envelope, alone, in a fenced block or inside chatty text. Linear in the output size.
 */
import type { ProsePiece } from '../prose/pieces.js';
import { answerObjects, childSays, type ModelRun } from '../text/model-json.js';
import { redactSecrets } from '../secrets/scan.js';
import { locate, quoteOf, type Violation } from './rules.js';

/**
 * Bump when the judge's prompt (src/adapters/claude/judge.ts) or the reading below changes, so verdicts cached
 * for the old judge are not reused.
 */
export const JUDGE_VERSION = 2;
/** A piece goes to the judge only when it has at least this many letters. */
export const MIN_JUDGE_LETTERS = 20;
const MAX_VIOLATIONS = 20;

export type JudgeOutcome =
  | { kind: 'pass' }
  | { kind: 'fail'; violations: Violation[] }
  | { kind: 'error'; reason: string; stderr?: string };

/**
 * One kernel entry as the judge reads it: the house rule's id, title and text, and the messages of its `rules:`
 * patterns, which layer 1 already enforces.
 */
export interface JudgeRule {
  id: string;
  title: string;
  body: string;
  rules?: ReadonlyArray<{ message: string }>;
}

/** What the judge process did: its exit and output, or why it could not run or was stopped. */
export type JudgeRun = ModelRun;

/** Pieces worth a model call: those with at least MIN_JUDGE_LETTERS letters. */
export function judgeablePieces(pieces: ProsePiece[]): ProsePiece[] {
  return pieces.filter((p) => {
    let letters = 0;
    for (const m of p.text.matchAll(/\p{L}/gu)) if (++letters >= MIN_JUDGE_LETTERS || m.index > 10_000) break;
    return letters >= MIN_JUDGE_LETTERS;
  });
}

interface RawViolation {
  rule?: unknown;
  quote?: unknown;
  fix?: unknown;
  where?: unknown;
}

/** Reads a verdict from the judge's stdout; undefined when there is none to be found. */
export function parseVerdict(stdout: string): { pass: boolean; violations: RawViolation[] } | undefined {
  for (const candidate of answerObjects(stdout, ['pass', 'verdict'])) {
    const v = verdictOf(candidate);
    if (v) return v;
  }
  return undefined;
}

function verdictOf(o: Record<string, unknown>): { pass: boolean; violations: RawViolation[] } | undefined {
  const violations = Array.isArray(o.violations) ? (o.violations.filter((v) => v && typeof v === 'object') as RawViolation[]) : [];
  const verdict = typeof o.verdict === 'string' ? o.verdict.toLowerCase() : undefined;
  if (o.pass === true || verdict === 'pass') return { pass: true, violations };
  if (o.pass === false || verdict === 'fail') return { pass: false, violations };
  return undefined;
}

function quotePattern(quote: string): RegExp | undefined {
  let q = quote.trim();
  // A quote the model wrapped in quote marks: drop the pair, keep marks that belong to the text.
  if (q.length > 2 && /^["'“‘]/.test(q) && /["'”’]$/.test(q)) q = q.slice(1, -1).trim();
  if (q.length < 2 || q.length > 400) return undefined;
  let src = '';
  for (const ch of q) {
    if (/\s/.test(ch)) src += src.endsWith('\\s+') ? '' : '\\s+';
    else if (/['‘’]/.test(ch)) src += "['‘’]";
    else if (/["“”]/.test(ch)) src += '["“”]';
    else src += ch.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  }
  return new RegExp(src, 'iu');
}

/**
 * Keeps the judge's violations whose quote is found in the prose (with whitespace, case and quote marks
 * loosened; for a quote cut with "...", its longest part), each located in its piece.
 */
export function verifyViolations(raw: RawViolation[], pieces: ProsePiece[]): Violation[] {
  const out: Violation[] = [];
  for (const v of raw.slice(0, MAX_VIOLATIONS * 2)) {
    if (typeof v.quote !== 'string') continue;
    const part = v.quote.split(/\.\.\.|…/).map((s) => s.trim()).sort((a, b) => b.length - a.length)[0] ?? '';
    const re = quotePattern(part);
    if (!re) continue;
    for (const piece of pieces) {
      const m = re.exec(piece.text);
      if (!m) continue;
      const rule = typeof v.rule === 'string' && v.rule.trim() ? v.rule.trim().slice(0, 200) : 'house rules';
      const fix = typeof v.fix === 'string' && v.fix.trim() ? v.fix.trim().slice(0, 200) : undefined;
      out.push({ judged: { rule, ...(fix ? { fix } : {}) }, quote: quoteOf(m[0]), where: locate(piece, m.index) });
      break;
    }
    if (out.length >= MAX_VIOLATIONS) break;
  }
  return out;
}

/** The outcome of one judge run (see the module contract). */
export function judgeOutcome(run: JudgeRun, pieces: ProsePiece[]): JudgeOutcome {
  if (run.kind === 'error') return run;
  // The child may echo what it was given: its stderr is kept (for the debug log) with secrets redacted.
  const stderr = redactSecrets(run.stderr.slice(0, 64_000)).text.slice(0, 2_000);
  if (run.code !== 0) return { kind: 'error', reason: `judge exited with ${run.code ?? run.signal}${childSays(run)}`, stderr };
  const verdict = parseVerdict(run.stdout);
  if (!verdict) return { kind: 'error', reason: 'no verdict in the judge output', stderr };
  if (verdict.pass) return { kind: 'pass' };
  const violations = verifyViolations(verdict.violations, pieces);
  if (violations.length === 0) return { kind: 'error', reason: 'judge failed the prose but quoted nothing found in it' };
  return { kind: 'fail', violations };
}
