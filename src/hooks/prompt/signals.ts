/**
 * Contract: the signals of the prompt hook (spec/hooks.md, "Signals"). A signal looks at one prompt and the
 * prompt index and proposes pointers (id, title, why); the handler merges them in the order of PROMPT_SIGNALS,
 * drops what the session's ledger already showed, and applies each signal's limit. A signal only fires: data
 * the index does not otherwise carry is computed when the index is built, by the index layer
 * (adapters/index/prompt/extras-*.ts), and read here from `header.extras`.
 */
import type { HookInput } from '../protocol.js';
import { decayOf, lookupTerms, postingsHave, readDoc, readParts, type IndexReader } from '../../adapters/index/prompt/format.js';
import type { PromptActivity } from '../../core/text/prompt-text.js';
import { KEYWORD_PARAMS, keywordWeights, type KeywordParams } from '../../core/text/relevance.js';
import { freshestDecay, relativeDecay } from '../../core/decay.js';

export { KEYWORD_PARAMS, type KeywordParams };

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

/** A scored entry of the keyword signal. */
export interface KeywordScore {
  doc: number;
  id: string;
  title: string;
  /** Summed rank weight of the keywords it matches, each saturated by its frequency in the entry (relevance.ts). */
  evidence: number;
  /** Its decay multiplier (spec/memory.md, "Decay"): 1 when new, down to the floor with age; absent: evergreen. */
  decay?: number;
  /** Summed cover weight of the keywords it matches. */
  covered: number;
  /** That over the summed cover weight of all the prompt's keywords. */
  coverage: number;
  /**
   * The share of words the prompt and the entry have in common, whatever their weight: the distinct keywords it
   * matches over the geometric mean of the prompt's count of keywords and its own (Ochiai's coefficient). For a
   * page with sections read part by part (readSections), its best section's.
   */
  focus: number;
  terms: string[];
  /** The number of the section its focus is that of (0: the first; readSections); absent: the page's. */
  section?: number;
}

/** Why the best entry did not fire (for the debug log), or undefined when it did. */
export type KeywordMiss = 'hits' | 'covered' | 'coverage' | 'focus';

/** Every entry sharing a keyword with a prompt, ranked by evidence; what the bars are applied to. */
export interface KeywordRanking {
  /** Summed cover weight of the prompt's keywords (those no entry has included). */
  mass: number;
  /** Each keyword's weights (relevance.ts keywordWeights), in the prompt's order. */
  weights: Map<string, { rank: number; cover: number }>;
  /**
   * The best `top` entries, best first (ties: the lower document number, the newer entry in a rebuilt index; an
   * entry of the index file before one of its delta, spec/hooks.md "Updates").
   */
  ranked: KeywordScore[];
}

/**
 * Ranks the entries sharing a keyword with the prompt by their evidence: each distinct shared keyword adds its
 * rank weight (relevance.ts keywordWeights: the square root of its normalised IDF) times its saturated weighted
 * frequency in the entry (title, aliases, tags and body, as the index holds it); and gives each its coverage of
 * the prompt, and its decay multiplier at `now` (the curve search applies; decide uses it).
 */
