/**
 * Contract: the signals of the prompt hook (spec/hooks.md, "Signals"). A signal looks at one prompt and the
 * prompt index and proposes pointers (id, title, why); the handler merges them in the order of PROMPT_SIGNALS,
 * drops what the session's ledger already showed, and applies each signal's limit. A signal only fires: data
 * the index does not otherwise carry is computed when the index is built, by the index layer
 * (adapters/index/prompt/extras-*.ts), and read here from `header.extras`.
 */
import type { HookInput } from '../protocol.js';
import { lookupTerms, postingsHave, readDoc, type IndexReader } from '../../adapters/index/prompt/format.js';
import type { PromptActivity } from '../../core/text/prompt-text.js';

/** One proposed pointer. */
export interface Pointer {
  id: string;
  title: string;
  /** The signal that proposed it (`keyword`, `activity:writing`, ...). */
  signal: string;
  score?: number;
  terms?: string[];
}

/** What a signal sees of one prompt. */
export interface SignalContext {
  /** The prompt, trimmed and capped at MAX_PROMPT_CHARS. */
  prompt: string;
  /** Its distinct keywords (prompt-text.ts). */
  keywords: string[];
  activities: PromptActivity[];
  reader: IndexReader;
  input: HookInput;
  dataDir: string;
  /** True on the first non-skipped prompt of a session (no ledger yet). */
  firstPrompt: boolean;
  /** True when KB_HOOK_DEBUG is on: signals may then spend time on near misses. */
  debug: boolean;
}

/** What a signal returns: ranked pointers, and for the debug log anything it wants to say. */
export interface SignalResult {
  pointers: Pointer[];
  debug?: Record<string, unknown>;
}

export interface PromptSignal {
  name: string;
  /** The most pointers of this signal per prompt, after dedup. */
  limit: number;
  fire: (ctx: SignalContext) => SignalResult;
}

/**
 * Tuning of the keyword signal (chosen on the benchmark; spec/hooks.md, "Keyword" and "Tuning"). One set of
 * values for a repo of 1 entry and of 50,000: every bar is a ratio or a score normalised by the largest IDF.
 */
export interface KeywordParams {
  /** BM25's term-frequency saturation. */
  k1: number;
  /** Distinct prompt keywords the best entry must match. */
  minHits: number;
  /**
   * Least share of the prompt's distinctive weight the best entry must match: the summed IDF of the keywords it
   * matches over the summed IDF of the prompt's keywords found in the index.
   */
  minShare: number;
  /**
   * Least confidence of the best entry: its score (BM25, normalised by the IDF of a keyword of one entry, so
   * about 1.5 for one rare word matched in a title) times the square root of its share.
   */
  minConfidence: number;
  /** Other entries fire when they score at least this fraction of the best and pass minHits and minShare. */
  relative: number;
  max: number;
}

export const KEYWORD_PARAMS: KeywordParams = {
  k1: 1.2,
  minHits: 3,
  minShare: 0.25,
  minConfidence: 1.4,
  relative: 0.5,
  max: 5,
};

/** A scored entry of the keyword signal. */
export interface KeywordScore {
  doc: number;
  /** BM25 score, normalised by the IDF of a keyword of one entry. */
  score: number;
  /** Share of the prompt's distinctive weight this entry matches. */
  share: number;
  terms: string[];
}

/** Why the best entry did not fire (for the debug log), or undefined when it did. */
export type KeywordMiss = 'hits' | 'share' | 'confidence';

/**
 * BM25 IDF with +1 smoothing: ln(1 + (N - df + 0.5) / (df + 0.5)); never 0 or negative, even for a keyword of
 * every entry of a repo of 1 to 3 entries.
 */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * Scores every entry that shares a keyword with the prompt by BM25 over its title, aliases, tags and body (the
 * weighted term frequencies of the index), and applies the confidence rule: the best entry fires when it
 * matches at least minHits keywords and minShare of the prompt's distinctive weight, and its score times the
 * square root of its share reaches minConfidence; then the others within `relative` of its score that pass the
 * same hits and share bars. Returns those that fire (best first), why the best did not, its lead over the
 * runner-up (score ratio, for the debug log), and when asked the best that did not.
 */
