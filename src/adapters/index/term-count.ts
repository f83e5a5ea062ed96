/**
 * Contract: the counting of a document's terms as the search index takes them (terms.ts under SEARCH_TERMS, as
 * MiniSearch's tokenize and processTerm), shared by the indexer on the main thread (search-store.ts) and the
 * counting worker of a rebuild (count-worker.ts), so that both count exactly alike. Pure, no I/O, no MiniSearch.
 */
import { SEARCH_TERMS, termOf, tokenize } from '../../core/text/terms.js';

/** The term of one token, as MiniSearch indexes and queries it: terms.ts under SEARCH_TERMS. */
export function processTerm(term: string): string | null {
  return termOf(term.toLowerCase(), SEARCH_TERMS) ?? null;
}

/** The tokens of a text, as MiniSearch's tokenize gives them to processTerm. */
export function tokenizeText(text: string): string[] {
  return tokenize(text, SEARCH_TERMS.numbers);
}

/** A document's text in parts, each standing `repeat` times (a title weighs three lines of the body). */
export type Parts = readonly (readonly [text: string, repeat: number])[];

/**
 * A term of the documents a counter has seen: its count in the current document, its postings ((document,
 * count) pairs in the order the documents came), and where it was first seen: the document and the term's place
 * among that document's terms (what orders the terms of a rebuild counted in two places as one count would).
 */
export interface Posting {
  term: string;
  list: number[];
  doc: number;
  n: number;
  first: number;
  rank: number;
}

export interface TermCounter {
  /** Every term seen, in first-seen order. */
  postings: Map<string, Posting>;
  /**
   * Counts document `doc` (a short id above every one counted before): its terms, in first-seen order, and its
   * field length (the distinct tokens, stop words included, as MiniSearch counts them).
   */
  count(doc: number, parts: Parts): { touched: Posting[]; distinct: number };
  /** Counts document `doc` and adds it to the postings of its terms; returns its field length. */
  add(doc: number, parts: Parts): number;
}

/**
 * A counter with one Map lookup a token: each distinct token it has seen knows its term's posting (`term`
 * decides a token's term, null for none), and a stamp (the document's short id) counts each token and each term
 * once a document. A document given in parts is counted as their lines joined: no token spans a line break, so
 * each part's tokens, `repeat` times over, are the joined text's, in the same order.
 */
export function termCounter(term: (token: string) => string | null): TermCounter {
  const postings = new Map<string, Posting>();
  const tokens = new Map<string, { posting: Posting | null; doc: number }>();
  const count: TermCounter['count'] = (doc, parts) => {
    const touched: Posting[] = [];
    let distinct = 0;
    for (const [text, repeat] of parts) {
      for (const token of tokenizeText(text)) {
        let seen = tokens.get(token);
        if (seen === undefined) {
          const t = term(token);
          let posting: Posting | null = null;
          if (t) {
            posting = postings.get(t) ?? null;
            if (!posting) postings.set(t, (posting = { term: t, list: [], doc: -1, n: 0, first: doc, rank: touched.length }));
          }
          tokens.set(token, (seen = { posting, doc: -1 }));
        }
        if (seen.doc !== doc) {
          seen.doc = doc;
          distinct++;
        }
        const p = seen.posting;
        if (p === null) continue;
        if (p.doc !== doc) {
          p.doc = doc;
          p.n = 0;
          touched.push(p);
        }
        p.n += repeat;
      }
    }
    return { touched, distinct };
  };
  return {
    postings,
    count,
    add(doc, parts) {
      const { touched, distinct } = count(doc, parts);
      for (const p of touched) p.list.push(doc, p.n);
      return distinct;
    },
  };
}