export function rankKeywords(reader: IndexReader, keywords: string[], params: KeywordParams = KEYWORD_PARAMS, top = 8, now = Date.now()): KeywordRanking {
  // NOTE: documents are numbered up to n; a delta's index counts fewer for the IDF (those it dropped).
  const n = reader.header.n;
  const live = reader.header.live ?? n;
  const postings = lookupTerms(reader, keywords);
  const all = new Map<string, { rank: number; cover: number }>();
  let mass = 0;
  for (const k of keywords) {
    const w = keywordWeights(k, live, postings.get(k)?.count ?? 0);
    all.set(k, w);
    mass += w.cover;
  }
  // NOTE: evidence summed in one array by document number, not an object per matched entry: a prompt with common
  // words touches thousands of entries, and their objects cost milliseconds of allocation and collection. The
  // matched terms are found again (by search in the postings, which are in document order) for the few entries
  // returned, and their covered weight summed from them, in the same order: the loop over every posting does the
  // least it can (until V8 optimises it, each arithmetic result there is a heap number; at 50,000 entries a prompt
  // of common words runs it some 20,000 times).
  const lists = [...postings];
  const weights = lists.map(([k]) => all.get(k)!);
  const evidence = new Float64Array(n);
  const seen = new Uint8Array(n);
  const k1 = params.k1;
  let total = 0;
  for (const [, p] of lists) total += p.count;
  const touched = new Int32Array(total);
  let nTouched = 0;
  for (let j = 0; j < lists.length; j++) {
    const { count, cells, weights: tf } = lists[j]![1];
    const rank = weights[j]!.rank;
    for (let i = 0; i < count; i++) {
      const doc = cells[2 * i]! >>> 3;
      if (seen[doc] === 0) {
        seen[doc] = 1;
        touched[nTouched++] = doc;
      }
      // The match saturated (KeywordParams.k1), written out here: a call per posting costs more than the division
      // while the loop is interpreted.
      const x = tf[2 * i + 1]!;
      evidence[doc]! += rank * (x / (x + k1));
    }
  }
  const before = (a: number, b: number): number => evidence[b]! - evidence[a]! || a - b;
  // The best `top`, kept sorted by insertion (top is small; the touched entries can be thousands). Once it is full,
  // an entry below the last one's evidence (or equal to it, with a higher document number) is passed over without
  // a call.
  const best: number[] = [];
  let last = -1;
  let floor = 0;
  for (let t = 0; t < nTouched; t++) {
    const d = touched[t]!;
    if (last >= 0) {
      const e = evidence[d]!;
      if (e < floor || (e === floor && d > last)) continue;
    }
    let i = best.length === top ? top - 1 : best.length;
    while (i > 0 && before(d, best[i - 1]!) < 0) i--;
    best.splice(i, 0, d);
    if (best.length > top) best.pop();
    if (best.length === top) {
      last = best[top - 1]!;
      floor = evidence[last]!;
    }
  }
  // NOTE: each document is read once here (its id, title, keyword count and decay stamp); the signal and the
  // debug log use it.
  const decay = decayOf(reader, now);
  const ranked = best.map((doc) => {
    const terms = lists.flatMap(([k, p]) => (postingsHave(p, doc) ? [k] : []));
    const covered = terms.reduce((sum, k) => sum + all.get(k)!.cover, 0);
    const { id, title, size } = readDoc(reader, doc);
    return {
      doc,
      id,
      title,
      evidence: evidence[doc]!,
      decay: decay?.(doc),
      covered,
      coverage: mass > 0 ? covered / mass : 0,
      focus: ochiai(terms.length, keywords.length, size),
      terms,
    };
  });
  return { mass, weights: all, ranked };
}

/** Ochiai's coefficient of a prompt of `prompt` keywords and a text of `size` that share `shared`. */
function ochiai(shared: number, prompt: number, size: number): number {
  return shared / Math.sqrt(prompt * Math.max(shared, size));
}

/**
 * A long page holds most words of its domain, so the focus bar keeps it quiet (missOf); but a page with sections is
 * several notes in one file. An entry of the ranking that misses only the focus bar, is such a page, and could be
 * pointed to (the first, or within `relative` of its evidence) is judged part by part: each part (a top-level
 * section with the page's title, as the index keeps it: core/format/sections.ts pageParts) is scored as a note of
 * its own with the same bars, and the page's focus becomes that of its best part that passes them all. So a page
 * fires on a prompt one of its parts is about, and stays quiet on one whose words it scatters across its parts.
 * Returns the ranking with those entries' focus raised (a copy: the ranking given is not changed).
 */
export function readSections(ranking: KeywordRanking, keywords: string[], reader: IndexReader, params: KeywordParams = KEYWORD_PARAMS): KeywordRanking {
  const [first] = ranking.ranked;
  if (!first) return ranking;
  const ranked = ranking.ranked.map((s) => {
    if (s.evidence < first.evidence * params.relative || missOf(s, params) !== 'focus') return s;
    const parts = readParts(reader, s.doc);
    if (!parts) return s;
    const masks = keywords.map((k) => parts.masks.get(k) ?? 0);
    let best: KeywordScore | undefined;
    // Each part alone, and each later part read with the opening one (what the page says it is about). NOTE: the
    // index keeps each part's count of distinct keywords, not of a union: the two counts are added, which can only
    // count a word twice and make the focus lower, never higher.
    const spans = parts.sizes.map((size, i) => ({ bits: 1 << i, size, section: i }));
    for (let i = 1; i < parts.sizes.length; i++) spans.push({ bits: 1 | (1 << i), size: parts.sizes[0]! + parts.sizes[i]!, section: i });
    for (const { bits, size, section } of spans) {
      const shared = keywords.filter((_, j) => (masks[j]! & bits) !== 0);
      const covered = shared.reduce((sum, k) => sum + (ranking.weights.get(k)?.cover ?? 0), 0);
      const scored = { ...s, terms: shared, covered, coverage: ranking.mass > 0 ? covered / ranking.mass : 0, focus: ochiai(shared.length, keywords.length, size) };
      if (!missOf(scored, params) && scored.focus > (best?.focus ?? 0)) best = { ...s, focus: scored.focus, section };
    }
    return best ?? s;
  });
  return { ...ranking, ranked };
}

