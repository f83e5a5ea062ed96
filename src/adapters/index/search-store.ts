/**
 * Contract: the stored search index (spec/search.md, "Freshness"). What is indexed, how it is kept on disk, and
 * how it is proved current; the only code that touches MiniSearch's private fields. Derived state, safe to
 * delete, never served stale.
 *
 * - The base, `.git/git-kb/search.v9`: a stat table (stat-table.ts: every catalogued file's path and stat data,
 *   under the names key taken before the files were listed) whose tail holds, per file, its MiniSearch short id
 *   and field length and the few fields search shows and filters on (one JSON row), then the term tree cut into
 *   shards, one per first character of a term (the root's children of MiniSearch's radix tree), each serialised
 *   on its own. A search reads the file and deserialises only the shards of its query terms' first characters.
 * - The delta, `.git/git-kb/search-delta.v9`: the files changed, added or gone since the base was written, with
 *   the text and row of each (so no YAML is parsed to serve them). A search applies it on top of the base in
 *   memory, adding only the terms of the shards the query looks at. Past DELTA_MAX files (or DELTA_MAX_TEXT
 *   characters) the delta is folded into a new base, rewriting only the shards it touches.
 *
 * Proof of currency: the names key of the entry folders (fresh.ts) equals the recorded one and every recorded
 * file has its recorded stat data (one stat per file; this is how an uncommitted edit in place is seen). A names
 * key that moved means the folders are listed and compared. The changed files are read and go into the delta;
 * more than REBUILD_SHARE of the repo changed, a base that cannot be read, another MiniSearch or another term
 * pipeline: the base is rebuilt from the catalog, with progress reported.
 *
 * NOTE: a fuzzy expansion reaches only the terms that share the query term's first character (the shards the
 * query loads). MiniSearch's own fuzzy search walks the whole tree, which would load every shard.
 */
import fs from 'node:fs';
import v8 from 'node:v8';
import MiniSearch from 'minisearch';
import { loadCatalog, readItem } from './catalog.js';
import { BASE_MAGIC, baseFile, deltaFile, deltaFileOf, DELTA_MAX, DELTA_MAX_TEXT, docParts, hasLinks, metaOf, MINISEARCH_VERSION, readDelta, ROW_LINKS, rowOf, withChanges, writeDelta, type Delta, type DeltaFile, type Row, type SearchMeta } from './search-docs.js';
import { docMaps } from './doc-maps.js';
import { currentNamesKey, recordableNamesKey } from './ids.js';
import { readStatTableFd, recordedStat, unchanged, writeStatTable, type FileStat, type StatTable } from './stat-table.js';
import { isWarm, rememberWarm, warmValue } from './warm.js';
import { readAt } from '../store/fsutil.js';
import { compareListing, fileStat, inRepoDir, sameStat, statData, type EntryFile, type StatData } from '../store/layout.js';
import { processTerm, termCounter as countTerms, tokenizeText, type Parts, type Posting } from './term-count.js';
import { CountingFailed, startCounting, type Counted, type Counting } from './count-thread.js';
import { builtFile } from '../system/built.js';

/** Past this share of the repo changed at once (and at least REBUILD_MIN files), the base is rebuilt. */
const REBUILD_SHARE = 0.1;
const REBUILD_MIN = 1000;
/** The short id of a file that is not indexed (it does not parse). */
const NONE = 0xffffffff;

// ---------------------------------------------------------------------------------------------------------
// Terms and documents (the term pipeline is term-count.ts's)

/** Set while a delta is applied for one query: terms outside these first characters are not indexed. */
let addScope: Set<string> | null = null;
/** Set during a rebuild: each token's term, computed once (a token recurs thousands of times). */
let termMemo: Map<string, string | null> | null = null;

/** The term of a token as the index takes it: processTerm, within addScope. */
function scopedTerm(t: string): string | null {
  let p: string | null | undefined = termMemo?.get(t);
  if (p === undefined) {
    p = processTerm(t);
    termMemo?.set(t, p);
  }
  return p !== null && addScope !== null && !addScope.has(p[0]!) ? null : p;
}

function indexOptions() {
  return { idField: 'path', fields: ['text'], storeFields: [] as string[], tokenize: tokenizeText, processTerm: scopedTerm, autoVacuum: false as const };
}

/** An empty index with the options of the stored one (tests compare addDoc with MiniSearch's add on it). */
export function emptyIndex(): MiniSearch<IndexDoc> {
  return new MiniSearch<IndexDoc>(indexOptions());
}

/** The first characters of a query's terms: the shards a search of it reads. */
export function scopeOf(queries: string[]): Set<string> {
  const s = new Set<string>();
  for (const q of queries) for (const t of tokenizeText(q)) s.add(processTerm(t)?.[0] ?? '');
  s.delete('');
  return s;
}

interface IndexDoc {
  path: string;
  /** Title, aliases, tags, host, url and body in one, each repeated FIELD_REPEAT times (the body once). */
  text: string;
}

/** A document as docParts gives it: the same text, each part once with its repeat count (the bulk indexer's). */
interface PartsDoc {
  path: string;
  parts: [text: string, repeat: number][];
}

// ---------------------------------------------------------------------------------------------------------
// The term tree. MiniSearch's index is a radix tree of Maps whose leaf data sits under the key '' as
// Map<fieldId, Map<docShortId, termFrequency>>. Stored, each leaf becomes an offset into one Uint32Array of
// postings per shard, and a loaded leaf is a LazyLeaf that decodes itself when first touched: a search touches a
// few dozen leaves, not the 100,000 of a large repo. The root's children (distinct first characters, as in any
// radix tree) are the shards; a LazyRoot deserialises one when it is first asked for.
const LEAF = '';
type Tree = Map<string, unknown>;

