/**
 * Contract: finding the JSON object a model child answered with (the prose gate's judge, the reflection child).
 * Pure and linear in the output size. The answer is read from the `--output-format json` envelope of `claude -p`
 * (its `structured_output` object, else its `result` string), or from bare stdout; inside text it may stand
 * alone, in a fenced block or amid chatty prose. An error envelope (`is_error: true`) holds no answer.
 */

import { redactSecrets } from '../secrets/scan.js';

/** What a model child process did: its exit and output, or why it could not run or was stopped. */
export type ModelRun =
  | { kind: 'exit'; code: number | null; signal: string | null; stdout: string; stderr: string }
  | { kind: 'error'; reason: string };

/** Parses `text` when it starts like JSON; undefined otherwise or when it does not parse. */
export function tryJson(text: string): unknown {
  if (!text.startsWith('{') && !text.startsWith('[')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** The end (exclusive) of the balanced `{...}` that opens at `start`, strings respected; -1 when none. */
function balancedEnd(text: string, start: number, limit: number): number {
  let depth = 0;
  let inString = false;
  const stop = Math.min(text.length, start + limit);
  for (let j = start; j < stop; j++) {
    const c = text[j];
    if (inString) {
      if (c === '\\') j++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return j + 1;
  }
  return -1;
}

/**
 * The `{...}` spans of `text` that parse as JSON objects: the top-level ones in one linear pass, then (when a
 * stray brace left the pass unbalanced) up to ten spans opening with one of the `anchors` keys.
 */
function* jsonObjects(text: string, anchors: readonly string[]): Generator<Record<string, unknown>> {
  let pos = text.indexOf('{');
  while (pos >= 0) {
    const end = balancedEnd(text, pos, text.length);
    if (end < 0) break;
    const v = tryJson(text.slice(pos, end));
    if (isObject(v)) yield v;
    pos = text.indexOf('{', end);
  }
  if (anchors.length === 0) return;
  const keys = anchors.map((k) => k.replace(/[^\w-]/g, '')).join('|');
  let seen = 0;
  for (const m of text.matchAll(new RegExp(`\\{\\s*"(?:${keys})"`, 'g'))) {
    if (++seen > 10) break;
    const end = balancedEnd(text, m.index, 100_000);
    const v = end < 0 ? undefined : tryJson(text.slice(m.index, end));
    if (isObject(v)) yield v;
  }
}

/**
 * The objects a model child's stdout may hold as its answer, most likely first: the envelope's
 * `structured_output`, then the answer text as one object, then the objects found inside it (`anchors`: the keys
 * an answer opens with, to find it after a stray brace). Nothing for an error envelope.
 */
export function* answerObjects(stdout: string, anchors: readonly string[] = []): Generator<Record<string, unknown>> {
  let text = stdout.trim();
  const whole = tryJson(text);
  if (isObject(whole)) {
    // The `--output-format json` envelope: the model's answer is `structured_output`, or a string in `result`.
    if ('type' in whole || 'is_error' in whole || 'subtype' in whole) {
      if (whole.is_error === true) return;
      if (isObject(whole.structured_output)) yield whole.structured_output;
      if (typeof whole.result !== 'string') return;
      text = whole.result.trim();
    } else {
      yield whole;
      return;
    }
  }
  const direct = tryJson(text);
  if (isObject(direct)) yield direct;
  yield* jsonObjects(text, anchors);
}

/**
 * What a model child that failed said of it, as a suffix for the reason shown to the user (": Not logged in ·
 * Please run /login"), or '' when it said nothing: the first line of its stderr, else of its error envelope's
 * `result`, else of its stdout; secrets redacted (a child may echo what it was given), at most 160 characters.
 */
export function childSays(run: { stdout: string; stderr: string }): string {
  const first = (text: string): string => text.split('\n').map((l) => l.trim()).find((l) => l !== '') ?? '';
  const out = run.stdout.trim();
  const envelope = tryJson(out);
  const said = redactSecrets(first(run.stderr) || (isObject(envelope) && typeof envelope.result === 'string' ? first(envelope.result) : first(out))).text;
  return said === '' ? '' : `: ${said.length > 160 ? `${said.slice(0, 159)}…` : said}`;
}
