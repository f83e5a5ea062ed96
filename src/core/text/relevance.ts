/**
 * Contract: the one home of the prompt hook's weights and bars (spec/hooks.md, "Keyword"): the field weights the
 * prompt index is built with, the weight of a prompt keyword (how specific it is, in developers' text in general
 * and in this knowledge base), and the bars an entry must pass to be pointed to. Pure: the index builder
 * (adapters/index/prompt/build.ts) and the keyword signal (hooks/prompt/signals.ts) both read it.
 */
import { BACKGROUND } from './background.js';

/**
 * Weight of a keyword match in each field of an entry, as BM25F weighs fields (a word of the title counts as
 * five of the body), and the length normalisation b, in the weighted term frequencies of the prompt index.
 */
export const FIELD_WEIGHTS = { title: 5, alias: 5, tag: 3, body: 1 } as const;
export const FIELD_B = 0.75;

/** The bars of the keyword signal: one set of values for a repo of 1 entry and of 50,000. */
export interface KeywordParams {
  /** Term-frequency saturation: a match of weighted frequency x counts x / (x + k1) of its keyword's weight. */
  k1: number;
  /** Least number of distinct prompt keywords the entry matches. */
  minHits: number;
  /**
   * Least covered weight: the summed cover weight (keywordWeights) of the keywords the entry matches. A weight is at
   * most 1 (a word of one entry, rare in developers' text), so this absolute floor reads alike at any repo size:
   * the entry shares at least about one and a half specific words with the prompt.
   */
  minCovered: number;
  /**
   * Least coverage: the summed cover weight of the keywords the entry matches over that of all the prompt's
   * keywords, those no entry has included (a prompt about a framework no note mentions is not about the notes
   * that share its ordinary words).
   */
  minCoverage: number;
  /**
   * Least focus: the distinct keywords the entry matches over the geometric mean of the prompt's keyword count and
   * the entry's (Ochiai's coefficient). A long reference or hub page holds most words of its domain, so it covers
   * many prompts of that domain; this bar asks that the words shared be a fair part of the page too.
   */
  minFocus: number;
  /**
   * A second and third entry fire only at this fraction of the best one's evidence (its rank: the summed rank
   * weight of the keywords it matches, each saturated by its weighted frequency in the entry) and past the same
   * bars.
   */
  relative: number;
  /** The most pointers per prompt. */
  max: number;
}

export const KEYWORD_PARAMS: KeywordParams = {
  k1: 1.2,
  minHits: 2,
  minCovered: 1.5,
  minCoverage: 0.5,
  minFocus: 0.2,
  relative: 0.8,
  max: 3,
};

/**
 * BM25 IDF with +1 smoothing: ln(1 + (n - df + 0.5) / (df + 0.5)); never 0 or negative, even for a keyword of
 * every entry of a repo of 1 to 3 entries.
 */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * How specific a word is in developers' text in general, from 0 to 1 (background.ts): 1 for a word too rare to be
 * listed ("liquibase", "godot"), falling with the logarithm of its share of that text ("tmux" 0.90, "branch"
 * 0.47, "test" 0.22, "add" 0.13). NOTE: a binary search over the sorted lines of the one string, by character
 * offset (records `word value;`): nothing is parsed or allocated, so the prompt hook pays a few microseconds per
 * keyword, not the milliseconds that splitting 10,000 records into a Map would cost on every prompt.
 */
export function specificity(term: string): number {
  const text = BACKGROUND;
  let lo = 0;
  let hi = text.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    // The record holding offset mid: from after the ';' before it to its own ';'.
    const start = text.lastIndexOf(';', mid) + 1;
    const space = text.indexOf(' ', start);
    const end = text.indexOf(';', space);
    if (space < 0 || end < 0) {
      hi = start - 1;
      continue;
    }
    const word = text.slice(start, space);
    if (word === term) return Number(text.slice(space + 1, end)) / 100;
    if (word < term) lo = end + 1;
    else hi = start - 1;
  }
  return 1;
}

/** A keyword's IDF in a knowledge base of `n` entries, `df` of which hold it, over that of a word of one entry (1 when none do). */
export function rarity(n: number, df: number): number {
  return df === 0 ? 1 : idf(n, df) / idf(n, 1);
}

/**
 * A keyword's two weights: `rank`, what a match of it adds to an entry's evidence (the square root of its
 * rarity: BM25's IDF, compressed); `cover`, its share of what the prompt is about (the geometric mean of its
 * rarity in the knowledge base and its specificity in developers' text in general: a word common in either says
 * little about the subject).
 */
export function keywordWeights(term: string, n: number, df: number): { rank: number; cover: number } {
  const r = rarity(n, df);
  return { rank: Math.sqrt(r), cover: Math.sqrt(r * specificity(term)) };
}