/** A Map that fills itself on first use. */
class LazyMap<K, V> extends Map<K, V> {
  private fill: ((m: Map<K, V>) => void) | undefined;

  constructor(fill: (m: Map<K, V>) => void) {
    super();
    this.fill = fill;
  }

  /** True until something touched it. */
  protected get untouched(): boolean {
    return this.fill !== undefined;
  }

  override clear() {
    this.fill = undefined;
    super.clear();
  }

  private ready(): void {
    const f = this.fill;
    if (!f) return;
    this.fill = undefined;
    f(this);
  }

  override get size(): number {
    this.ready();
    return super.size;
  }
  override get(k: K) {
    this.ready();
    return super.get(k);
  }
  override set(k: K, v: V) {
    this.ready();
    return super.set(k, v);
  }
  override has(k: K) {
    this.ready();
    return super.has(k);
  }
  override delete(k: K) {
    this.ready();
    return super.delete(k);
  }
  override forEach(cb: (v: V, k: K, m: Map<K, V>) => void, thisArg?: unknown) {
    this.ready();
    super.forEach(cb, thisArg);
  }
  override entries() {
    this.ready();
    return super.entries();
  }
  override keys() {
    this.ready();
    return super.keys();
  }
  override values() {
    this.ready();
    return super.values();
  }
  override [Symbol.iterator]() {
    this.ready();
    return super[Symbol.iterator]();
  }
}

/** A leaf of the term tree that decodes its postings on first use; after that it is an ordinary Map. */
class LazyLeaf extends LazyMap<number, Map<number, number>> {
  private readonly src: { postings: Uint32Array; offset: number };

  constructor(postings: Uint32Array, offset: number) {
    super((m) => {
      let i = offset;
      const fields = postings[i++]!;
      for (let f = 0; f < fields; f++) {
        const fieldId = postings[i++]!;
        const n = postings[i++]!;
        const docs = new Map<number, number>();
        for (let d = 0; d < n; d++, i += 2) docs.set(postings[i]!, postings[i + 1]!);
        m.set(fieldId, docs);
      }
    });
    this.src = { postings, offset };
  }

  /** The undecoded postings, while the leaf is untouched (saved back without decoding). */
  get raw(): { postings: Uint32Array; offset: number } | undefined {
    return this.untouched ? this.src : undefined;
  }
}

/** Reads `len` bytes at `at` of the stored base. */
type Reader = (at: number, len: number) => Buffer;

/** A shard not deserialised yet: where its bytes are. */
class Pending {
  constructor(
    readonly read: Reader,
    readonly at: number,
    readonly length: number,
  ) {}

  bytes(): Buffer {
    return this.read(this.at, this.length);
  }
}

/**
 * The root of the term tree: its keys are known from the start, each child is deserialised when first asked for.
 * While `scope` is set (a search), a child whose first character is outside it reads as empty, loaded or not, so a
 * query's results never depend on which shards earlier work happened to load.
 */
class LazyRoot extends Map<string, unknown> {
  scope: Set<string> | null = null;

  private load(k: string, p: Pending): Tree {
    const { tree, postings } = v8.deserialize(p.bytes()) as { tree: Tree; postings: Uint32Array };
    if (!(tree instanceof Map) || !(postings instanceof Uint32Array)) throw new Error('search index: unexpected shard shape');
    const t = unpackTree(tree, postings);
    super.set(k, t);
    return t;
  }

  override get(k: string): unknown {
    if (this.scope && !this.scope.has(k[0]!)) return new Map();
    const v = super.get(k);
    return v instanceof Pending ? this.load(k, v) : v;
  }

  /** The children as stored: a Pending for one never asked for. */
  own(): IterableIterator<[string, unknown]> {
    return super.entries();
  }

  loadAll(): void {
    for (const [k, v] of [...super.entries()]) if (v instanceof Pending) this.load(k, v);
  }

  override entries() {
    this.loadAll();
    return super.entries();
  }
  override values() {
    this.loadAll();
    return super.values();
  }
  override forEach(cb: (v: unknown, k: string, m: Map<string, unknown>) => void, thisArg?: unknown) {
    this.loadAll();
    super.forEach(cb, thisArg);
  }
  override [Symbol.iterator]() {
    this.loadAll();
    return super[Symbol.iterator]();
  }
}

/** Packs a subtree: each leaf replaced by an offset into one postings array (see LazyLeaf). */
function packTree(tree: Tree): { tree: Tree; postings: Uint32Array } {
  // Each leaf's postings as a piece: a range of the array an untouched leaf was loaded from (copied natively
  // below, not number by number), or the numbers of a decoded one.
  const pieces: (Uint32Array | number[])[] = [];
  let size = 0;
  const walk = (node: Tree): Tree => {
    const copy: Tree = new Map();
    for (const [key, value] of node) {
      if (key !== LEAF) {
        copy.set(key, walk(value as Tree));
        continue;
      }
      copy.set(LEAF, size);
      const raw = value instanceof LazyLeaf ? value.raw : undefined;
      if (raw) {
        // Untouched since loading: its postings as they are.
        let i = raw.offset;
        const fields = raw.postings[i++]!;
        let end = i;
        for (let f = 0; f < fields; f++) end += 2 + 2 * raw.postings[end + 1]!;
        pieces.push(raw.postings.subarray(raw.offset, end));
        size += end - raw.offset;
        continue;
      }
      const leaf = value as Map<number, Map<number, number>>;
      const out: number[] = [leaf.size];
      for (const [fieldId, docs] of leaf) {
        out.push(fieldId, docs.size);
        for (const [doc, freq] of docs) out.push(doc, freq);
      }
      pieces.push(out);
      size += out.length;
    }
    return copy;
  };
  const packed = walk(tree);
  const postings = new Uint32Array(size);
  let at = 0;
  for (const p of pieces) {
    postings.set(p, at);
    at += p.length;
  }
  return { tree: packed, postings };
}

