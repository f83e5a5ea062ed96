/**
 * Contract: encoding git packfiles (version 2, whole objects, no deltas) with native zlib, and their version-2
 * index. Pure: buffers in, buffers out. Used for bulk writes (import) and for pushes.
 */
import zlib from 'node:zlib';
import { objectId, withChecksum, type GitObject } from './encoding.js';

const PACK_TYPES = { commit: 1, tree: 2, blob: 3, tag: 4 } as const;

/** An object to pack. */
export type PackInput = GitObject;

/** Where each object landed in the pack (for the index). */
export interface PackedObject {
  oid: Buffer;
  offset: number;
  crc: number;
}

/** Encodes objects as a packfile (header, entries, trailing SHA-1) and says where each one is. */
export function encodePack(objects: PackInput[]): { pack: Buffer; entries: PackedObject[] } {
  const chunks: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects.length, 8);
  chunks.push(header);
  const entries: PackedObject[] = [];
  let offset = 12;
  for (const { type, data } of objects) {
    const oid = Buffer.from(objectId(type, data), 'hex');
    // Object header: type in bits 4-6 of the first byte, size as a little-endian base-128 varint.
    const head: number[] = [];
    let size = data.length;
    let byte = (PACK_TYPES[type] << 4) | (size & 0x0f);
    size = Math.floor(size / 16);
    while (size > 0) {
      head.push(byte | 0x80);
      byte = size & 0x7f;
      size = Math.floor(size / 128);
    }
    head.push(byte);
    // NOTE: a small window and memory level make zlib's per-call set-up cheap; any inflater reads the result.
    const deflated = data.length < 4096 ? zlib.deflateSync(data, { level: 1, windowBits: 12, memLevel: 5 }) : zlib.deflateSync(data, { level: 1 });
    const packed = Buffer.concat([Buffer.from(head), deflated]);
    entries.push({ oid, offset, crc: zlib.crc32(packed) });
    chunks.push(packed);
    offset += packed.length;
  }
  const body = Buffer.concat(chunks);
  return { pack: withChecksum(body), entries };
}

/** The version-2 index (.idx) of a pack: fan-out, sorted ids, CRCs, offsets, then both checksums. */
export function encodePackIndex(entries: PackedObject[], pack: Buffer): Buffer {
  const packSum = pack.subarray(pack.length - 20);
  const sorted = [...entries].sort((a, b) => Buffer.compare(a.oid, b.oid));
  const fanout = Buffer.alloc(256 * 4);
  let k = 0;
  for (let b = 0; b < 256; b++) {
    while (k < sorted.length && sorted[k]!.oid[0]! <= b) k++;
    fanout.writeUInt32BE(k, b * 4);
  }
  const crcs = Buffer.alloc(sorted.length * 4);
  const offs = Buffer.alloc(sorted.length * 4);
  const large: Buffer[] = [];
  sorted.forEach((e, i) => {
    crcs.writeUInt32BE(e.crc >>> 0, i * 4);
    if (e.offset < 0x80000000) offs.writeUInt32BE(e.offset, i * 4);
    else {
      offs.writeUInt32BE((0x80000000 | large.length) >>> 0, i * 4);
      const big = Buffer.alloc(8);
      big.writeBigUInt64BE(BigInt(e.offset));
      large.push(big);
    }
  });
  const body = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fanout, ...sorted.map((e) => e.oid), crcs, offs, ...large, packSum]);
  return withChecksum(body);
}
