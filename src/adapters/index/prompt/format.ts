/**
 * Contract: the prompt-side index file (spec/hooks.md, "Prompt index"), `<data>/.git/git-kb/prompt/index.v1`.
 * One file: a magic, a JSON header (freshness key, kernel and activity lists, stat windows, section offsets),
 * then binary sections read by offset, so a prompt reads the header and only the keyword buckets of its own
 * keywords, and the id and title of the entries that hit. Encoding is a pure function of the model; decoding
 * never trusts the file (a short, foreign or corrupt file reads as "no index").
 */
import fs from 'node:fs';
import { fnv1a } from '../../../core/text/fnv.js';
import { openRegular } from '../../system/read-bounded.js';
import { dayOf, stampFactor, type DecayStamp } from '../../../core/decay.js';
import { linePath, needsEscape, pathLine } from '../../../core/text/path-line.js';
import { TERMS_VERSION } from '../../../core/text/terms.js';
import type { HostExtras } from './extras-hosts.js';
import type { SessionExtras } from './extras-sessions.js';
import type { PageParts } from '../../../core/format/sections.js';

const MAGIC = 'GKBPIX01';
/** The format's version and the terms' (core/text/terms.ts): an index of another version of either reads as none. */
export const INDEX_VERSION = `11.${TERMS_VERSION}`;

/** Field bits of a posting: which part of the entry the keyword came from. */
export const FIELD_TITLE = 1;
export const FIELD_TAG = 2;
export const FIELD_ALIAS = 4;

/** One entry the signals can point to. */
export interface IndexDoc {
  id: string;
  title: string;
  /** keyword → field bits (0: the body only). */
  terms: Map<string, number>;
  /**
   * keyword → its BM25F weighted term frequency in the entry (summed over fields, each count times its field
   * weight over the field's length norm; see build.ts); 1 when absent.
   */
  weights?: Map<string, number>;
  /** Its decay stamp (core/decay.ts); absent: it does not decay. */
  decay?: DecayStamp;
  /**
   * A page with sections, part by part (core/format/sections.ts pageParts): the keyword signal may judge such a
   * page by its best part (spec/hooks.md, "Keyword"). Absent for a page of one section.
   */
  parts?: PageParts;
}

/**
 * The decay an index was built with (spec/memory.md, "Decay"): the floor, the kb.json settings it came from (as
 * JSON: an update compares them, update.ts) and how many of the index file's documents decay (0: the ages
 * section is never read).
 */
export interface IndexDecay {
  floor: number;
  settings: string;
  decaying: number;
}

/**
 * The postings of one keyword, in document order and one per entry (encodeIndex writes them so): for entry i of
 * `count`, `cells[2 * i]` is `doc << 3 | fields` and `weights[2 * i + 1]` its weighted term frequency (two views
 * of one buffer; the other cells of each view are the other half of the pair).
 */
export interface TermPostings {
  count: number;
  cells: Uint32Array;
  weights: Float32Array;
}

/** A `rules:` pattern of a kernel entry (already validated by the entry parser), for the prose gate. */
export interface KernelRule {
  pattern: string;
  message: string;
  flags?: string;
}

/** A kernel entry with its whole body and rules: the prompt hook shows the body, the prose gate applies both. */
export interface IndexKernel {
  id: string;
  title: string;
  path: string;
  /** Stat signature of the file (see statSig). */
  sig: string;
  body: string;
  rules: KernelRule[];
}

/** Data of the signals that the index does not otherwise carry, computed at build time (extras-*.ts). */
export interface IndexExtras {
  host?: HostExtras;
  sessions?: SessionExtras;
}

