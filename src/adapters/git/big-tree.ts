/**
 * Contract: writing a big tree (a folder of thousands of entries) without deflating it whole on every commit.
 * The folder of entries holds one tree entry per note: at 50,000 notes its tree is 4.3 MB, and one new note
 * changes one entry of it. The body is cut into segments at content-defined points (after an entry whose id ends
 * in a zero byte, and at most every MAX_SEGMENT bytes); each segment is deflated on its own, ending on a byte
 * boundary with no reference outside it, so the loose object is a zlib header, the segments' deflate blocks in
 * order, a final empty block and the adler-32 of the whole (combined from the segments'). A reader sees one plain
 * zlib stream; git, isomorphic-git and `git fsck` read it like any other.
 * The last big trees written are kept in `.git/git-kb/trees/<oid>` (derived state, safe to delete): the body,
 * under a CRC-32, and where each segment's deflate blocks lie in the tree's loose object, with that file's
 * identity and CRC-32. A commit on top of such a tree reads its body from there (no inflate) and deflates only
 * the segments that changed, taking the others' blocks from the old loose object while it is still the file
 * written (git may pack it or store it anew). Nothing here decides what a tree holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { zlib } from '../system/builtins.js';
import { readAt, writeFileAtomic } from '../store/fsutil.js';
import { stateDir } from '../store/layout.js';
import { nextTreeEntry, objectHeader, objectId } from './encoding.js';
import { looseExists, looseObjectFile, writeLooseStream } from './objects.js';

/** Trees from this size up are written in segments and kept (smaller ones are cheap to deflate whole). */
export const BIG_TREE = 256 * 1024;
/** A segment ends at the latest here even without a content-defined cut. */
const MAX_SEGMENT = 64 * 1024;
/** Big trees kept: the entry folder's, the sessions folder's, and a spare. */
const KEEP = 4;
const MAGIC = 'git-kb tree 2';

/** One segment of a body: where it ends, its deflate blocks, and the adler-32 of its bytes. */
interface Segment {
  end: number;
  deflated: Buffer;
  adler: number;
}

/** A kept tree: its body, and its segments (when its loose object still holds their deflate blocks). */
export interface KeptTree {
  body: Buffer;
  segments?: Segment[];
}

const BASE = 65521;

/** The adler-32 of `buf` (zlib's checksum, started from 1). */
function adler32(buf: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < buf.length; ) {
    // NOTE: 3,800 bytes keep both sums below 2^31 before the modulo (zlib's NMAX is 5,552 for 32-bit unsigned).
    const n = Math.min(buf.length, i + 3800);
    for (; i < n; i++) {
      a += buf[i]!;
      b += a;
    }
    a %= BASE;
    b %= BASE;
  }
  return ((b << 16) | a) >>> 0;
}

/** The adler-32 of two byte runs one after the other, from theirs and the second's length (zlib's adler32_combine). */
function adlerCombine(a1: number, a2: number, len2: number): number {
  const rem = len2 % BASE;
  let sum1 = a1 & 0xffff;
  let sum2 = (rem * sum1) % BASE;
  sum1 += (a2 & 0xffff) + BASE - 1;
  sum2 += ((a1 >>> 16) & 0xffff) + ((a2 >>> 16) & 0xffff) + BASE - rem;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum2 >= BASE * 2) sum2 -= BASE * 2;
  if (sum2 >= BASE) sum2 -= BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}

/** A run of bytes deflated on its own, ending with a sync flush (byte-aligned, not final). */
function deflateSegment(bytes: Buffer): Buffer {
  const z = zlib();
  return z.deflateRawSync(bytes, { level: 1, finishFlush: z.constants.Z_SYNC_FLUSH });
}

/** Where the segments of a tree body end: after an entry whose id's last byte is 0, or at MAX_SEGMENT. */
function cuts(body: Buffer): number[] {
  const out: number[] = [];
  let start = 0;
  for (let e = nextTreeEntry(body, 0); e; e = nextTreeEntry(body, e.end)) {
    if (body[e.end - 1] === 0 || e.end - start >= MAX_SEGMENT) {
      out.push(e.end);
      start = e.end;
    }
  }
  if (start < body.length) out.push(body.length);
  return out;
}

function treesDir(dir: string): string {
  return path.join(stateDir(dir), 'trees');
}

/** What a kept tree records of its loose object, to find its segments' deflate blocks there. */
interface LooseRecord {
  size: number;
  ino: number;
  crc: number;
  /** Where each segment's deflate blocks start in the loose object file. */
  at: number[];
}

/**
 * The deflate blocks of each segment, from the loose object of `oid`, when that file is still the one written
 * (same inode and size, and its CRC-32; not its mtime, which git moves when it finds the object already there),
 * else undefined: git may have packed it, or stored it anew.
 */
function segmentsOf(dir: string, oid: string, ends: { end: number; adler: number }[], rec: LooseRecord): Segment[] | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(looseObjectFile(dir, oid), 'r');
    const st = fs.fstatSync(fd);
    if (st.size !== rec.size || st.ino !== rec.ino) return undefined;
    const bytes = readAt(fd, 0, st.size);
    if (bytes.length !== rec.size || zlib().crc32(bytes) !== rec.crc || rec.at.length !== ends.length + 1) return undefined;
    return ends.map((e, k) => ({ end: e.end, adler: e.adler, deflated: bytes.subarray(rec.at[k]!, rec.at[k + 1]!) }));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The kept tree `oid`: its body (CRC-checked), and its segments when its loose object is still the one written;
 * undefined when none is kept, or it is torn or of another tree.
 */
