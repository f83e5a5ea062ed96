/**
 * Contract: the signals of the prompt hook (spec/hooks.md, "Signals"). A signal looks at one prompt and the
 * prompt index and proposes pointers (id, title, why); the handler merges them in the order of PROMPT_SIGNALS,
 * drops what the session's ledger already showed, and applies each signal's limit. A signal only fires: data
 * the index does not otherwise carry is computed when the index is built, by the index layer
 * (adapters/index/prompt/extras-*.ts), and read here from `header.extras`.
 */
import type { HookInput } from '../protocol.js';
import { FIELD_ALIAS, FIELD_TITLE, lookupTerms, readDoc, type IndexReader } from '../../adapters/index/prompt/format.js';
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

/** Tuning of the keyword signal (chosen on the benchmark; spec/hooks.md, "Tuning"). */
export interface KeywordParams {
  /** Distinct prompt keywords an entry must match. */
  minHits: number;
  /**
   * Least summed weight an entry must reach. A keyword weighs its IDF normalised by the largest IDF of the
   * index, ln(1 + N/df) / ln(1 + N), so 1 for a keyword of one entry whatever the size of the data repo,
   * times the field weight.
   */
  minScore: number;
  /** An entry scoring below this fraction of the best entry is dropped. */
  relative: number;
  /** Weight of a keyword that matched only a tag (title and alias matches weigh 1). */
  tagWeight: number;
  /** Keywords found in more than this fraction of entries count for nothing (but still count as hits). */
  maxDfRatio: number;
  max: number;
}

export const KEYWORD_PARAMS: KeywordParams = {
  minHits: 2,
  minScore: 1.4,
  relative: 0.7,
  tagWeight: 1,
  maxDfRatio: 0.5,
  max: 5,
};

/** A scored entry of the keyword signal. */
export interface KeywordScore {
  doc: number;
  score: number;
  terms: string[];
}

/**
 * Scores every entry that shares a keyword with the prompt; returns those that fire (best first) and, when
 * `near` is asked for, the best entries that did not.
 */
export function scoreKeywords(
  reader: IndexReader,
  keywords: string[],
  params: KeywordParams = KEYWORD_PARAMS,
  options: { near?: number } = {},
): { fired: KeywordScore[]; near: KeywordScore[] } {
  const n = reader.header.n;
  const postings = lookupTerms(reader, keywords);
  const acc = new Map<number, KeywordScore>();
  const norm = Math.log(1 + n);
  for (const [term, list] of postings) {
    const df = list.length;
    const idf = df > n * params.maxDfRatio ? 0 : Math.log(1 + n / df) / norm;
    for (let i = 0; i < list.length; i++) {
      const v = list[i]!;
      const doc = v >>> 3;
      const weight = v & (FIELD_TITLE | FIELD_ALIAS) ? 1 : params.tagWeight;
      const s = acc.get(doc);
      if (s) {
        s.score += idf * weight;
        s.terms.push(term);
      } else acc.set(doc, { doc, score: idf * weight, terms: [term] });
    }
  }
  const byScore = (a: KeywordScore, b: KeywordScore): number => b.score - a.score || a.doc - b.doc;
  // NOTE: only the entries over the absolute bars are sorted; a prompt with common words can touch hundreds.
  const passing: KeywordScore[] = [];
  let best = 0;
  for (const s of acc.values()) {
    if (s.terms.length >= params.minHits && s.score >= params.minScore) {
      passing.push(s);
      if (s.score > best) best = s.score;
    }
  }
  const fired = passing.filter((s) => s.score >= best * params.relative).sort(byScore);
  let near: KeywordScore[] = [];
  if (options.near) {
    const firedSet = new Set(fired);
    near = [...acc.values()].filter((s) => !firedSet.has(s)).sort(byScore).slice(0, options.near);
  }
  return { fired, near };
}

/** Keyword signal: enough distinct prompt keywords hit an entry's title, tags or aliases. */
export const keywordSignal: PromptSignal = {
  name: 'keyword',
  limit: KEYWORD_PARAMS.max,
  fire(ctx) {
    const { fired, near } = scoreKeywords(ctx.reader, ctx.keywords, KEYWORD_PARAMS, { near: ctx.debug ? 5 : 0 });
    // NOTE: a few more than the limit are read, so that entries the ledger drops can be replaced.
    const pointers = fired.slice(0, KEYWORD_PARAMS.max * 3).map((s) => ({ ...readDoc(ctx.reader, s.doc), signal: 'keyword', score: round(s.score), terms: s.terms }));
    const debug = ctx.debug ? { nearMisses: near.map((s) => ({ id: readDoc(ctx.reader, s.doc).id, score: round(s.score), terms: s.terms.length })) } : undefined;
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
