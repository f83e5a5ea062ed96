/**
 * Contract: writing a big tree (a folder of thousands of entries) without deflating it whole on every commit.
 * The folder of entries holds one tree entry per note: at 50,000 notes its tree is 4.3 MB, and one new note
 * changes one entry of it. The body is cut into segments at content-defined points (after an entry whose id ends
 * in a zero byte, and at most every MAX_SEGMENT bytes); each segment is deflated on its own, ending on a byte
 * boundary with no reference outside it, so the loose object is a zlib header, the segments' deflate blocks in
 * order, a final empty block and the adler-32 of the whole (combined from the segments'). A reader sees one plain
 * zlib stream; git, isomorphic-git and `git fsck` read it like any other.
 * The last big trees written are kept in `.git/git-kb/trees/<oid>` (derived state, safe to delete): the body and
 * its deflated segments, under a CRC-32 of the file. A commit on top of such a tree reads its body from there (no
 * inflate) and deflates only the segments that changed. Nothing here decides what a tree holds.
 */
import fs from 'node:fs';
import path from 'node:path';
import { zlib } from '../system/builtins.js';
import { readAt, writeFileAtomic } from '../store/fsutil.js';
import { stateDir } from '../store/layout.js';
import { nextTreeEntry, objectHeader, objectId } from './encoding.js';
import { looseExists, writeLooseStream } from './objects.js';

/** Trees from this size up are written in segments and kept (smaller ones are cheap to deflate whole). */
export const BIG_TREE = 256 * 1024;
/** A segment ends at the latest here even without a content-defined cut. */
const MAX_SEGMENT = 64 * 1024;
/** Big trees kept: the entry folder's, the sessions folder's, and a spare. */
const KEEP = 4;
const MAGIC = 'git-kb tree 1';

/** One segment of a body: where it ends, its deflate blocks, and the adler-32 of its bytes. */
interface Segment {
  end: number;
  deflated: Buffer;
  adler: number;
}

/** A kept tree: its body and segments. */
export interface KeptTree {
  body: Buffer;
  segments: Segment[];
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

/** The kept tree `oid` (its CRC checked), or undefined (none, torn, or not this tree). */
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
    const head = JSON.parse(all.toString('utf8', MAGIC.length + 1, nl)) as { oid: string; bodyBytes: number; segments: [number, number, number][] };
    if (head.oid !== oid) return undefined;
    let at = nl + 1;
    const body = all.subarray(at, at + head.bodyBytes);
    at += head.bodyBytes;
    const segments: Segment[] = [];
    for (const [end, len, adler] of head.segments) {
      segments.push({ end, deflated: all.subarray(at, at + len), adler });
      at += len;
    }
    if (at !== size - 4 || body.length !== head.bodyBytes || (segments.length && segments[segments.length - 1]!.end !== body.length)) return undefined;
    return { body, segments };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Keeps tree `oid` (never throws: derived state) and drops the oldest kept trees past KEEP. */
function keep(dir: string, oid: string, tree: KeptTree, replaces: string | undefined): void {
  try {
    const segs = tree.segments.map((s) => [s.end, s.deflated.length, s.adler]);
    const head = Buffer.from(`${MAGIC} ${JSON.stringify({ oid, bodyBytes: tree.body.length, segments: segs })}\n`, 'utf8');
    const parts = [head, tree.body, ...tree.segments.map((s) => s.deflated)];
    let crc = 0;
    for (const p of parts) crc = zlib().crc32(p, crc);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc >>> 0);
    const folder = treesDir(dir);
    writeFileAtomic(path.join(folder, oid), [...parts, tail], { fsync: false });
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
  if (old) {
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
  keep(dir, oid, { body, segments }, from?.oid);
  return oid;
}