export function scoreKeywords(
  reader: IndexReader,
  keywords: string[],
  params: KeywordParams = KEYWORD_PARAMS,
  options: { near?: number } = {},
): { fired: KeywordScore[]; near: KeywordScore[]; miss?: KeywordMiss; margin?: number } {
  // NOTE: documents are numbered up to n; a delta's index counts fewer for the IDF (those it dropped).
  const n = reader.header.n;
  const live = reader.header.live ?? n;
  const postings = lookupTerms(reader, keywords);
  // NOTE: scores summed in one array by document number, not an object per matched entry: a prompt with common
  // words touches thousands of entries, and their objects cost milliseconds of allocation and collection. The
  // share and the matched terms are found again (by search in the postings, which are in document order) only
  // for the entries that may fire.
  const lists = [...postings];
  const idfs = lists.map(([, p]) => idf(live, p.count));
  const mass = idfs.reduce((a, b) => a + b, 0);
  const top = idf(live, 1);
  const score = new Float64Array(n);
  const hits = new Uint8Array(n);
  let total = 0;
  for (const [, p] of lists) total += p.count;
  const touched = new Int32Array(total);
  let nTouched = 0;
  for (let j = 0; j < lists.length; j++) {
    const { count, cells, weights } = lists[j]![1];
    const w = idfs[j]!;
    for (let i = 0; i < count; i++) {
      const doc = cells[2 * i]! >>> 3;
      const x = weights[2 * i + 1]!;
      if (hits[doc] === 0) touched[nTouched++] = doc;
      if (hits[doc]! < 255) hits[doc]! += 1;
      score[doc]! += (w * x * (params.k1 + 1)) / (x + params.k1) / top;
    }
  }
  // The lists holding an entry, found once per entry asked about (its share, the fire test and its terms use it).
  const found = new Map<number, number[]>();
  const matched = (doc: number): number[] => {
    let m = found.get(doc);
    if (!m) found.set(doc, (m = lists.flatMap(([, p], j) => (postingsHave(p, doc) ? [j] : []))));
    return m;
  };
  const shareOf = (doc: number): number => (mass > 0 ? matched(doc).reduce((a, j) => a + idfs[j]!, 0) / mass : 0);
  const before = (a: number, b: number): number => score[b]! - score[a]! || a - b;
  let best = -1;
  let second = 0;
  for (let t = 0; t < nTouched; t++) {
    const doc = touched[t]!;
    if (best === -1) best = doc;
    else if (before(doc, best) < 0) {
      second = Math.max(second, score[best]!);
      best = doc;
    } else second = Math.max(second, score[doc]!);
  }
  const margin = best === -1 ? undefined : second > 0 ? score[best]! / second : Infinity;
  let miss: KeywordMiss | undefined;
  if (best === -1) miss = 'hits';
  else if (hits[best]! < params.minHits) miss = 'hits';
  else if (shareOf(best) < params.minShare) miss = 'share';
  else if (score[best]! * Math.sqrt(shareOf(best)) < params.minConfidence) miss = 'confidence';
  const firedDocs: number[] = [];
  if (!miss) {
    const floor = score[best]! * params.relative;
    for (let t = 0; t < nTouched; t++) {
      const d = touched[t]!;
      if (d === best || (score[d]! >= floor && hits[d]! >= params.minHits && shareOf(d) >= params.minShare)) firedDocs.push(d);
    }
    firedDocs.sort(before);
  }
  let nearDocs: number[] = [];
  if (options.near) {
    const firedSet = new Set(firedDocs);
    nearDocs = Array.from(touched.subarray(0, nTouched)).filter((d) => !firedSet.has(d)).sort(before).slice(0, options.near);
  }
  const scored = (doc: number): KeywordScore => ({ doc, score: score[doc]!, share: shareOf(doc), terms: matched(doc).map((j) => lists[j]![0]) });
  const fired = firedDocs.map(scored);
  const near = nearDocs.map(scored);
  return { fired, near, miss, margin };
}