function unpackTree(tree: Tree, postings: Uint32Array): Tree {
  const walk = (node: Tree): void => {
    for (const [key, value] of node) {
      if (key === LEAF) node.set(LEAF, new LazyLeaf(postings, value as number));
      else walk(value as Tree);
    }
  };
  walk(tree);
  return tree;
}

/** The shards of a root to store: an untouched one as its stored bytes, any other serialised anew. */
function shardBlobs(root: LazyRoot): { keys: [string, number][]; blobs: Buffer[] } {
  const keys: [string, number][] = [];
  const blobs: Buffer[] = [];
  for (const [k, v] of root.own()) {
    const blob = v instanceof Pending ? v.bytes() : v8.serialize(packTree(v as Tree));
    keys.push([k, blob.length]);
    blobs.push(blob);
  }
  return { keys, blobs };
}

// ---------------------------------------------------------------------------------------------------------
// NOTE: MiniSearch's private fields, set from the stored state. A MiniSearch release may rename them: the store
// is keyed by MINISEARCH_VERSION, and an instance without one of them is refused (the base is then rebuilt).
const PRIVATE = ['_index', '_documentCount', '_documentIds', '_idToShortId', '_fieldIds', '_fieldLength', '_avgFieldLength', '_nextId', '_storedFields', '_dirtCount'] as const;

interface DocState {
  documentIds: Map<number, string>;
  idToShortId: Map<string, number>;
  fieldLength: Map<number, number[]>;
  documentCount: number;
  nextId: number;
  dirtCount: number;
  avg: number;
}

function privates(ms: MiniSearch<IndexDoc>): Record<string, unknown> {
  return ms as unknown as Record<string, unknown>;
}

/** A MiniSearch over a root and a document state. */
function instance(root: LazyRoot, s: DocState): MiniSearch<IndexDoc> {
  const ms = new MiniSearch<IndexDoc>(indexOptions());
  const t = privates(ms);
  for (const k of PRIVATE) if (!(k in t)) throw new Error(`search index: MiniSearch has no field ${k}`);
  const SearchableMap = (t._index as object).constructor as new (tree: unknown, prefix: string) => unknown;
  Object.assign(t, {
    _index: new SearchableMap(root, ''),
    _documentCount: s.documentCount,
    _documentIds: s.documentIds,
    _idToShortId: s.idToShortId,
    _fieldLength: s.fieldLength,
    _avgFieldLength: [s.avg],
    _nextId: s.nextId,
    _dirtCount: s.dirtCount,
    _storedFields: new Map(),
    _fieldIds: { text: 0 },
  });
  return ms;
}

type Indexing = Record<string, unknown> & {
  addDocumentId(id: string): number;
  addFieldLength(doc: number, field: number, count: number, length: number): void;
  _index: {
    fetch(term: string, initial: () => Map<number, Map<number, number>>): Map<number, Map<number, number>>;
    set(term: string, data: Map<number, Map<number, number>>): void;
  };
};

/**
 * Registers a document as MiniSearch's `add` does (the same short id; a path given twice throws). Its terms are
 * the caller's to count (term-count.ts), and its field length the caller's to set: MiniSearch's running average
 * depends on the order of those calls, so `count` is the document count to give it.
 */
function register(t: Indexing, doc: IndexDoc | PartsDoc): { short: number; count: number; parts: Parts } {
  if ((t._idToShortId as Map<string, number>).has(doc.path)) throw new Error(`MiniSearch: duplicate ID ${doc.path}`);
  const short = t.addDocumentId(doc.path);
  return { short, count: (t._documentCount as number) - 1, parts: 'parts' in doc ? doc.parts : [[doc.text, 1]] };
}

/**
 * Adds a document exactly as MiniSearch's `add` does (the same short id, field length and postings), with one
 * walk of the term tree per distinct term instead of one per token: a rebuild indexes about 300 tokens a note,
 * most of them repeats (the title three times, the tags twice, the body's own words).
 */
export function addDoc(ms: MiniSearch<IndexDoc>, doc: IndexDoc): void {
  const t = privates(ms) as Indexing;
  const counter = countTerms(scopedTerm);
  const { short, count, parts } = register(t, doc);
  const { touched, distinct } = counter.count(short, parts);
  t.addFieldLength(short, 0, count, distinct);
  for (const { term, n } of touched) {
    const data = t._index.fetch(term, () => new Map());
    const field = data.get(0);
    if (field) field.set(short, n);
    else data.set(0, new Map([[short, n]]));
  }
}

/**
 * Documents from which a rebuild counts on two threads (fewer are counted here before a worker would have
 * started), and a batch offered to the worker.
 */
const WORKER_MIN = 2000;
const BATCH = 64;