/** Everything an index file holds, before encoding. */
export interface IndexModel {
  key: string;
  generation: string;
  /** Directories (relative to the data repo) whose stat data is part of the key. */
  dirs: string[];
  docs: IndexDoc[];
  kernel: IndexKernel[];
  /** activity → [id, title, newest key (updated, else created)] of each entry, newest first. */
  activity: Record<string, ActivityItem[]>;
  /** Every entry file with its stat signature and what it is, for the rotating window and for updates (update.ts); the newest few also go in `hot`. */
  files: IndexFile[];
  hot: [string, string][];
  extras: IndexExtras;
  built: string;
  /** The average length of each field over the indexed entries (the BM25F norms of build.ts), for updates. */
  avg?: Record<string, number>;
  /** The decay settings the stamps were made with (floor and settings of IndexDecay); absent: none. */
  decay?: Omit<IndexDecay, 'decaying'>;
}

/** An entry of an activity list: id, title, and the key it is sorted by (newest first, then by id). */
export type ActivityItem = [id: string, title: string, newest: string];

/**
 * What a file of the index is, for an update from what changed (update.ts): `p` an entry the index points to,
 * `k` a kernel entry, `h` one about a host (or hidden with its host), `s` a session summary (`S` when the
 * recent-sessions side file counts it), `d` a servable entry whose id another file serves, `-` anything else.
 */
export type FileKind = 'p' | 'k' | 'h' | 's' | 'S' | 'd' | '-';

/** A file of the index: path, stat signature, kind, and its entry's id ('' for none). */
export type IndexFile = [path: string, sig: string, kind: FileKind, id: string];

/** The decoded header. */
export interface IndexHeader {
  v: string;
  key: string;
  generation: string;
  built: string;
  dirs: string[];
  n: number;
  nBuckets: number;
  sections: Record<'buckets' | 'postings' | 'docs' | 'docText' | 'kernel' | 'ages' | 'parts' | 'partText', [number, number]>;
  kernel: { id: string; title: string; path: string; sig: string; rules: KernelRule[]; off: number; len: number }[];
  activity: Record<string, ActivityItem[]>;
  hot: [string, string][];
  /** [offset, length, file count] of each window of the stat list. */
  windows: [number, number, number][];
  fileCount: number;
  extras: IndexExtras;
  avg?: Record<string, number>;
  decay: IndexDecay;
  /** Entries counted for the keyword IDF when it differs from `n` (an index with a delta: delta.ts). */
  live?: number;
  /** Set when the windows' paths are escaped (pathLine): only then are they unescaped. */
  escaped?: true;
}

/** Files checked per prompt by the rotating window (spec/hooks.md, "Freshness"). */
export const WINDOW_SIZE = 64;
/** The most recently modified entry files, checked on every prompt. */
export const HOT_SIZE = 16;

function bucketCount(terms: number): number {
  let n = 16;
  while (n < terms) n *= 2;
  return n;
}

/** A document's title as an index keeps it: tabs and line breaks as one space. */
export function docTitle(title: string): string {
  return title.replace(/[\t\n\r]+/g, ' ');
}

