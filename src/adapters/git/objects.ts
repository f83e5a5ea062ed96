/**
 * Contract: the one writer of git objects: a loose object (native sha1 and zlib, much faster than isomorphic-git's
 * own for bulk work), many new blobs as one packfile with its index (the way git stores what it receives), the
 * objects of a fetched pack, and a pack of objects to send. Every id is computed from the content, and every file
 * is written atomically, so a killed process never leaves a torn object.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crypto, zlib } from '../system/builtins.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { checksumValid, nextTreeEntry, objectHeader, objectId, rawName, type GitObject, type ObjectType } from './encoding.js';
import { encodePack, encodePackIndex, type PackInput } from './pack.js';
import { applyDelta, inflateCapped, MAX_OBJECT_BYTES, ObjectTooLarge, OFS_DELTA, PACKED_TYPES, parsePackedHeader, REF_DELTA, type OversizedPlace } from './pack-read.js';
import type { ObjectReader } from './reader.js';

/** Where object `oid` is stored as a loose object. */
export function looseObjectFile(dir: string, oid: string): string {
  return path.join(dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
}

/**
 * Writes the object `oid` (its body may come in parts: a tree of runs of the old one) as a loose object unless it
 * is there; true if written. Header and parts are joined once, only to be deflated.
 */
function writeLooseAs(dir: string, oid: string, type: ObjectType, body: Buffer[]): boolean {
  if (looseExists(dir, oid)) return false;
  let length = 0;
  for (const b of body) length += b.length;
  writeLooseStream(dir, oid, [zlib().deflateSync(Buffer.concat([objectHeader(type, length), ...body]), { level: 1 })]);
  return true;
}

/** True when object `oid` is stored as a loose object. */
export function looseExists(dir: string, oid: string): boolean {
  return fs.existsSync(looseObjectFile(dir, oid));
}

/** Stores the zlib stream of object `oid` (given in parts, the caller's deflate) as its loose object, atomically. */
export function writeLooseStream(dir: string, oid: string, stream: Buffer[]): void {
  writeFileAtomic(looseObjectFile(dir, oid), stream, { fsync: false, mode: 0o444 });
}

/** Stores an object as a loose object (unless it is there already) and returns its id. */
export function writeLooseObject(dir: string, type: ObjectType, ...body: Buffer[]): string {
  const oid = objectId(type, ...body);
  writeLooseAs(dir, oid, type, body);
  return oid;
}

/**
 * Writes blobs as one packfile with its index: one file instead of thousands. The .idx is renamed in last, so a
 * pack without an index is never visible; `git fsck` and isomorphic-git read the result like any pack. Returns
 * the blob ids in input order.
 */
export function writePackedBlobs(dir: string, contents: Buffer[]): string[] {
  const { pack, entries } = encodePack(contents.map((data) => ({ type: 'blob' as const, data })));
  const base = path.join(dir, '.git', 'objects', 'pack', `pack-${pack.subarray(pack.length - 20).toString('hex')}`);
  fs.mkdirSync(path.dirname(base), { recursive: true });
  writeFileAtomic(`${base}.pack`, pack, { mode: 0o444 });
  writeFileAtomic(`${base}.idx`, encodePackIndex(entries, pack), { mode: 0o444 });
  return entries.map((e) => e.oid.toString('hex'));
}

/** A version-2 packfile of the given objects, whole (no deltas), compressed with native zlib. */
export async function buildPack(reader: ObjectReader, oids: string[]): Promise<Buffer> {
  const objects: PackInput[] = [];
  for (const oid of oids) objects.push((await reader.read(oid)) as PackInput);
  return encodePack(objects).pack;
}

/**
 * Inflates the object whose zlib data starts at `start` of `pack` as a stream, a chunk at a time, never holding it
 * whole: where its data ends, its size, and its id when it is a whole object (`type`) whose header told its size
 * (`claimed`) truly. For an object over the cap, which is named, then skipped.
 */
function measureObject(pack: Buffer, start: number, type: ObjectType | undefined, claimed: number): Promise<{ end: number; size: number; oid?: string }> {
  const z = zlib().createInflate({ chunkSize: 1 << 20 });
  const hash = type ? crypto().createHash('sha1').update(objectHeader(type, claimed)) : undefined;
  let size = 0;
  return new Promise((resolve, reject) => {
    z.on('data', (c: Buffer) => {
      size += c.length;
      hash?.update(c);
    });
    z.on('error', reject);
    // NOTE: inflate stops at the end of the object's zlib stream; bytesWritten is then the input it took.
    z.on('end', () => resolve({ end: start + z.bytesWritten, size, oid: hash && size === claimed ? hash.digest('hex') : undefined }));
    z.end(pack.subarray(start, pack.length - 20));
  });
}

/**
 * The first over-cap object (by id, in `oids`) that a tree of the pack names, searching each commit's tree in
 * `commits` order (newest first): its id, the commit and its path. Only the pack's own trees are walked: every tree
 * on the way to an object the repo lacks is new, so the pack holds it.
 */
function locateOversized(objects: Map<string, GitObject>, commits: string[], oids: Set<string>): Required<OversizedPlace> | undefined {
  const seen = new Set<string>();
  for (const commit of commits) {
    const data = objects.get(commit)!.data;
    const stack = [{ tree: data.toString('latin1', 5, 45), prefix: '' }]; // "tree <40 hex>" opens a commit
    while (stack.length) {
      const { tree, prefix } = stack.pop()!;
      const t = objects.get(tree);
      if (!t || t.type !== 'tree' || seen.has(tree)) continue;
      seen.add(tree);
      for (let e = nextTreeEntry(t.data, 0); e; e = nextTreeEntry(t.data, e.end)) {
        const oid = t.data.toString('hex', e.nameEnd + 1, e.end);
        const name = prefix + rawName(t.data, e);
        if (e.tree) stack.push({ tree: oid, prefix: `${name}/` });
        else if (oids.has(oid)) return { oid, commit, path: name };
      }
    }
  }
  return undefined;
}

/**
 * Stores the objects of a fetched pack as loose objects (what git does for small fetches), skipping any the repo
 * has. Deltas are resolved against objects in the pack or in the repo. The pack's checksum is verified first;
 * every object id is computed from its content. Returns the number of objects written. An object over the cap
 * (MAX_OBJECT_BYTES) is never inflated whole: it is streamed once to find its end and id, the rest of the pack is
 * read, and ObjectTooLarge names it (its id, and a commit and path of the pack holding it when a tree there names
 * it), with nothing written.
 */
export async function storePack(dir: string, pack: Buffer, reader: ObjectReader): Promise<number> {
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') throw new Error('not a pack');
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`pack version ${version}`);
  if (!checksumValid(pack)) throw new Error('pack checksum mismatch');
  const count = pack.readUInt32BE(8);
  interface Raw {
    type: number;
    data: Buffer;
    baseOffset?: number;
    baseOid?: string;
  }
  const raws = new Map<number, Raw>();
  const order: number[] = [];
  const oversized: Oversized[] = [];
  let i = 12;
  for (let n = 0; n < count; n++) {
    const offset = i;
    const h = parsePackedHeader(pack, i, offset);
    const what = `the fetched pack's object at ${offset}`;
    let r: { buffer: Buffer; engine: { bytesWritten: number } } | undefined;
    try {
      if (h.size <= MAX_OBJECT_BYTES) r = inflateCapped((buf, o) => zlib().inflateSync(buf, { ...o, info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } }, pack.subarray(h.dataStart, pack.length - 20), { what });
    } catch (err) {
      if (!(err instanceof ObjectTooLarge)) throw err;
    }
    if (!r) {
      const m = await measureObject(pack, h.dataStart, PACKED_TYPES[h.type], h.size);
      oversized.push({ size: m.size, what: m.oid ? m.oid.slice(0, 12) : `${what}, whose header says ${h.size} bytes`, oid: m.oid });
      i = m.end;
      continue;
    }
    raws.set(offset, { type: h.type, data: r.buffer, baseOffset: h.baseOffset, baseOid: h.baseOid });
    order.push(offset);
    i = h.dataStart + r.engine.bytesWritten;
  }
  const resolved = new Map<number, GitObject & { oid: string }>();
  const byOid = new Map<string, GitObject>();
  /** Runs `step` for the delta at `offset`; an ObjectTooLarge (`what`: its result, or its base in the repo) sets it aside. */
  const capped = async <T>(offset: number, what: string, step: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await step();
    } catch (err) {
      if (!(err instanceof ObjectTooLarge)) throw err;
      raws.delete(offset); // named by the refusal below, never resolved
      oversized.push({ size: err.size, what: `${what} of the fetched pack's delta at ${offset}` });
      return undefined;
    }
  };
  const delta = (base: GitObject, offset: number): Promise<GitObject | undefined> => capped(offset, 'the result', async () => ({ type: base.type, data: applyDelta(base.data, raws.get(offset)!.data) }));
  const resolve = async (offset: number, depth = 0): Promise<GitObject | undefined> => {
    const done = resolved.get(offset);
    if (done) return done;
    const raw = raws.get(offset);
    if (!raw) return undefined; // an object over the cap, or a delta based on one
    if (depth > 10_000) throw new Error('delta chain too deep');
    let obj: GitObject | undefined;
    if (raw.type === OFS_DELTA) {
      const base = await resolve(raw.baseOffset!, depth + 1);
      if (base) obj = await delta(base, offset);
    } else if (raw.type === REF_DELTA) {
      const base = byOid.get(raw.baseOid!) ?? (await capped(offset, `the base (${raw.baseOid!.slice(0, 12)}, in this repo)`, () => repoObject(reader, raw.baseOid!)));
      if (base) obj = await delta(base, offset);
    } else {
      const t = PACKED_TYPES[raw.type];
      if (!t) throw new Error(`unknown pack object type ${raw.type}`);
      obj = { type: t, data: raw.data };
    }
    if (obj) {
      const oid = objectId(obj.type, obj.data);
      resolved.set(offset, { ...obj, oid });
      byOid.set(oid, obj);
    }
    return obj;
  };
  // Ref-deltas may name a base that comes later in the pack: repeat until nothing more resolves.
  let pending = order;
  while (pending.length) {
    const next: number[] = [];
    for (const off of pending) if (!(await resolve(off))) next.push(off);
    if (next.length === pending.length) {
      if (oversized.length) break; // deltas on an object over the cap: the refusal below says why
      throw new Error(`${next.length} delta(s) with a missing base`);
    }
    pending = next;
  }
  // NOTE: stored so that an object on disk implies the pack's objects it needs are too (a fetch killed midway
  // must not leave the tip commit without its trees, or the next sync, seeing the commit, skips the fetch):
  // blobs, then trees, then tags, then commits with every parent before its children.
  const rank = { blob: 0, tree: 1, tag: 2, commit: 3 } as const;
  const objs = [...resolved.values()].sort((a, b) => rank[a.type] - rank[b.type]);
  const commits = new Map(objs.filter((o) => o.type === 'commit').map((o) => [o.oid, o]));
  const ordered = objs.filter((o) => o.type !== 'commit');
  const placed = new Set<string>();
  const place = (oid: string): void => {
    // Iterative post-order: parents first, however long the history.
    const stack: { oid: string; expanded: boolean }[] = [{ oid, expanded: false }];
    while (stack.length) {
      const top = stack.pop()!;
      const c = commits.get(top.oid);
      if (!c || placed.has(top.oid)) continue;
      if (top.expanded) {
        placed.add(top.oid);
        ordered.push(c);
        continue;
      }
      stack.push({ oid: top.oid, expanded: true });
      for (const m of c.data.toString('latin1', 0, c.data.indexOf('\n\n') >>> 0).matchAll(/^parent ([0-9a-f]{40})$/gm)) stack.push({ oid: m[1]!, expanded: false });
    }
  };
  for (const oid of commits.keys()) place(oid);
  if (oversized.length) throw oversizedError(oversized, byOid, ordered.filter((o) => o.type === 'commit').map((o) => o.oid).reverse());
  let written = 0;
  for (const obj of ordered) if (writeLooseAs(dir, obj.oid, obj.type, [obj.data])) written++;
  return written;
}

/** Object `oid` from the repo, or undefined when it lacks it; ObjectTooLarge when it has it over the cap. */
async function repoObject(reader: ObjectReader, oid: string): Promise<GitObject | undefined> {
  try {
    return await reader.read(oid);
  } catch (err) {
    if (err instanceof ObjectTooLarge) throw err;
    return undefined;
  }
}

/** An object of a fetched pack over the cap: its size once inflated, how to name it, its id when known. */
interface Oversized {
  size: number;
  what: string;
  oid?: string;
}

/** The refusal of a fetched pack holding objects over the cap: the first a commit of the pack holds (newest first), else the first. */
function oversizedError(oversized: Oversized[], objects: Map<string, GitObject>, commits: string[]): ObjectTooLarge {
  const place = locateOversized(objects, commits, new Set(oversized.map((o) => o.oid).filter((o): o is string => !!o)));
  const first = oversized.find((o) => place && o.oid === place.oid) ?? oversized[0]!;
  const more = oversized.length > 1 ? `, and ${oversized.length - 1} more object(s) over the cap` : '';
  return new ObjectTooLarge(first.size, `${first.what}${more}`, place ?? { oid: first.oid });
}