/** Why an entry does not pass the bars, or undefined when it does. */
export function missOf(s: KeywordScore, params: KeywordParams = KEYWORD_PARAMS): KeywordMiss | undefined {
  // NOTE: written as !(x >= bar), so that a value that is not a number (a damaged index) fails its bar.
  if (!(s.terms.length >= params.minHits)) return 'hits';
  if (!(s.covered >= params.minCovered)) return 'covered';
  if (!(s.coverage >= params.minCoverage)) return 'coverage';
  if (!(s.focus >= params.minFocus)) return 'focus';
  return undefined;
}

/**
 * The confidence rule over a ranking: the best entry fires when it passes the bars (missOf); then the next ones
 * that pass them too with at least `relative` of the first's evidence, where evidence is aged (spec/memory.md,
 * "Decay"): times the decay multiplier relative to the freshest decaying entry past the bars (core/decay.ts
 * relativeDecay), and the order is by aged evidence, up to `max`. So an old lesson gives way to a newer one on the
 * same words, and decay never makes the hook fire or fall silent: an old entry that alone answers is still pointed
 * to. Returns those that fire (first first), why the best did not, and the rest of the ranking (near misses).
 */
export function decide(ranking: KeywordRanking, params: KeywordParams = KEYWORD_PARAMS): { fired: KeywordScore[]; near: KeywordScore[]; miss?: KeywordMiss } {
  const [first] = ranking.ranked;
  const miss = first ? missOf(first, params) : 'hits';
  if (miss) return { fired: [], near: ranking.ranked, miss };
  const answer = ranking.ranked.filter((s, i) => i === 0 || !missOf(s, params));
  const freshest = freshestDecay(answer.map((s) => s.decay));
  const aged = (s: KeywordScore): number => s.evidence * relativeDecay(s.decay, freshest);
  answer.sort((a, b) => aged(b) - aged(a));
  const floor = aged(answer[0]!) * params.relative;
  const fired = answer.filter((s) => aged(s) >= floor).slice(0, params.max);
  return { fired, near: ranking.ranked.filter((s) => !fired.includes(s)) };
}

/** Ranks, reads pages part by part and decides (rankKeywords, readSections, decide): the entries that fire, why the best did not, and near misses. */
export function scoreKeywords(reader: IndexReader, keywords: string[], params: KeywordParams = KEYWORD_PARAMS): { fired: KeywordScore[]; near: KeywordScore[]; miss?: KeywordMiss } {
  return decide(readSections(rankKeywords(reader, keywords, params), keywords, reader, params), params);
}

/** Keyword signal: an entry whose specific words are what the prompt is about (spec/hooks.md, "Keyword"). */
export const keywordSignal: PromptSignal = {
  name: 'keyword',
  limit: KEYWORD_PARAMS.max,
  fire(ctx) {
    const { fired, near, miss } = scoreKeywords(ctx.reader, ctx.keywords);
    const pointers = fired.map((s) => ({ id: s.id, title: s.title, signal: 'keyword', score: round(s.evidence), terms: s.terms }));
    // NOTE: ids, scores and counts only: no prompt text (nor titles, which a prompt's words may match) in the log.
    const debug = ctx.debug
      ? {
          ...(miss ? { miss } : {}),
          nearMisses: near.slice(0, 5).map((s) => ({ id: s.id, evidence: round(s.evidence), covered: round(s.covered), coverage: round(s.coverage), hits: s.terms.length, focus: round(s.focus), ...(s.section !== undefined ? { section: s.section } : {}), ...(s.decay !== undefined ? { decay: round(s.decay) } : {}), miss: missOf(s) ?? (!miss && s.evidence >= (fired[0]?.evidence ?? 0) * KEYWORD_PARAMS.relative ? 'max' : 'relative') })),
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