/** Encodes an index model into the bytes of an index file. */
export function encodeIndex(model: IndexModel): Buffer {
  // Postings: keyword → list of (doc << 3 | fields, weighted term frequency).
  const postings = new Map<string, number[]>();
  model.docs.forEach((doc, i) => {
    for (const [term, fields] of doc.terms) {
      const list = postings.get(term);
      const v = i * 8 + fields;
      const w = doc.weights?.get(term) ?? 1;
      if (list) list.push(v, w);
      else postings.set(term, [v, w]);
    }
  });
  const nBuckets = bucketCount(postings.size);
  const buckets: Buffer[][] = Array.from({ length: nBuckets }, () => []);
  for (const [term, list] of postings) {
    const t = Buffer.from(term, 'utf8');
    if (t.length > 255) continue;
    const rec = Buffer.alloc(1 + t.length + 4 + 4 * list.length);
    rec.writeUInt8(t.length, 0);
    t.copy(rec, 1);
    rec.writeUInt32LE(list.length / 2, 1 + t.length);
    for (let j = 0; j < list.length; j += 2) {
      rec.writeUInt32LE(list[j]!, 1 + t.length + 4 + 4 * j);
      rec.writeFloatLE(list[j + 1]!, 1 + t.length + 8 + 4 * j);
    }
    buckets[fnv1a(term) & (nBuckets - 1)]!.push(rec);
  }
  const bucketDir = Buffer.alloc(nBuckets * 8);
  const bucketBodies: Buffer[] = [];
  let pos = 0;
  buckets.forEach((recs, b) => {
    const body = Buffer.concat(recs);
    bucketDir.writeUInt32LE(pos, b * 8);
    bucketDir.writeUInt32LE(body.length, b * 8 + 4);
    bucketBodies.push(body);
    pos += body.length;
  });
  const postingsBuf = Buffer.concat(bucketBodies);

  const docOffsets = Buffer.alloc((model.docs.length + 1) * 4);
  const docTexts: Buffer[] = [];
  let dpos = 0;
  model.docs.forEach((doc, i) => {
    const t = Buffer.from(`${doc.id}\t${docTitle(doc.title)}\t${doc.terms.size}`, 'utf8');
    docOffsets.writeUInt32LE(dpos, i * 4);
    docTexts.push(t);
    dpos += t.length;
  });
  docOffsets.writeUInt32LE(dpos, model.docs.length * 4);
  const docTextBuf = Buffer.concat(docTexts);

  // Parts of the pages with sections: per document, the offset of its `sizes;keyword:mask ...` record (empty for a
  // page of one section), read only for a page a prompt could point to (readParts).
  const partOffsets = Buffer.alloc((model.docs.length + 1) * 4);
  const partTexts: Buffer[] = [];
  let ppos = 0;
  model.docs.forEach((doc, i) => {
    partOffsets.writeUInt32LE(ppos, i * 4);
    if (!doc.parts) return;
    const t = Buffer.from(partsText(doc.parts), 'utf8');
    partTexts.push(t);
    ppos += t.length;
  });
  partOffsets.writeUInt32LE(ppos, model.docs.length * 4);
  const partTextBuf = Buffer.concat(partTexts);

  // Ages: per document, its decay stamp as two u16 (day, half-life; 0, 0: it does not decay).
  const ages = Buffer.alloc(model.docs.length * 4);
  let decaying = 0;
  model.docs.forEach((doc, i) => {
    const [day, half] = doc.decay ?? [0, 0];
    ages.writeUInt16LE(day, i * 4);
    ages.writeUInt16LE(half, i * 4 + 2);
    if (half > 0) decaying++;
  });

  const kernelBodies: Buffer[] = [];
  const kernelHeader: IndexHeader['kernel'] = [];
  let kpos = 0;
  for (const k of model.kernel) {
    const b = Buffer.from(k.body, 'utf8');
    kernelHeader.push({ id: k.id, title: k.title, path: k.path, sig: k.sig, rules: k.rules, off: kpos, len: b.length });
    kernelBodies.push(b);
    kpos += b.length;
  }
  const kernelBuf = Buffer.concat(kernelBodies);

  const windowBufs: Buffer[] = [];
  const escaped = model.files.some(([p]) => needsEscape(p));
  for (let i = 0; i < model.files.length; i += WINDOW_SIZE) {
    const slice = model.files.slice(i, i + WINDOW_SIZE);
    windowBufs.push(Buffer.from(slice.map(([p, s, k, id]) => `${escaped ? pathLine(p) : p}\t${s}\t${k}\t${id}\n`).join(''), 'utf8'));
  }

  const bodies = [bucketDir, postingsBuf, docOffsets, docTextBuf, kernelBuf, ages, partOffsets, partTextBuf, ...windowBufs];
  const headerFor = (base: number): IndexHeader => {
    let off = base;
    const at = (len: number): [number, number] => {
      const r: [number, number] = [off, len];
      off += len;
      return r;
    };
    const sections = {
      buckets: at(bucketDir.length),
      postings: at(postingsBuf.length),
      docs: at(docOffsets.length),
      docText: at(docTextBuf.length),
      kernel: at(kernelBuf.length),
      ages: at(ages.length),
      parts: at(partOffsets.length),
      partText: at(partTextBuf.length),
    };
    const windows: [number, number, number][] = windowBufs.map((w, i) => [...at(w.length), Math.min(WINDOW_SIZE, model.files.length - i * WINDOW_SIZE)]);
    return {
      v: INDEX_VERSION,
      key: model.key,
      generation: model.generation,
      built: model.built,
      dirs: model.dirs,
      n: model.docs.length,
      nBuckets,
      sections,
      kernel: kernelHeader,
      activity: model.activity,
      hot: model.hot,
      windows,
      fileCount: model.files.length,
      extras: model.extras,
      ...(model.avg ? { avg: model.avg } : {}),
      decay: { ...(model.decay ?? { floor: 1, settings: '' }), decaying },
      ...(escaped ? { escaped: true as const } : {}),
    };
  };
  // The header holds absolute offsets, which depend on its own length: grow a reserved length until the header
  // fits in it, then pad with spaces (JSON allows trailing white space).
  let reserved = Buffer.byteLength(JSON.stringify(headerFor(0)), 'utf8');
  let header = Buffer.from(JSON.stringify(headerFor(12 + reserved)), 'utf8');
  while (header.length > reserved) {
    reserved = header.length + 64;
    header = Buffer.from(JSON.stringify(headerFor(12 + reserved)), 'utf8');
  }
  header = Buffer.concat([header, Buffer.alloc(reserved - header.length, 0x20)]);
  const head = Buffer.alloc(12);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(header.length, 8);
  return Buffer.concat([head, header, ...bodies]);
}