export interface BulkIndexer {
  /**
   * Says how many documents are coming: from WORKER_MIN on (and with a worker file) the counting worker starts
   * now, so that its start-up overlaps the reading of the first entries.
   */
  expect(count: number): void;
  add(doc: IndexDoc | PartsDoc): void;
  /** Puts the counted terms in the tree; says how many documents the worker counted. Rejects with CountingFailed. */
  finish(): Promise<{ counted: number }>;
  /** Stops the worker, if any (idempotent; for a build that ends before finish). */
  close(): void;
}

/**
 * Indexes many documents into an index whose tree holds none of their terms (a rebuild), with what addDoc one by
 * one gives (the same short ids, field lengths and postings, the terms in the same order). `add` collects each
 * term's postings in an array (one counter for all the documents, so each distinct token is looked up once and
 * its term made once); `finish` packs them into one array and puts each term in the tree once, as a leaf that
 * decodes itself on first use, as a stored shard's leaves do. A rebuild then walks the tree once per term, not
 * once per document and term, and makes no Map per posting list that nobody searches.
 * With `worker` (the built counting worker), once `expect` announced WORKER_MIN documents or more, or `workerAfter`
 * documents came, batches are offered to a second thread (count-thread.ts), and `finish` merges its counts with
 * this thread's: each term's postings by document, the terms in the order they were first seen, the field
 * lengths in document order; the index is the one counting everything here gives.
 */
export function bulkIndexer(ms: MiniSearch<IndexDoc>, options: { worker?: string; workerAfter?: number } = {}): BulkIndexer {
  if (rootOf(ms).size !== 0) throw new Error('bulk indexing: the index has terms already');
  const t = privates(ms) as Indexing;
  const counter = countTerms(scopedTerm);
  const docs: { short: number; count: number; length: number }[] = [];
  const workerAfter = options.workerAfter ?? WORKER_MIN;
  let helper: Counting | null | undefined = options.worker && addScope === null ? undefined : null;
  const start = (): void => {
    if (helper === undefined) helper = startCounting(options.worker!) ?? null;
  };
  let batch: { shorts: number[]; parts: Parts[]; at: number[] } = { shorts: [], parts: [], at: [] };
  const countHere = (b: typeof batch): void => {
    for (let k = 0; k < b.shorts.length; k++) docs[b.at[k]!]!.length = counter.add(b.shorts[k]!, b.parts[k]!);
  };
  return {
    expect(count) {
      if (count >= WORKER_MIN) start();
    },
    add(doc) {
      const { short, count, parts } = register(t, doc);
      docs.push({ short, count, length: -1 });
      if (docs.length > workerAfter) start();
      if (!helper) {
        docs[docs.length - 1]!.length = counter.add(short, parts);
        return;
      }
      batch.shorts.push(short);
      batch.parts.push(parts);
      batch.at.push(docs.length - 1);
      if (batch.shorts.length < BATCH) return;
      if (!helper.offer(batch.shorts, batch.parts)) countHere(batch);
      batch = { shorts: [], parts: [], at: [] };
    },
    async finish() {
      countHere(batch);
      batch = { shorts: [], parts: [], at: [] };
      const counted = helper ? await helper.finish() : null;
      if (counted) {
        const at = new Map(docs.map((d, i) => [d.short, i]));
        counted.docs.forEach((short, k) => (docs[at.get(short)!]!.length = counted.lengths[k]!));
      }
      // MiniSearch's running average of field lengths, in document order, as one count gives it
      for (const d of docs) t.addFieldLength(d.short, 0, d.count, d.length);
      pack(t, counter.postings, counted);
      return { counted: counted?.docs.length ?? 0 };
    },
    close() {
      helper?.close();
    },
  };
}

/**
 * Puts the counted terms in the tree, each as a leaf over one postings array (packTree's layout: one field (0),
 * its posting count, then (document, frequency) pairs): this thread's `postings` and a worker's `counted`,
 * merged. Each side lists its terms in first-seen order and each term's pairs by document, and a document is
 * counted on one side only, so one walk of both gives the terms in the order one count would have seen them.
 */
