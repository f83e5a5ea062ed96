/**
 * Contract: reading git's pack formats: a version-2 pack index (.idx), the header of one packed object (its type,
 * size and delta base), and applying a delta to its base. Pure: buffers in, values out; the reader and the
 * fetch path share these so a pack is parsed one way.
 */
import type { ObjectType } from './encoding.js';

/** The object types by their pack type code (6 and 7 are deltas). */
export const PACKED_TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };

/**
 * The largest object git-kb reads (256 MB): a data repo holds notes, and a file of gigabytes (a few MB packed, as
 * zeros are) would take that much memory on every read, past Node's 4 GiB buffer at worst. Sync refuses a pull that
 * holds one before anything moves (write/checkout.ts).
 */
export const MAX_OBJECT_BYTES = 256 * 1024 * 1024;

const mb = (n: number): string => `${(n / 2 ** 20).toFixed(0)} MB`;

/** Where an object over the cap sits, as far as its reader found out: its id, and a commit and path holding it. */
export interface OversizedPlace {
  oid?: string;
  commit?: string;
  path?: string;
}

/**
 * An object over MAX_OBJECT_BYTES, refused before it is inflated whole; `what` names it where the reader knows, and
 * `place` says where it sits when the reader found that out (a fetched pack's trees name it: storePack).
 */
export class ObjectTooLarge extends Error {
  constructor(
    readonly size: number,
    what?: string,
    readonly place: OversizedPlace = {},
  ) {
    super(`a git object${what ? ` (${what})` : ''} of ${size > 0 ? mb(size) : `over ${mb(MAX_OBJECT_BYTES)}`}; git-kb reads none over ${mb(MAX_OBJECT_BYTES)}`);
  }
}

/**
 * zlib's inflate under the object cap, the one way every reader inflates an object (a loose object, a packed one,
 * one in a fetched pack): ObjectTooLarge naming `what` when the output would pass the cap, whatever size the
 * object's header claims (a crafted pack can understate it). `extra` allows for a loose object's header
 * ("blob 123\0") on top; `inflate` is the caller's zlib call, returning what it returns.
 */
export function inflateCapped<T>(inflate: (buf: Buffer, o: { maxOutputLength: number }) => T, raw: Buffer, options: { what?: string; extra?: number } = {}): T {
  try {
    return inflate(raw, { maxOutputLength: MAX_OBJECT_BYTES + (options.extra ?? 0) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) throw new ObjectTooLarge(0, options.what);
    throw err;
  }
}
/** Pack type code of a delta against an object at an earlier offset. */
export const OFS_DELTA = 6;
/** Pack type code of a delta against an object named by its id. */
export const REF_DELTA = 7;

/** A version-2 pack index, as slices of the .idx file. */
export interface PackIndex {
  count: number;
  fanout: Uint32Array;
  oids: Buffer;
  offsets: Buffer;
  large: Buffer;
}

/** Parses a version-2 pack index, or undefined for another version. */
export function parsePackIndex(buf: Buffer): PackIndex | undefined {
  if (buf.readUInt32BE(0) !== 0xff744f63 || buf.readUInt32BE(4) !== 2) return undefined;
  const fanout = new Uint32Array(256);
  for (let i = 0; i < 256; i++) fanout[i] = buf.readUInt32BE(8 + i * 4);
  const count = fanout[255]!;
  const oidsAt = 8 + 1024;
  const offsetsAt = oidsAt + count * 20 + count * 4;
  return {
    count,
    fanout,
    oids: buf.subarray(oidsAt, oidsAt + count * 20),
    offsets: buf.subarray(offsetsAt, offsetsAt + count * 4),
    large: buf.subarray(offsetsAt + count * 4, buf.length - 40),
  };
}

/** Where an object sits in the pack, or undefined when the index does not list it. */
export function findInPack(p: PackIndex, oid: Buffer): number | undefined {
  let lo = oid[0]! === 0 ? 0 : p.fanout[oid[0]! - 1]!;
  let hi = p.fanout[oid[0]!]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = p.oids.compare(oid, 0, 20, mid * 20, mid * 20 + 20) * -1;
    if (c === 0) {
      const off = p.offsets.readUInt32BE(mid * 4);
      return off & 0x80000000 ? Number(p.large.readBigUInt64BE((off & 0x7fffffff) * 8)) : off;
    }
    if (c < 0) hi = mid;
    else lo = mid + 1;
  }
  return undefined;
}

/** The header of one packed object. */
export interface PackedHeader {
  /** The pack type code (1-4, or OFS_DELTA / REF_DELTA). */
  type: number;
  /** The size of the object (or delta) once inflated. */
  size: number;
  /** Where the compressed data starts, as an index into the buffer read. */
  dataStart: number;
  /** For OFS_DELTA: the pack offset of the base. */
  baseOffset?: number;
  /** For REF_DELTA: the base's id. */
  baseOid?: string;
}

/** Parses the header of the packed object at index `i` of `buf`, which sits at `offset` in its pack. */
export function parsePackedHeader(buf: Buffer, i: number, offset: number): PackedHeader {
  let c = buf[i++]!;
  const type = (c >> 4) & 7;
  let size = c & 15;
  let shift = 4;
  while (c & 0x80) {
    c = buf[i++]!;
    size += (c & 0x7f) * 2 ** shift;
    shift += 7;
  }
  const out: PackedHeader = { type, size, dataStart: i };
  if (type === OFS_DELTA) {
    c = buf[i++]!;
    let off = c & 127;
    while (c & 128) {
      c = buf[i++]!;
      off = (off + 1) * 128 + (c & 127);
    }
    out.baseOffset = offset - off;
  } else if (type === REF_DELTA) {
    out.baseOid = buf.toString('hex', i, i + 20);
    i += 20;
  }
  out.dataStart = i;
  return out;
}

/** Applies a git delta to its base. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  let i = 0;
  const varint = (): number => {
    let n = 0;
    let shift = 0;
    let c: number;
    do {
      c = delta[i++]!;
      n += (c & 0x7f) * 2 ** shift;
      shift += 7;
    } while (c & 0x80);
    return n;
  };
  const srcSize = varint();
  if (srcSize !== base.length) throw new Error('delta base size mismatch');
  const size = varint();
  if (size > MAX_OBJECT_BYTES) throw new ObjectTooLarge(size);
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let off = 0;
      let size = 0;
      for (let b = 0; b < 4; b++) if (op & (1 << b)) off += delta[i++]! * 2 ** (8 * b);
      for (let b = 0; b < 3; b++) if (op & (16 << b)) size += delta[i++]! * 2 ** (8 * b);
      if (size === 0) size = 0x10000;
      base.copy(out, o, off, off + size);
      o += size;
    } else if (op) {
      delta.copy(out, o, i, i + op);
      o += op;
      i += op;
    } else throw new Error('bad delta opcode');
  }
  if (o !== out.length) throw new Error('delta result size mismatch');
  return out;
}