/** Random access to the bytes of an index, from a file or from memory. */
export interface IndexReader {
  header: IndexHeader;
  read(off: number, len: number): Buffer;
  close(): void;
  /** The entries a delta changed (delta.ts): the header above is then the index's with the delta applied. */
  overlay?: Overlay;
}

/** A document of a delta: id, title, and each keyword's field bits and weighted term frequency. */
export interface OverlayDoc {
  id: string;
  title: string;
  terms: Map<string, [fields: number, weight: number]>;
  decay?: DecayStamp;
  parts?: PageParts;
}

/**
 * The entries changed since an index was built (delta.ts), over it: the index's own documents keep their
 * numbers, the overlay's follow them (newest change first); `drops` lists, ascending, the index's own documents
 * that a change replaced or removed. `files` holds the stat signature of each file changed since (null: gone);
 * the windows of the index are read without them.
 */
export interface Overlay {
  docs: OverlayDoc[];
  drops: number[];
  files: Map<string, string | null>;
}

/** The first read of an index file: enough for the whole header of most indexes. */
const FIRST_READ = 16 * 1024;

function parseHeader(head: Buffer, readMore: (len: number) => Buffer): IndexHeader | undefined {
  if (head.length < 12 || head.toString('latin1', 0, 8) !== MAGIC) return undefined;
  const len = head.readUInt32LE(8);
  const bytes = 12 + len <= head.length ? head.subarray(12, 12 + len) : readMore(len);
  if (bytes.length !== len) return undefined;
  const h = JSON.parse(bytes.toString('utf8')) as IndexHeader;
  if (!h || h.v !== INDEX_VERSION || typeof h.key !== 'string' || !Array.isArray(h.dirs) || !h.sections) return undefined;
  return h;
}

/** Where an index's last section ends: the least size of a whole index file. */
function indexEnd(h: IndexHeader): number {
  let end = 0;
  for (const [off, len] of [...Object.values(h.sections), ...(Array.isArray(h.windows) ? h.windows : [])]) end = Math.max(end, off + len);
  return end;
}

/**
 * Opens an index file; undefined when it is missing, foreign, of another version or corrupt, shorter than its
 * header says (cut short: it is rebuilt, not read in vain on every prompt), or not a regular file (a FIFO or a
 * device in its place is never waited on).
 */
