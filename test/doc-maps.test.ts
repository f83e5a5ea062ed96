/**
 * The search base's document maps read from its columns (src/adapters/index/doc-maps.ts) answer as the Maps
 * MiniSearch would have filled: the same gets, sizes and iteration, through any sequence of sets and deletes.
 */
import { describe, expect, it } from 'vitest';
import { docMaps } from '../src/adapters/index/doc-maps.js';

const NONE = 0xffffffff;

function columns(n: number) {
  const paths = Array.from({ length: n }, (_, i) => `entries/kb-${String(i).padStart(5, '0')}-note.md`).sort();
  const short = new Uint32Array(n);
  const len = new Uint32Array(n);
  // short ids out of path order, with gaps (discarded documents) and files without a document
  paths.forEach((_, i) => {
    short[i] = i % 7 === 3 ? NONE : (i * 37) % (n * 2);
    len[i] = 10 + (i % 13);
  });
  return { paths, short, len, none: NONE };
}

function reference(c: ReturnType<typeof columns>) {
  const documentIds = new Map<number, string>();
  const idToShortId = new Map<string, number>();
  const fieldLength = new Map<number, number[]>();
  c.paths.forEach((p, i) => {
    if (c.short[i] === NONE) return;
    documentIds.set(c.short[i]!, p);
    idToShortId.set(p, c.short[i]!);
    fieldLength.set(c.short[i]!, [c.len[i]!]);
  });
  return { documentIds, idToShortId, fieldLength };
}

const sorted = <K, V>(m: Iterable<[K, V]>) => [...m].map(([k, v]) => JSON.stringify([k, v])).sort();

describe('search document maps over stored columns', () => {
  it('answer as eagerly filled Maps, before and after sets and deletes', () => {
    const c = columns(500);
    const ours = docMaps(c);
    const ref = reference(c);
    const check = () => {
      for (const k of ['documentIds', 'idToShortId', 'fieldLength'] as const) {
        expect(ours[k].size).toBe(ref[k].size);
        expect(sorted(ours[k] as Map<unknown, unknown>)).toEqual(sorted(ref[k] as Map<unknown, unknown>));
      }
      for (let s = -1; s < 1002; s++) {
        expect(ours.documentIds.get(s)).toBe(ref.documentIds.get(s));
        expect(ours.fieldLength.get(s)).toEqual(ref.fieldLength.get(s));
        expect(ours.documentIds.has(s)).toBe(ref.documentIds.has(s));
      }
      for (const p of [...c.paths, 'entries/none.md', 'a', 'zzz']) expect(ours.idToShortId.get(p)).toBe(ref.idToShortId.get(p));
    };
    check();
    // what MiniSearch's discard and add do: drop a stored document, add new ones, re-add a dropped path
    let next = 1000;
    for (let i = 0; i < c.paths.length; i += 11) {
      const p = c.paths[i]!;
      const s = ref.idToShortId.get(p);
      expect(ours.idToShortId.delete(p)).toBe(ref.idToShortId.delete(p));
      if (s !== undefined) {
        expect(ours.documentIds.delete(s)).toBe(ref.documentIds.delete(s));
        expect(ours.fieldLength.delete(s)).toBe(ref.fieldLength.delete(s));
      }
      if (i % 2 === 0) {
        const n = next++;
        for (const m of [ours, ref]) {
          m.idToShortId.set(p, n);
          m.documentIds.set(n, p);
          m.fieldLength.set(n, [i]);
        }
      }
    }
    expect(ours.documentIds.delete(99999)).toBe(false);
    check();
    expect(ours.indexOf(c.paths[42]!)).toBe(42);
    expect(ours.indexOf('entries/missing.md')).toBe(-1);
  });
});