function pack(t: Indexing, postings: Map<string, Posting>, counted: Counted | null): void {
  const here = [...postings.values()];
  const terms = counted?.terms ?? [];
  const partner = new Int32Array(here.length).fill(-1); // the worker's index of a term of this thread's
  const merged = new Uint8Array(terms.length); // a worker's term already put in with this thread's
  const index = new Map(here.map((p, i) => [p, i]));
  const mine = terms.map((term) => {
    const p = postings.get(term);
    return p === undefined ? -1 : index.get(p)!;
  });
  let size = 0;
  for (const p of here) size += 3 + p.list.length;
  for (let j = 0; j < terms.length; j++) {
    const i = mine[j]!;
    if (i >= 0) partner[i] = j;
    size += (i >= 0 ? 0 : 3) + (counted!.offsets[j + 1]! - counted!.offsets[j]!);
  }
  const packed = new Uint32Array(size);
  let at = 0;
  const put = (term: string, list: number[] | undefined, j: number): void => {
    const a = list ?? [];
    const b = j < 0 ? undefined : counted!.lists.subarray(counted!.offsets[j]!, counted!.offsets[j + 1]!);
    const n = a.length + (b?.length ?? 0);
    packed[at] = 1;
    packed[at + 1] = 0;
    packed[at + 2] = n / 2;
    let o = at + 3;
    if (!b) packed.set(a, o);
    else if (a.length === 0) packed.set(b, o);
    else {
      let x = 0;
      let y = 0;
      while (x < a.length || y < b.length) {
        if (y >= b.length || (x < a.length && a[x]! < b[y]!)) {
          packed[o++] = a[x]!;
          packed[o++] = a[x + 1]!;
          x += 2;
        } else {
          packed[o++] = b[y]!;
          packed[o++] = b[y + 1]!;
          y += 2;
        }
      }
    }
    t._index.set(term, new LazyLeaf(packed, at));
    at += 3 + n;
  };
  const hereFirst = (i: number, j: number): boolean => here[i]!.first < counted!.first[j]! || (here[i]!.first === counted!.first[j]! && here[i]!.rank < counted!.rank[j]!);
  let i = 0;
  let j = 0;
  while (i < here.length || j < terms.length) {
    if (j >= terms.length || (i < here.length && hereFirst(i, j))) {
      const p = here[i]!;
      if (partner[i] !== -2) {
        put(p.term, p.list, partner[i]!);
        if (partner[i]! >= 0) merged[partner[i]!] = 1;
      }
      i++;
    } else {
      if (!merged[j]) {
        const mi = mine[j]!;
        put(terms[j]!, mi >= 0 ? here[mi]!.list : undefined, j);
        if (mi >= 0) partner[mi] = -2;
      }
      j++;
    }
  }
  postings.clear();
}

/** The term tree root of an instance (its SearchableMap's tree). */
function rootOf(ms: MiniSearch<IndexDoc>): LazyRoot {
  return (privates(ms)._index as { _tree: LazyRoot })._tree;
}

// ---------------------------------------------------------------------------------------------------------
// The files

interface Header {
  namesKey: string;
  /** Names this base; a delta applies to the base it names. */
  base: string;
  minisearch: string;
  documentCount: number;
  nextId: number;
  dirtCount: number;
  avg: number;
  metaBytes: number;
  /** Table positions of the files with links. */
  linked: number[];
  /** Every id a link points at, with the path of the entry that has it (the first by path), when one does. */
  targets: [string, string][];
  shards: [string, number][];
}

interface Base {
  header: Header;
  table: StatTable<Header>;
  /** Reads the file the table came from (kept open: the shards are read from it as they are asked for). */
  read: Reader;
  short: Uint32Array;
  len: Uint32Array;
  metaEnd: Uint32Array;
  /** The rows of the servable files, one after the other. */
  meta: Buffer;
  /** Where the shards start. */
  shardsAt: number;
}

function u32(bytes: Buffer, at: number, count: number): Uint32Array {
  const slice = bytes.subarray(at, at + count * 4);
  return slice.byteOffset % 4 === 0 ? new Uint32Array(slice.buffer, slice.byteOffset, count) : new Uint32Array(Uint8Array.from(slice).buffer);
}

/** Closes the file of a base nobody holds any more (a long-lived process opens many over its life). */
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    fs.closeSync(fd);
  } catch {
    /* already closed */
  }
});

function readBase(dir: string): Base | undefined {
  let fd: number;
  try {
    fd = fs.openSync(baseFile(dir), 'r');
  } catch {
    return undefined;
  }
  const table = readStatTableFd<Header>(fd, BASE_MAGIC, (h) => h?.minisearch === MINISEARCH_VERSION && Array.isArray(h.shards) && Array.isArray(h.targets));
  if (!table) {
    fs.closeSync(fd);
    return undefined;
  }
  const read: Reader = (at, len) => {
    const b = readAt(fd, at, len);
    if (b.length !== len) throw new Error('search index: the stored base is cut short');
    return b;
  };
  const n = table.paths.length;
  const docs = read(table.tailAt, 12 * n + table.header.metaBytes);
  const base: Base = { header: table.header, table, read, short: u32(docs, 0, n), len: u32(docs, 4 * n, n), metaEnd: u32(docs, 8 * n, n), meta: docs.subarray(12 * n), shardsAt: table.tailAt + 12 * n + table.header.metaBytes };
  closer.register(read, fd);
  return base;
}

/** One file of a base about to be written. */
interface Stored extends FileStat {
  short: number;
  len: number;
  row: string | null;
}

function writeBase(dir: string, namesKey: string, files: Stored[], ms: MiniSearch<IndexDoc>): void {
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const n = files.length;
  const short = new Uint32Array(n);
  const len = new Uint32Array(n);
  const metaEnd = new Uint32Array(n);
  const rows: Buffer[] = [];
  const linked: number[] = [];
  let end = 0;
  files.forEach((f, i) => {
    short[i] = f.short;
    len[i] = f.len;
    if (f.row !== null) {
      const b = Buffer.from(f.row, 'utf8');
      rows.push(b);
      end += b.length;
      if (hasLinks(f.row)) linked.push(i);
    }
    metaEnd[i] = end;
  });
  const wanted = new Set<string>();
  for (const i of linked) for (const [, to] of (JSON.parse(files[i]!.row!) as Row)[ROW_LINKS]) wanted.add(to);
  const targets = new Map<string, string>();
  if (wanted.size > 0) {
    for (const f of files) {
      const id = f.row === null ? undefined : (JSON.parse(f.row) as Row)[0];
      if (id !== undefined && wanted.has(id) && !targets.has(id)) targets.set(id, f.path);
    }
  }
  const { keys, blobs } = shardBlobs(rootOf(ms));
  const t = privates(ms);
  const header: Header = {
    namesKey,
    base: `${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2)}`,
    minisearch: MINISEARCH_VERSION,
    documentCount: t._documentCount as number,
    nextId: t._nextId as number,
    dirtCount: t._dirtCount as number,
    avg: (t._avgFieldLength as number[])[0] ?? 0,
    metaBytes: end,
    linked,
    targets: [...targets],
    shards: keys,
  };
  const arrays = [short, len, metaEnd].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  writeStatTable(baseFile(dir), BASE_MAGIC, header, files, [...arrays, ...rows, ...blobs]);
  fs.rmSync(deltaFile(dir), { force: true });
}