export function openIndexFile(file: string): IndexReader | undefined {
  const f = openRegular(file);
  if (!f) return undefined;
  const fd = f.fd;
  // NOTE: its own loop rather than fsutil's readAt: no zero-fill (allocUnsafe), and the prompt hook's bundle does
  // not carry fsutil and its pid module. Measured against readAt: within the 1 ms noise of paired runs.
  const read = (off: number, len: number): Buffer => {
    const buf = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const n = fs.readSync(fd, buf, got, len - got, off + got);
      if (n === 0) break;
      got += n;
    }
    return got === len ? buf : buf.subarray(0, got);
  };
  try {
    const head = read(0, FIRST_READ);
    const header = parseHeader(head, (len) => read(12, len));
    if (!header || f.size < indexEnd(header)) {
      fs.closeSync(fd);
      return undefined;
    }
    return {
      header,
      read(off, len) {
        const b = read(off, len);
        if (b.length !== len) throw new Error('index file is truncated');
        return b;
      },
      close: () => fs.closeSync(fd),
    };
  } catch {
    try {
      fs.closeSync(fd);
    } catch {
      /* already closed */
    }
    return undefined;
  }
}

/** An index held in memory (just built). */
export function readerFromBuffer(buf: Buffer): IndexReader {
  const header = parseHeader(buf, () => Buffer.alloc(0));
  if (!header) throw new Error('index buffer is not an index');
  return {
    header,
    read(off, len) {
      if (off + len > buf.length) throw new Error('index buffer is truncated');
      return buf.subarray(off, off + len);
    },
    close: () => undefined,
  };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * `count` postings (u32 doc, f32 weight, little-endian) at `from`. NOTE: copied once into an aligned buffer and
 * read in place through two typed-array views: a Buffer.readFloatLE per posting, or a copy into arrays of their
 * own, cost milliseconds a prompt for the common words of a large repo.
 */
function readPostings(body: Buffer, from: number, count: number): TermPostings {
  const bytes = new Uint8Array(8 * count);
  bytes.set(body.subarray(from, from + 8 * count));
  const cells = new Uint32Array(bytes.buffer);
  const weights = new Float32Array(bytes.buffer);
  if (!LITTLE_ENDIAN) {
    for (let j = 0; j < count; j++) {
      cells[2 * j] = body.readUInt32LE(from + 8 * j);
      weights[2 * j + 1] = body.readFloatLE(from + 8 * j + 4);
    }
  }
  return { count, cells, weights };
}

/** Whether the postings hold entry `doc`. */
export function postingsHave(p: TermPostings, doc: number): boolean {
  return postingIndex(p, doc) >= 0;
}

/** Where entry `doc` is in the postings, or -1 (a binary search: they are in document order). */
function postingIndex(p: TermPostings, doc: number): number {
  let lo = 0;
  let hi = p.count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const d = p.cells[2 * mid]! >>> 3;
    if (d === doc) return mid;
    if (d < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The postings of each keyword found in the index (only the buckets of these keywords are read), with its
 * overlay's changes where it has one: the documents it dropped left out, its own appended.
 * NOTE: no loop per posting on this path (a prompt's common words have thousands in a large repo, and a cold
 * process runs such loops in the interpreter): the index file's postings are kept as they are, or copied in runs
 * around the few dropped documents (found by binary search), and the overlay's are added after them.
 */
export function lookupTerms(reader: IndexReader, terms: string[]): Map<string, TermPostings> {
  const base = ownTerms(reader, terms);
  const o = reader.overlay;
  if (!o) return base;
  const out = new Map<string, TermPostings>();
  const first = reader.header.n - o.docs.length;
  for (const t of terms) {
    if (out.has(t)) continue;
    let own = base.get(t);
    if (own) {
      const at = o.drops.map((d) => postingIndex(own!, d)).filter((i) => i >= 0);
      if (at.length > 0) own = withoutPostings(own, at);
    }
    const mine: [number, number, number][] = [];
    o.docs.forEach((d, i) => {
      const x = d.terms.get(t);
      if (x) mine.push([first + i, x[0], x[1]]);
    });
    const count = (own?.count ?? 0) + mine.length;
    if (count === 0) continue;
    if (mine.length === 0) {
      out.set(t, own!);
      continue;
    }
    const cells = new Uint32Array(2 * count);
    const weights = new Float32Array(cells.buffer);
    if (own) cells.set(own.cells.subarray(0, 2 * own.count));
    let j = own?.count ?? 0;
    for (const [doc, fields, weight] of mine) {
      cells[2 * j] = doc * 8 + fields;
      weights[2 * j++ + 1] = weight;
    }
    out.set(t, { count, cells, weights });
  }
  return out;
}

/** Postings `p` without those at the positions `at` (ascending), copied in runs. */
function withoutPostings(p: TermPostings, at: number[]): TermPostings {
  const count = p.count - at.length;
  const cells = new Uint32Array(2 * count);
  let from = 0;
  let to = 0;
  for (const i of [...at, p.count]) {
    cells.set(p.cells.subarray(2 * from, 2 * i), 2 * to);
    to += i - from;
    from = i + 1;
  }
  return { count, cells, weights: new Float32Array(cells.buffer) };
}

/** The postings of each keyword in the index file itself (no overlay; its own document numbers). */
function ownTerms(reader: IndexReader, terms: string[]): Map<string, TermPostings> {
  const h = reader.header;
  const out = new Map<string, TermPostings>();
  const own = reader.overlay ? h.n - reader.overlay.docs.length : h.n;
  if (own === 0 || terms.length === 0) return out;
  const byBucket = new Map<number, string[]>();
  for (const t of terms) {
    const b = fnv1a(t) & (h.nBuckets - 1);
    const list = byBucket.get(b);
    if (list) list.push(t);
    else byBucket.set(b, [t]);
  }
  const [dirOff] = h.sections.buckets;
  const [postOff, postLen] = h.sections.postings;
  for (const [b, wanted] of byBucket) {
    const entry = reader.read(dirOff + b * 8, 8);
    const start = entry.readUInt32LE(0);
    const len = entry.readUInt32LE(4);
    if (len === 0 || start + len > postLen) continue;
    const body = reader.read(postOff + start, len);
    let p = 0;
    while (p < body.length) {
      const tlen = body.readUInt8(p);
      const term = body.toString('utf8', p + 1, p + 1 + tlen);
      const count = body.readUInt32LE(p + 1 + tlen);
      const from = p + 1 + tlen + 4;
      if (wanted.includes(term)) out.set(term, readPostings(body, from, count));
      p = from + 8 * count;
    }
  }
  return out;
}

/**
 * The id and title of a document by its number (its overlay's first, where it has one), and `size`, how many
 * distinct keywords it holds.
 */
export function readDoc(reader: IndexReader, doc: number): { id: string; title: string; size: number } {
  const h = reader.header;
  const o = reader.overlay;
  const mine = o?.docs[doc - (h.n - o.docs.length)];
  if (mine) return { id: mine.id, title: mine.title, size: mine.terms.size };
  const offs = reader.read(h.sections.docs[0] + doc * 4, 8);
  const start = offs.readUInt32LE(0);
  const end = offs.readUInt32LE(4);
  const text = reader.read(h.sections.docText[0] + start, end - start).toString('utf8');
  // NOTE: `id\ttitle\tsize`; a title holds no tab (docTitle).
  const tab = text.indexOf('\t');
  const last = text.lastIndexOf('\t');
  // NOTE: a size that does not parse is NaN, which fails the focus bar (signals.ts missOf): a damaged index is quiet.
  return { id: text.slice(0, tab), title: text.slice(tab + 1, last), size: Number(text.slice(last + 1)) };
}

/** A page's parts as the index file records them: `sizes;keyword:mask keyword:mask ...` (keywords hold no space or colon). */
export function partsText(p: PageParts): string {
  return `${p.sizes.join(',')};${[...p.masks].map(([k, m]) => `${k}:${m}`).join(' ')}`;
}

/** The parts of a document that is a page with sections (its overlay's first), or undefined. */
export function readParts(reader: IndexReader, doc: number): PageParts | undefined {
  const h = reader.header;
  const o = reader.overlay;
  const first = o ? h.n - o.docs.length : h.n;
  if (doc >= first) return o!.docs[doc - first]?.parts;
  const [at, len] = h.sections.parts ?? [0, 0];
  if (len < (doc + 2) * 4) return undefined;
  const offs = reader.read(at + doc * 4, 8);
  const start = offs.readUInt32LE(0);
  const end = offs.readUInt32LE(4);
  if (end <= start) return undefined;
  const text = reader.read(h.sections.partText[0] + start, end - start).toString('utf8');
  const semi = text.indexOf(';');
  const sizes = text.slice(0, semi).split(',').map(Number);
  const masks = new Map<string, number>();
  for (const pair of text.slice(semi + 1).split(' ')) {
    const colon = pair.lastIndexOf(':');
    if (colon > 0) masks.set(pair.slice(0, colon), Number(pair.slice(colon + 1)));
  }
  return { sizes, masks };
}

/**
 * The decay multiplier of each document at `now` (spec/memory.md, "Decay"; undefined for one that does not decay),
 * or undefined when no document decays.
 * NOTE: asked only for the few documents a prompt ranks best: each is 4 bytes of the ages section, read when
 * asked, and nothing is read when no document of the index file decays.
 */
export function decayOf(reader: IndexReader, now: number): ((doc: number) => number | undefined) | undefined {
  const h = reader.header;
  const o = reader.overlay;
  const d = h.decay;
  if (!d || !(d.floor < 1)) return undefined;
  const first = o ? h.n - o.docs.length : h.n;
  const anyOverlay = !!o && o.docs.some((x) => x.decay && x.decay[1] > 0);
  if (!(d.decaying > 0) && !anyOverlay) return undefined;
  const today = dayOf(now);
  const ages = d.decaying > 0 && h.sections.ages?.[1] === first * 4 ? h.sections.ages[0] : -1;
  return (doc) => {
    if (doc >= first) {
      const s = o!.docs[doc - first]?.decay;
      return s && s[1] > 0 ? stampFactor(s[0], s[1], d.floor, today) : undefined;
    }
    if (ages < 0) return undefined;
    const b = reader.read(ages + doc * 4, 4);
    const half = b.readUInt16LE(2);
    return half > 0 ? stampFactor(b.readUInt16LE(0), half, d.floor, today) : undefined;
  };
}

/** The body of a kernel entry listed in the header. */
export function readKernelBody(reader: IndexReader, k: IndexHeader['kernel'][number]): string {
  return reader.read(reader.header.sections.kernel[0] + k.off, k.len).toString('utf8');
}

/** Every kernel entry of an index, oldest first, with its body and rules. */
export function readKernel(reader: IndexReader): IndexKernel[] {
  return reader.header.kernel.map((k) => ({ id: k.id, title: k.title, path: k.path, sig: k.sig, body: readKernelBody(reader, k), rules: Array.isArray(k.rules) ? k.rules : [] }));
}

/** The files of one rotating window, as the index file holds them (the overlay's changed files among them). */
export function readWindow(reader: IndexReader, w: number): IndexFile[] {
  const win = reader.header.windows[w];
  if (!win) return [];
  return parseFiles(reader.read(win[0], win[1]).toString('utf8'), reader.header.escaped === true);
}

/** Every file of the index file, in its order (for an update). */
export function readAllFiles(reader: IndexReader): IndexFile[] {
  const ws = reader.header.windows;
  if (ws.length === 0) return [];
  const last = ws[ws.length - 1]!;
  return parseFiles(reader.read(ws[0]![0], last[0] + last[1] - ws[0]![0]).toString('utf8'), reader.header.escaped === true);
}

/** Window lines `path \t sig \t kind \t id`, read from the right: a path may hold a tab (and an escaped newline: pathLine). */
function parseFiles(text: string, escaped: boolean): IndexFile[] {
  const out: IndexFile[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    const c = line.lastIndexOf('\t');
    const b = line.lastIndexOf('\t', c - 1);
    const a = line.lastIndexOf('\t', b - 1);
    out.push([escaped ? linePath(line.slice(0, a)) : line.slice(0, a), line.slice(a + 1, b), line.slice(b + 1, c) as FileKind, line.slice(c + 1)]);
  }
  return out;
}
