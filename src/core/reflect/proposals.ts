/**
 * Contract: reading the reflection child's answer and the filters code can check (spec/reflect.md, "Filters").
 * Pure. `reflectAnswer` turns the child's exit and stdout into proposals (each checked for shape) or an error;
 * `quoteFound` checks filter 2 (the quote is in the session text, white space and case loosened); `obviousReason`
 * checks filter 3 (a usage line, or a quote only a help command printed); `coverage` measures how much of a
 * proposal another text already says, for filter 1.
 */
import { isValidPatternKey } from '../format/learning.js';
import { answerObjects, childSays, type ModelRun } from '../text/model-json.js';
import { SEARCH_TERMS, terms } from '../text/terms.js';
import { MAX_PROPOSALS } from './prompt.js';

/** One proposal, as the child gave it and its shape was checked. */
export interface Proposal {
  kind: 'host_fact' | 'lesson';
  host?: string;
  title: string;
  text: string;
  quote: string;
  pattern_key?: string;
}

/** A proposal, or why its shape is refused. */
export type Shaped = { proposal: Proposal } | { malformed: string; raw: Record<string, unknown> };

export const PROPOSAL_LIMITS = { title: 120, text: 1_000, quote: 400, minQuote: 12 } as const;

/** A proposal whose text is at least this much said already by a known entry (or an earlier proposal) is known. */
export const KNOWN_COVERAGE = 0.75;

export type ReflectAnswer = { kind: 'answer'; proposals: Shaped[] } | { kind: 'error'; reason: string; stderr?: string };

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/** A slug from a title, for a lesson the child gave no valid pattern key. */
export function slugKey(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64).replace(/-+$/, '') || 'lesson';
}

/** Checks one raw proposal's shape. */
export function shapeProposal(raw: Record<string, unknown>): Shaped {
  const kind = str(raw.kind);
  const title = str(raw.title).replace(/\s+/g, ' ');
  const text = str(raw.text);
  const quote = str(raw.quote);
  if (kind !== 'host_fact' && kind !== 'lesson') return { malformed: `unknown kind ${JSON.stringify(kind.slice(0, 20))}`, raw };
  if (!title || !text) return { malformed: 'no title or text', raw };
  if (title.length > PROPOSAL_LIMITS.title || text.length > PROPOSAL_LIMITS.text) return { malformed: 'title or text too long', raw };
  if (quote.length < PROPOSAL_LIMITS.minQuote || quote.length > PROPOSAL_LIMITS.quote) return { malformed: `no quote of ${PROPOSAL_LIMITS.minQuote} to ${PROPOSAL_LIMITS.quote} characters`, raw };
  if (kind === 'host_fact') {
    const host = str(raw.host).toLowerCase();
    if (!host) return { malformed: 'a host fact without a host', raw };
    return { proposal: { kind, host, title, text, quote } };
  }
  const given = str(raw.pattern_key).toLowerCase();
  return { proposal: { kind, title, text, quote, pattern_key: isValidPatternKey(given) ? given : slugKey(title) } };
}

/** The child's proposals from its exit and stdout, or why there are none to read. */
export function reflectAnswer(run: ModelRun): ReflectAnswer {
  if (run.kind === 'error') return run;
  const stderr = run.stderr.slice(0, 2_000);
  if (run.code !== 0) return { kind: 'error', reason: `the reflection child exited with ${run.code ?? run.signal}${childSays(run)}`, stderr };
  for (const o of answerObjects(run.stdout, ['proposals'])) {
    if (!Array.isArray(o.proposals)) continue;
    const raws = o.proposals.filter((p): p is Record<string, unknown> => !!p && typeof p === 'object' && !Array.isArray(p));
    return { kind: 'answer', proposals: raws.slice(0, MAX_PROPOSALS).map(shapeProposal) };
  }
  return { kind: 'error', reason: 'no proposals in the reflection child output', stderr };
}

/** Text compared loosely: quote marks unified, white space runs one space, lower case. */
export function loose(text: string): string {
  return text.replace(/[‘’]/g, "'").replace(/[“”]/g, '"').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** A quote the model wrapped in quote marks, without them. */
function unwrap(quote: string): string {
  const q = quote.trim();
  return q.length > 2 && /^["'“‘`]/.test(q) && /["'”’`]$/.test(q) ? q.slice(1, -1).trim() : q;
}

/** Filter 2: the quote is found in the session text (`looseText`: the text through `loose`). */
export function quoteFound(quote: string, looseText: string): boolean {
  const q = loose(unwrap(quote));
  return q.length >= PROPOSAL_LIMITS.minQuote && looseText.includes(q);
}

/** A usage line, as `--help` prints it. */
const USAGE = /(?:^|\n)\s*usage:\s/i;

/**
 * Filter 3, as far as code can tell: the proposal restates a usage line, or its quote was printed only by a help
 * command (`helpTexts`) and nowhere else in the session (`looseText`, loosened).
 */
export function obviousReason(p: Proposal, helpTexts: readonly string[], looseText: string): string | undefined {
  if (USAGE.test(p.text) || USAGE.test(p.quote)) return 'obvious: restates a usage line';
  const q = loose(unwrap(p.quote));
  const count = (t: string): number => t.split(q).length - 1;
  const inHelp = helpTexts.reduce((n, h) => n + count(loose(h)), 0);
  if (inHelp === 0) return undefined;
  // Found as often in help output as in the whole session: nothing but the help text said it.
  return count(looseText) <= inHelp ? 'obvious: only a help command printed it' : undefined;
}

/** How much of `text`'s vocabulary `other` holds: the share of its distinct search terms found in `other` (0..1). */
export function coverage(text: string, other: string): number {
  const mine = new Set(terms(text, SEARCH_TERMS));
  if (mine.size === 0) return 0;
  const theirs = new Set(terms(other, SEARCH_TERMS));
  let n = 0;
  for (const t of mine) if (theirs.has(t)) n++;
  return n / mine.size;
}