// ---------------------------------------------------------------------------------------------------------
// The store

/** A search index in memory, with what search shows of each file. */
export interface SearchStore {
  dir: string;
  index: MiniSearch<IndexDoc>;
  /** How it was obtained (benchmarks and tests): served as stored, with a delta written, or rebuilt. */
  how: 'cached' | 'updated' | 'built';
  /** What search shows of a servable file (undefined for any other path). */
  meta(path: string): SearchMeta | undefined;
  /** The servable entry with an id (for an id claimed twice, the first file by path). */
  byId(id: string): SearchMeta | undefined;
  /** Every servable entry with a link. */
  linkers(): SearchMeta[];
  /** The files that are not indexed because they do not read as entries (no row), by path. */
  unreadable(): string[];
  /** Runs a search with the term tree restricted to the shards of `queries` (see LazyRoot). */
  scoped<T>(queries: string[], run: () => T): T;
}

/**
 * A store over rows found by path. `knownPath` answers "which path has this id" for the ids it knows (link
 * targets), undefined otherwise; then every row is read once to find it.
 */
function storeOf(dir: string, index: MiniSearch<IndexDoc>, how: SearchStore['how'], rowOfPath: (p: string) => string | null | undefined, linkerPaths: () => string[], allPaths: () => string[], unreadable: () => string[], knownPath: (id: string) => string | undefined = () => undefined): SearchStore {
  const metas = new Map<string, SearchMeta | undefined>();
  const meta = (p: string): SearchMeta | undefined => {
    if (metas.has(p)) return metas.get(p);
    const row = rowOfPath(p);
    const m = row ? metaOf(p, row) : undefined;
    metas.set(p, m);
    return m;
  };
  let ids: Map<string, string> | undefined;
  return {
    dir,
    index,
    how,
    meta,
    byId(id) {
      const known = ids ? undefined : knownPath(id);
      if (known !== undefined) return meta(known);
      if (!ids) {
        ids = new Map();
        for (const p of allPaths().sort()) {
          const row = rowOfPath(p);
          const rid = row ? (JSON.parse(row) as Row)[0] : undefined;
          if (rid !== undefined && !ids.has(rid)) ids.set(rid, p);
        }
      }
      const p = ids.get(id);
      return p === undefined ? undefined : meta(p);
    },
    linkers: () => linkerPaths().map(meta).filter((m): m is SearchMeta => !!m),
    unreadable,
    scoped(queries, run) {
      const root = rootOf(index);
      root.scope = scopeOf(queries);
      try {
        return run();
      } finally {
        root.scope = null;
      }
    },
  };
}

/** A store over a base and a delta. `scope`: the first characters the delta's terms are indexed under (null: all). */
function openBase(dir: string, b: Base, delta: Delta | undefined, scope: Set<string> | null, how: SearchStore['how']): SearchStore {
  const { table, short, len, header } = b;
  const root = new LazyRoot();
  let at = b.shardsAt;
  for (const [k, length] of header.shards) {
    root.set(k, new Pending(b.read, at, length));
    at += length;
  }
  const paths = table.paths;
  const { documentIds, idToShortId, fieldLength, indexOf } = docMaps({ paths, short, len, none: NONE });
  const index = instance(root, { documentIds, idToShortId, fieldLength, documentCount: header.documentCount, nextId: header.nextId, dirtCount: header.dirtCount, avg: header.avg });
  const changed = changesOf(delta);
  if (delta) {
    for (const p of changed.keys()) if (idToShortId.has(p)) index.discard(p);
    addScope = scope;
    try {
      for (const f of delta.files) if (f.row !== null) addDoc(index, { path: f.path, text: f.text ?? '' });
    } finally {
      addScope = null;
    }
  }
  const rowOfPath = (p: string): string | null | undefined => {
    if (changed.has(p)) return changed.get(p)?.row;
    const i = indexOf(p);
    return i < 0 ? undefined : rowOfStored(b, i);
  };
  const linkerPaths = (): string[] => [
    ...header.linked.map((i) => paths[i]!).filter((p) => !changed.has(p)),
    ...(delta?.files ?? []).filter((f) => hasLinks(f.row)).map((f) => f.path),
  ];
  const allPaths = (): string[] => [...paths.filter((p) => !changed.has(p)), ...(delta?.files ?? []).map((f) => f.path)];
  // A file with no row did not parse: known from the offsets of the rows, without reading a row.
  const unreadable = (): string[] => [
    ...paths.filter((p, i) => b.metaEnd[i] === (i === 0 ? 0 : b.metaEnd[i - 1]) && !changed.has(p)),
    ...(delta?.files ?? []).filter((f) => f.row === null).map((f) => f.path),
  ].sort();
  // A link target of the base, unless its file changed since; a file of the delta claiming the id comes first
  // when its path does.
  const targets = new Map(header.targets);
  const knownPath = (id: string): string | undefined => {
    let p = targets.get(id);
    if (p === undefined || changed.has(p)) return undefined;
    for (const f of delta?.files ?? []) if (f.row !== null && f.path < p && (JSON.parse(f.row) as Row)[0] === id) p = f.path;
    return p;
  };
  return storeOf(dir, index, how, rowOfPath, linkerPaths, allPaths, unreadable, knownPath);
}