/** Keyword signal: enough distinct prompt keywords hit an entry's title, tags or aliases. */
export const keywordSignal: PromptSignal = {
  name: 'keyword',
  limit: KEYWORD_PARAMS.max,
  fire(ctx) {
    const { fired, near, miss, margin } = scoreKeywords(ctx.reader, ctx.keywords, KEYWORD_PARAMS, { near: ctx.debug ? 5 : 0 });
    // NOTE: a few more than the limit are read, so that entries the ledger drops can be replaced.
    const pointers = fired.slice(0, KEYWORD_PARAMS.max * 3).map((s) => ({ ...readDoc(ctx.reader, s.doc), signal: 'keyword', score: round(s.score), terms: s.terms }));
    // NOTE: ids, scores and counts only: no prompt text (nor titles, which a prompt's words may match) in the log.
    const debug = ctx.debug
      ? {
          ...(miss ? { miss } : {}),
          ...(margin !== undefined ? { margin: margin === Infinity ? null : round(margin) } : {}),
          nearMisses: near.map((s) => ({ id: readDoc(ctx.reader, s.doc).id, score: round(s.score), share: round(s.share), hits: s.terms.length })),
        }
      : undefined;
    return { pointers, debug };
  },
};

/** Activity signal: entries whose `applies_to` names an activity of the prompt, at zero keyword overlap. */
export const activitySignal: PromptSignal = {
  name: 'activity',
  limit: 5,
  fire(ctx) {
    const pointers: Pointer[] = [];
    for (const a of ctx.activities) {
      for (const [id, title] of ctx.reader.header.activity[a] ?? []) pointers.push({ id, title, signal: `activity:${a}` });
    }
    return { pointers };
  },
};

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/**
 * A signal whose module is loaded only when a prompt can use it. `wanted` is a cheap test on the prompt and the
 * index header (the signal's own extras); false means the signal cannot fire, and its module (with whatever it
 * imports) is not loaded. NOTE: each module a cold process loads costs about a millisecond, so a signal that
 * most prompts of most users do not need is lazy.
 */
export interface LazySignal {
  name: string;
  wanted(ctx: SignalContext): boolean;
  load(): Promise<PromptSignal>;
}

/** A slot of PROMPT_SIGNALS. */
export type SignalSlot = PromptSignal | LazySignal;

/** The signal of a slot, loaded if lazy. */
export async function loadSignal(slot: SignalSlot): Promise<PromptSignal> {
  return 'load' in slot ? slot.load() : slot;
}

/** Host signal (signals/host.ts): only when the index holds a matcher with at least one host. */
const hostSlot: LazySignal = {
  name: 'host',
  wanted: (ctx) => {
    const labels = ctx.reader.header.extras?.host?.matcher?.labels;
    return Array.isArray(labels) && labels.length > 0;
  },
  load: () => import('./signals/host.js').then((m) => m.hostSignal),
};

/** Recent-sessions signal (signals/sessions.ts): only on a session's first prompt, when summaries exist. */
const sessionsSlot: LazySignal = {
  name: 'sessions',
  wanted: (ctx) => ctx.firstPrompt && typeof ctx.reader.header.extras?.sessions?.file === 'string',
  load: () => import('./signals/sessions.js').then((m) => m.recentSessionsSignal),
};

/** The signals, in the order their pointers are listed. */
export const PROMPT_SIGNALS: SignalSlot[] = [keywordSignal, activitySignal, hostSlot, sessionsSlot];