export function keptTree(dir: string, oid: string): KeptTree | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path.join(treesDir(dir), oid), 'r');
    const size = fs.fstatSync(fd).size;
    const all = readAt(fd, 0, size);
    if (all.length !== size || size < 4) return undefined;
    if (zlib().crc32(all.subarray(0, size - 4)) !== all.readUInt32BE(size - 4)) return undefined;
    const nl = all.indexOf(10);
    if (nl < 0 || all.toString('latin1', 0, MAGIC.length + 1) !== `${MAGIC} `) return undefined;
    const head = JSON.parse(all.toString('utf8', MAGIC.length + 1, nl)) as { oid: string; bodyBytes: number; segments: [number, number][]; loose: LooseRecord };
    if (head.oid !== oid || nl + 1 + head.bodyBytes !== size - 4) return undefined;
    const body = all.subarray(nl + 1, nl + 1 + head.bodyBytes);
    const ends = head.segments.map(([end, adler]) => ({ end, adler }));
    if (ends.length && ends[ends.length - 1]!.end !== body.length) return undefined;
    return { body, segments: segmentsOf(dir, oid, ends, head.loose) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Keeps tree `oid`, whose loose object was just written as `stream` (never throws: derived state), and drops the
 * oldest kept trees past KEEP.
 */
function keep(dir: string, oid: string, body: Buffer, segments: Segment[], stream: Buffer[], replaces: string | undefined): void {
  try {
    // The stream is the zlib header, the object header's deflate, each segment's, then the final block.
    const at: number[] = [];
    let pos = stream[0]!.length + stream[1]!.length;
    let crc = zlib().crc32(stream[0]!);
    crc = zlib().crc32(stream[1]!, crc);
    for (let k = 0; k < segments.length; k++) {
      at.push(pos);
      pos += stream[k + 2]!.length;
      crc = zlib().crc32(stream[k + 2]!, crc);
    }
    at.push(pos);
    crc = zlib().crc32(stream[stream.length - 1]!, crc);
    const st = fs.statSync(looseObjectFile(dir, oid));
    const loose: LooseRecord = { size: st.size, ino: st.ino, crc: crc >>> 0, at };
    const head = Buffer.from(`${MAGIC} ${JSON.stringify({ oid, bodyBytes: body.length, segments: segments.map((s) => [s.end, s.adler]), loose })}\n`, 'utf8');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(zlib().crc32(body, zlib().crc32(head)) >>> 0);
    const folder = treesDir(dir);
    writeFileAtomic(path.join(folder, oid), [head, body, tail], { fsync: false });
    if (replaces && replaces !== oid) fs.rmSync(path.join(folder, replaces), { force: true });
    const names = fs.readdirSync(folder).filter((n) => /^[0-9a-f]{40}$/.test(n));
    if (names.length > KEEP) {
      const byAge = names.map((n) => ({ n, t: fs.statSync(path.join(folder, n)).mtimeMs })).sort((a, b) => a.t - b.t);
      for (const { n } of byAge.slice(0, names.length - KEEP)) if (n !== oid) fs.rmSync(path.join(folder, n), { force: true });
    }
  } catch {
    /* the next commit deflates the tree whole */
  }
}

/**
 * The zlib stream of tree object `body` (its header included), its segments deflated on their own; a segment
 * byte for byte equal to one of `old` (the tree it was made from) reuses that one's deflate blocks (`reused`
 * counts them).
 */
export function segmentedStream(body: Buffer, old: KeptTree | undefined): { stream: Buffer[]; segments: Segment[]; reused: number } {
  const reuse = new Map<string, { start: number; seg: Segment }>();
  if (old?.segments) {
    let start = 0;
    for (const seg of old.segments) {
      // Keyed by the id ending the segment and its length; the bytes are compared before a reuse.
      reuse.set(`${old.body.toString('latin1', seg.end - 20, seg.end)}:${seg.end - start}`, { start, seg });
      start = seg.end;
    }
  }
  const header = objectHeader('tree', body.length);
  const stream: Buffer[] = [Buffer.from([0x78, 0x01]), deflateSegment(header)];
  let adler = adler32(header);
  const segments: Segment[] = [];
  let reused = 0;
  let start = 0;
  for (const end of cuts(body)) {
    const bytes = body.subarray(start, end);
    const hit = old && reuse.get(`${body.toString('latin1', end - 20, end)}:${end - start}`);
    const seg =
      hit && old!.body.subarray(hit.start, hit.seg.end).equals(bytes)
        ? { end, deflated: hit.seg.deflated, adler: hit.seg.adler }
        : { end, deflated: deflateSegment(bytes), adler: adler32(bytes) };
    if (seg.deflated === hit?.seg.deflated) reused++;
    segments.push(seg);
    stream.push(seg.deflated);
    adler = adlerCombine(adler, seg.adler, end - start);
    start = end;
  }
  const tail = Buffer.alloc(6);
  tail[0] = 0x03; // a final, empty block with fixed codes: the stream ends here
  tail[1] = 0x00;
  tail.writeUInt32BE(adler, 2);
  stream.push(tail);
  return { stream, segments, reused };
}

/**
 * Writes tree object `body` (BIG_TREE bytes or more) as a loose object unless it is there, made from tree
 * `from.oid` (the segments of `from.kept` are reused), keeps it for the next commit, and returns its id.
 */
export function writeBigTree(dir: string, body: Buffer, from?: { oid: string; kept: KeptTree | undefined }): string {
  const oid = objectId('tree', body);
  if (looseExists(dir, oid)) return oid;
  const { stream, segments } = segmentedStream(body, from?.kept);
  writeLooseStream(dir, oid, stream);
  keep(dir, oid, body, segments, stream, from?.oid);
  return oid;
}