/** Progress of a rebuild: the phase, and how far it got. */
export type BuildProgress = (phase: 'reading entries' | 'indexing', done: number, total: number) => void;

/** The counting worker of a rebuild (count-thread.ts): the built file, when this code runs from a build. */
const COUNT_WORKER = 'workers/count.js';

/**
 * Rebuilds the base from the catalog and returns its store. The terms are counted on two threads where the build
 * has its counting worker; if that worker fails, the rebuild starts again on this one thread (the catalog is
 * current by then, so it reads each entry's body again and parses nothing).
 */
async function build(dir: string, onProgress?: BuildProgress, worker: string | null = builtFile(COUNT_WORKER) ?? null): Promise<SearchStore> {
  const namesKey = recordableNamesKey(dir); // before the catalog lists the folders: see writeIdMap
  // Over a LazyRoot from the start, so that searches of a fresh build see the shards a stored one shows.
  const index = instance(new LazyRoot(), { documentIds: new Map(), idToShortId: new Map(), fieldLength: new Map(), documentCount: 0, nextId: 0, dirtCount: 0, avg: 0 });
  const bulk = bulkIndexer(index, worker ? { worker } : {});
  // The files the catalog parses now are indexed from the text it read; the others are read here.
  const added = new Set<string>();
  termMemo = new Map();
  let catalog;
  let workerFailed = false;
  try {
    catalog = await loadCatalog(dir, {
      ...(onProgress ? { onProgress: (d: number, t: number) => onProgress('reading entries', d, t) } : {}),
      onParse: (count) => bulk.expect(count),
      onText: (item, text) => {
        bulk.add({ path: item.path, parts: docParts(dir, item.entry!, text) });
        added.add(item.path);
      },
    });
    const rest = catalog.items.filter((i) => i.entry && !added.has(i.path));
    bulk.expect(rest.length);
    rest.forEach((item, n) => {
      bulk.add({ path: item.path, parts: docParts(dir, item.entry!) });
      if (n % 250 === 0 || n === rest.length - 1) onProgress?.('indexing', n + 1, rest.length);
    });
    await bulk.finish();
  } catch (err) {
    if (!(err instanceof CountingFailed && worker)) throw err;
    workerFailed = true;
  } finally {
    termMemo = null;
    bulk.close();
  }
  if (workerFailed || !catalog) return build(dir, onProgress, null);
  const rows = new Map<string, string>();
  for (const item of catalog.items) if (item.entry) rows.set(item.path, rowOf(item.entry));
  const files = catalog.items.map((i) => stored(index, i.path, i, rows.get(i.path) ?? null));
  try {
    writeBase(dir, namesKey, files, index);
  } catch {
    // a read-only repo still searches; it rebuilds next time
  }
  const linkers = files.filter((f) => hasLinks(f.row)).map((f) => f.path);
  const unreadable = catalog.items.filter((i) => !i.entry).map((i) => i.path);
  return storeOf(dir, index, 'built', (p) => rows.get(p), () => linkers, () => [...rows.keys()], () => unreadable);
}

/** A delta's files by path: each changed file, or null for a path gone. */
function changesOf(delta: Delta | undefined): Map<string, DeltaFile | null> {
  const changed = new Map<string, DeltaFile | null>();
  for (const p of delta?.gone ?? []) changed.set(p, null);
  for (const f of delta?.files ?? []) changed.set(f.path, f);
  return changed;
}

/** A file of a base about to be written: its stat data, row, and its document in `ms` (if indexed). */
function stored(ms: MiniSearch<IndexDoc>, path: string, stat: StatData, row: string | null): Stored {
  const t = privates(ms);
  const s = (t._idToShortId as Map<string, number>).get(path);
  return { path, ...statData(stat), short: s ?? NONE, len: s === undefined ? 0 : (t._fieldLength as Map<number, number[]>).get(s)![0]!, row };
}

/**
 * The files that differ from what `b` and `delta` record: changed or new (with their stat data now) and gone.
 * Under the recorded names key the recorded files are stat'ed; under another one the folders are listed.
 */
function differences(dir: string, b: Base, delta: Delta | undefined, namesKey: string): { changed: EntryFile[]; gone: string[] } {
  const changed: EntryFile[] = [];
  const gone: string[] = [];
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const inDelta = changesOf(delta);
  const { table } = b;
  const now = (p: string): EntryFile | undefined => {
    const st = fileStat(base + p);
    return st && { path: p, id: '', ...st };
  };
  // Under another names key the folders are listed: a recorded file not listed is gone, a listed one not
  // recorded is new. Either way every recorded file is stat'ed.
  const listing = namesKey === (delta?.namesKey ?? b.header.namesKey) ? undefined : compareListing(dir, table.paths);
  const added = new Set(listing?.listed.filter((_, k) => listing.was[k]! < 0));
  const check = (p: string, s: StatData | undefined): void => {
    const f = now(p);
    if (!f) gone.push(p);
    else if (!s || !sameStat(f, s)) changed.push(f);
  };
  // whether each path of the delta that the table records is listed now
  const listedInDelta = new Map<string, boolean>();
  inRepoDir(dir, (at) => {
    for (let i = 0; i < table.paths.length; i++) {
      const p = table.paths[i]!;
      if (inDelta.size > 0 && inDelta.has(p)) listedInDelta.set(p, !listing?.gone[i]);
      else if (listing?.gone[i]) gone.push(p);
      else if (!unchanged(at, table, i)) check(p, undefined);
    }
  });
  for (const [p, f] of inDelta) {
    if (listing && !(listedInDelta.get(p) ?? added.delete(p))) {
      if (f) gone.push(p);
    } else if (f || listing) check(p, f?.stat);
  }
  for (const p of added) check(p, undefined);
  return { changed, gone };
}

