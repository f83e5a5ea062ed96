/**
 * Contract: MiniSearch's three document maps (short id -> path, path -> short id, short id -> field lengths) read
 * straight from a stored base's columns (its paths, sorted, and per path a short id and a field length), instead
 * of filled with one entry per document when the base is opened: a search looks up only the documents its terms
 * reach. What changes afterwards (a delta's documents added, changed ones discarded) is kept over the columns.
 * Each map has what MiniSearch calls (get, has, set, delete) and what a Map can be asked besides (size, iteration).
 */

/** A stored base's per-file columns; `none` marks a file that has no document (it did not parse). */
export interface DocColumns {
  paths: readonly string[];
  short: Uint32Array;
  len: Uint32Array;
  none: number;
}

/** A Map over columns `at(key)` answers, with the changes made since kept apart. */
class OverMap<K, V> {
  private readonly own = new Map<K, V>();
  private readonly dropped = new Set<K>();
  private count: number;

  constructor(
    private readonly at: (key: K) => V | undefined,
    private readonly stored: () => Iterable<[K, V]>,
    storedCount: number,
  ) {
    this.count = storedCount;
  }

  get size(): number {
    return this.count;
  }

  get(key: K): V | undefined {
    if (this.own.size !== 0) {
      const v = this.own.get(key);
      if (v !== undefined) return v;
    }
    if (this.dropped.size !== 0 && this.dropped.has(key)) return undefined;
    return this.at(key);
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  set(key: K, value: V): this {
    if (!this.has(key)) this.count++;
    this.own.set(key, value);
    this.dropped.delete(key);
    return this;
  }

  delete(key: K): boolean {
    if (!this.has(key)) return false;
    this.count--;
    this.own.delete(key);
    if (this.at(key) !== undefined) this.dropped.add(key);
    return true;
  }

  *entries(): IterableIterator<[K, V]> {
    for (const [k, v] of this.stored()) if (!this.dropped.has(k) && !this.own.has(k)) yield [k, v];
    yield* this.own.entries();
  }

  *keys(): IterableIterator<K> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<V> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries();
  }

  forEach(fn: (value: V, key: K, map: this) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
}

/** The document maps over `c`, whose paths are sorted as JavaScript compares strings (writeBase sorts them). */
export function docMaps(c: DocColumns): {
  documentIds: Map<number, string>;
  idToShortId: Map<string, number>;
  fieldLength: Map<number, number[]>;
  /** The column index of a stored path, or -1. */
  indexOf: (path: string) => number;
} {
  const { paths, short, len, none } = c;
  let top = 0;
  let documents = 0;
  for (let i = 0; i < short.length; i++) {
    if (short[i] === none) continue;
    documents++;
    if (short[i]! >= top) top = short[i]! + 1;
  }
  const row = new Int32Array(top).fill(-1);
  for (let i = 0; i < short.length; i++) if (short[i] !== none) row[short[i]!] = i;
  const indexOf = (p: string): number => {
    let lo = 0;
    let hi = paths.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const q = paths[mid]!;
      if (q === p) return mid;
      if (q < p) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  const rowOf = (s: number): number => (Number.isInteger(s) && s >= 0 && s < top ? row[s]! : -1);
  function* stored<V>(value: (i: number) => V): Iterable<[number, V]> {
    for (let i = 0; i < short.length; i++) if (short[i] !== none) yield [short[i]!, value(i)];
  }
  const documentIds = new OverMap<number, string>(
    (s) => {
      const i = rowOf(s);
      return i < 0 ? undefined : paths[i];
    },
    () => stored((i) => paths[i]!),
    documents,
  );
  const idToShortId = new OverMap<string, number>(
    (p) => {
      const i = indexOf(p);
      return i < 0 || short[i] === none ? undefined : short[i];
    },
    function* () {
      for (const [s, p] of stored((i) => paths[i]!)) yield [p, s] as [string, number];
    },
    documents,
  );
  const fieldLength = new OverMap<number, number[]>(
    (s) => {
      const i = rowOf(s);
      return i < 0 ? undefined : [len[i]!];
    },
    () => stored((i) => [len[i]!]),
    documents,
  );
  return { documentIds: documentIds as unknown as Map<number, string>, idToShortId: idToShortId as unknown as Map<string, number>, fieldLength: fieldLength as unknown as Map<number, number[]>, indexOf };
}