/** Options of openSearchStore. */
export interface OpenOptions {
  /**
   * The queries about to be run: a delta is then applied for their shards only. Absent, or in a process that
   * keeps the index for other queries (warm.ts), it is applied whole.
   */
  queries?: string[];
  onProgress?: BuildProgress;
  /** Rebuild the base whatever is stored (after the stored one proved unreadable mid-search). */
  rebuild?: boolean;
}

/**
 * The search index of a data repo, proved current (see the module contract): kept in memory by a long-lived
 * process while nothing changed, else the stored base and delta, brought up to date first when files changed.
 */
export async function openSearchStore(dir: string, options: OpenOptions = {}): Promise<SearchStore> {
  const kept = options.rebuild ? undefined : await warmValue<SearchStore>(dir, 'search');
  if (kept) return { ...kept, how: 'cached' };
  const whole = !options.queries || isWarm(dir);
  const store = options.rebuild ? await build(dir, options.onProgress) : await openFresh(dir, whole ? null : scopeOf(options.queries!), options.onProgress);
  if (whole) rememberWarm(dir, 'search', store);
  return store;
}

async function openFresh(dir: string, scope: Set<string> | null, onProgress?: BuildProgress): Promise<SearchStore> {
  const b = readBase(dir);
  if (!b) return build(dir, onProgress);
  let delta = readDelta(dir, b.header.base);
  const recorded = delta?.namesKey ?? b.header.namesKey;
  const namesKey = currentNamesKey(dir);
  // NOTE: both keys are taken before the folders are listed (see writeIdMap): a file made meanwhile moves them.
  const recordKey = namesKey === recorded ? recorded : recordableNamesKey(dir);
  const { changed, gone } = differences(dir, b, delta, namesKey);
  if (changed.length === 0 && gone.length === 0 && recordKey === recorded) return tryOpen(dir, b, delta, scope, 'cached', onProgress);
  const docs = b.header.documentCount;
  if (changed.length + gone.length > Math.max(REBUILD_MIN, docs * REBUILD_SHARE)) return build(dir, onProgress);
  const parse = changed.length > 0 ? (await import('../../core/format/entry.js')).parseEntry : undefined;
  const read = changed.map((f) => {
    let text: string | undefined;
    const item = readItem(dir, f, parse!, (_, t) => (text = t));
    return deltaFileOf(dir, f.path, statData(f), item.entry, text);
  });
  delta = withChanges(delta, b.header.base, recordKey, read, gone);
  const text = delta.files.reduce((n, f) => n + (f.text?.length ?? 0), 0);
  if (delta.files.length > DELTA_MAX || text > DELTA_MAX_TEXT) return fold(dir, b, delta, onProgress);
  try {
    writeDelta(dir, delta);
  } catch {
    // a read-only repo still searches; it applies the changes again next time
  }
  return tryOpen(dir, b, delta, scope, changed.length + gone.length > 0 ? 'updated' : 'cached', onProgress);
}

/** openBase, or a rebuild when the stored state does not fit this MiniSearch. */
async function tryOpen(dir: string, b: Base, delta: Delta | undefined, scope: Set<string> | null, how: SearchStore['how'], onProgress?: BuildProgress): Promise<SearchStore> {
  try {
    return openBase(dir, b, delta, scope, how);
  } catch {
    return build(dir, onProgress);
  }
}

/** Folds a delta into a new base: the shards its documents touch are rewritten, the others copied as stored. */
async function fold(dir: string, b: Base, delta: Delta, onProgress?: BuildProgress): Promise<SearchStore> {
  let store: SearchStore;
  try {
    store = openBase(dir, b, delta, null, 'updated');
  } catch {
    return build(dir, onProgress);
  }
  const t = privates(store.index);
  const dirt = t._dirtCount as number;
  if (dirt > Math.max(200, (t._documentCount as number) / 4)) return build(dir, onProgress); // dead terms: start over
  const { table } = b;
  const changed = changesOf(delta);
  const files: Stored[] = [];
  for (let i = 0; i < table.paths.length; i++) {
    const p = table.paths[i]!;
    if (!changed.has(p)) files.push(stored(store.index, p, recordedStat(table, i), rowOfStored(b, i)));
  }
  for (const f of delta.files) files.push(stored(store.index, f.path, f.stat, f.row));
  try {
    writeBase(dir, delta.namesKey, files, store.index);
  } catch {
    // derived state: the delta stays too big, and the next search folds it again
  }
  return store;
}

function rowOfStored(b: Base, i: number): string | null {
  const from = i === 0 ? 0 : b.metaEnd[i - 1]!;
  return b.metaEnd[i] === from ? null : b.meta.toString('utf8', from, b.metaEnd[i]!);
}
