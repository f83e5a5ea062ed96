/**
 * Contract: a fast reader of git objects for sync (loose objects and version-2 packs, deltas included), using
 * Node's native zlib; isomorphic-git's reader inflates in JavaScript and re-hashes every object, which made a
 * sync on a 10,000-entry repo spend most of its time re-reading the one large tree. Anything this reader does not
 * understand (an unknown index version, a missing object) falls back to isomorphic-git, so it is never less able.
 * Read-only: objects are written elsewhere.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { writeFileAtomic } from '../store/fsutil.js';
import * as git from 'isomorphic-git';
import { gfs } from './git.js';
import { encodePack, type PackInput } from './pack.js';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface GitObject {
  type: ObjectType;
  data: Buffer;
}

/** One entry of a tree, as isomorphic-git describes it (trees have mode 040000). */
export interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

export interface CommitInfo {
  tree: string;
  parents: string[];
  /** Committer time, seconds since the epoch. */
  time: number;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };

interface Pack {
  pack: string;
  fd?: number;
  size: number;
  count: number;
  fanout: Uint32Array;
  oids: Buffer;
  offsets: Buffer;
  large: Buffer;
}

function loadIndex(idxFile: string): Pack | undefined {
  const buf = fs.readFileSync(idxFile);
  if (buf.readUInt32BE(0) !== 0xff744f63 || buf.readUInt32BE(4) !== 2) return undefined;
  const fanout = new Uint32Array(256);
  for (let i = 0; i < 256; i++) fanout[i] = buf.readUInt32BE(8 + i * 4);
  const count = fanout[255]!;
  const oidsAt = 8 + 1024;
  const offsetsAt = oidsAt + count * 20 + count * 4;
  const pack = idxFile.replace(/\.idx$/, '.pack');
  return {
    pack,
    size: fs.statSync(pack).size,
    count,
    fanout,
    oids: buf.subarray(oidsAt, oidsAt + count * 20),
    offsets: buf.subarray(offsetsAt, offsetsAt + count * 4),
    large: buf.subarray(offsetsAt + count * 4, buf.length - 40),
  };
}

function findOffset(p: Pack, oid: Buffer): number | undefined {
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

function applyDelta(base: Buffer, delta: Buffer): Buffer {
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
  const out = Buffer.allocUnsafe(varint());
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

/** Reads objects of one repository; create one per operation (it caches what it reads). */
export class ObjectReader {
  private packs: Pack[] | undefined;
  private readonly byOffset = new Map<string, GitObject>();
  private readonly trees = new Map<string, Map<string, TreeEntry>>();
  private readonly commits = new Map<string, CommitInfo>();
  private readonly raw = new Map<string, Buffer>();

  constructor(private readonly dir: string) {}

  private loadPacks(): Pack[] {
    if (this.packs) return this.packs;
    const packDir = path.join(this.dir, '.git', 'objects', 'pack');
    const packs: Pack[] = [];
    let names: string[] = [];
    try {
      names = fs.readdirSync(packDir);
    } catch {
      /* no packs */
    }
    for (const n of names) {
      if (!n.endsWith('.idx')) continue;
      try {
        const p = loadIndex(path.join(packDir, n));
        if (p) packs.push(p);
      } catch {
        /* unreadable index: isomorphic-git gets its chance in the fallback */
      }
    }
    this.packs = packs;
    return packs;
  }

  /** Closes pack files. */
  close(): void {
    for (const p of this.packs ?? []) if (p.fd !== undefined) fs.closeSync(p.fd);
    this.packs = undefined;
  }

  private readAt(p: Pack, offset: number): GitObject {
    const key = `${p.pack}:${offset}`;
    const hit = this.byOffset.get(key);
    if (hit) return hit;
    p.fd ??= fs.openSync(p.pack, 'r');
    const head = Buffer.alloc(32);
    fs.readSync(p.fd, head, 0, 32, offset);
    let i = 0;
    let c = head[i++]!;
    const type = (c >> 4) & 7;
    let size = c & 15;
    let shift = 4;
    while (c & 0x80) {
      c = head[i++]!;
      size += (c & 0x7f) * 2 ** shift;
      shift += 7;
    }
    let baseOffset: number | undefined;
    let baseOid: Buffer | undefined;
    if (type === 6) {
      c = head[i++]!;
      let off = c & 127;
      while (c & 128) {
        c = head[i++]!;
        off = (off + 1) * 128 + (c & 127);
      }
      baseOffset = offset - off;
    } else if (type === 7) {
      baseOid = Buffer.from(head.subarray(i, i + 20));
      i += 20;
    }
    const start = offset + i;
    let window = size + 1024 + Math.ceil(size / 100);
    let data: Buffer;
    for (;;) {
      const len = Math.min(window, p.size - start);
      const raw = Buffer.allocUnsafe(len);
      fs.readSync(p.fd, raw, 0, len, start);
      try {
        data = zlib.inflateSync(raw);
        break;
      } catch (err) {
        if (len >= p.size - start) throw err;
        window *= 4;
      }
    }
    let obj: GitObject;
    if (type === 6 || type === 7) {
      const base = type === 6 ? this.readAt(p, baseOffset!) : this.readSync(baseOid!.toString('hex'));
      if (!base) throw new Error(`delta base ${baseOid?.toString('hex')} missing`);
      obj = { type: base.type, data: applyDelta(base.data, data) };
    } else {
      const t = TYPES[type];
      if (!t) throw new Error(`unknown pack object type ${type}`);
      obj = { type: t, data };
    }
    this.byOffset.set(key, obj);
    return obj;
  }

  /** Reads an object with the native reader, or undefined when it is not found there. */
  private readSync(oid: string): GitObject | undefined {
    const loose = path.join(this.dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
    let raw: Buffer | undefined;
    try {
      raw = fs.readFileSync(loose);
    } catch {
      /* not loose */
    }
    if (raw) {
      const buf = zlib.inflateSync(raw);
      const nul = buf.indexOf(0);
      const [type] = buf.subarray(0, nul).toString('latin1').split(' ');
      return { type: type as ObjectType, data: buf.subarray(nul + 1) };
    }
    const bin = Buffer.from(oid, 'hex');
    for (const p of this.loadPacks()) {
      const off = findOffset(p, bin);
      if (off !== undefined) return this.readAt(p, off);
    }
    return undefined;
  }

  /** Reads an object (native first, isomorphic-git as the fallback). Throws when it does not exist. */
  async read(oid: string): Promise<GitObject> {
    try {
      const o = this.readSync(oid);
      if (o) return o;
    } catch {
      // fall through to isomorphic-git
    }
    const r = await git.readObject({ fs: gfs, dir: this.dir, oid, format: 'content' });
    return { type: r.type as ObjectType, data: Buffer.from(r.object as Uint8Array) };
  }

  /** True when the object exists. */
  async has(oid: string): Promise<boolean> {
    try {
      await this.read(oid);
      return true;
    } catch {
      return false;
    }
  }

  /** A tree object's raw content. */
  async rawTree(oid: string): Promise<Buffer> {
    const hit = this.raw.get(oid);
    if (hit) return hit;
    const { type, data } = await this.read(oid);
    if (type !== 'tree') throw new Error(`${oid} is a ${type}, not a tree`);
    this.raw.set(oid, data);
    return data;
  }

  /** A tree's entries by name. */
  async tree(oid: string | undefined): Promise<Map<string, TreeEntry>> {
    if (!oid) return new Map();
    const hit = this.trees.get(oid);
    if (hit) return hit;
    const data = await this.rawTree(oid);
    const map = new Map<string, TreeEntry>();
    let i = 0;
    while (i < data.length) {
      const sp = data.indexOf(0x20, i);
      const nul = data.indexOf(0, sp);
      const mode = data.toString('latin1', i, sp);
      const name = data.toString('utf8', sp + 1, nul);
      const id = data.toString('hex', nul + 1, nul + 21);
      const t = mode === '40000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
      map.set(name, { mode: t === 'tree' ? '040000' : mode.padStart(6, '0'), path: name, oid: id, type: t });
      i = nul + 21;
    }
    this.trees.set(oid, map);
    return map;
  }

  /** A commit's tree, parents and committer time. */
  async commit(oid: string): Promise<CommitInfo> {
    const hit = this.commits.get(oid);
    if (hit) return hit;
    const { type, data } = await this.read(oid);
    if (type !== 'commit') throw new Error(`${oid} is a ${type}, not a commit`);
    const end = data.indexOf('\n\n');
    const head = data.toString('utf8', 0, end === -1 ? data.length : end);
    const info: CommitInfo = { tree: '', parents: [], time: 0 };
    for (const line of head.split('\n')) {
      if (line.startsWith('tree ')) info.tree = line.slice(5);
      else if (line.startsWith('parent ')) info.parents.push(line.slice(7));
      else if (line.startsWith('committer ')) info.time = Number(/ (\d+) [+-]\d{4}$/.exec(line)?.[1] ?? 0);
    }
    this.commits.set(oid, info);
    return info;
  }

  /** A blob's content. */
  async blob(oid: string): Promise<Buffer> {
    const { type, data } = await this.read(oid);
    if (type !== 'blob') throw new Error(`${oid} is a ${type}, not a blob`);
    return data;
  }
}

/** One side of a differing tree entry. */
export interface Side {
  mode: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

interface RawEntry {
  start: number;
  nameStart: number;
  nameEnd: number;
  end: number;
  tree: boolean;
}

function nextEntry(buf: Buffer, i: number): RawEntry | undefined {
  if (i >= buf.length) return undefined;
  const sp = buf.indexOf(0x20, i);
  const nul = buf.indexOf(0, sp);
  // Mode "40000" (5 bytes starting with '4') marks a tree.
  return { start: i, nameStart: sp + 1, nameEnd: nul, end: nul + 21, tree: sp - i === 5 && buf[i] === 0x34 };
}

/** git's tree order: names compared bytewise, a tree's name as if followed by "/". */
function compareEntries(a: Buffer, ea: RawEntry, b: Buffer, eb: RawEntry): number {
  const la = ea.nameEnd - ea.nameStart;
  const lb = eb.nameEnd - eb.nameStart;
  const len = Math.min(la, lb);
  const c = a.compare(b, eb.nameStart, eb.nameStart + len, ea.nameStart, ea.nameStart + len);
  if (c !== 0) return c;
  const ca = la > len ? a[ea.nameStart + len]! : ea.tree ? 0x2f : 0;
  const cb = lb > len ? b[eb.nameStart + len]! : eb.tree ? 0x2f : 0;
  return ca - cb;
}

function side(buf: Buffer, e: RawEntry): Side {
  const mode = buf.toString('latin1', e.start, e.nameStart - 1);
  const type = e.tree ? 'tree' : mode === '160000' ? 'commit' : 'blob';
  return { mode: e.tree ? '040000' : mode.padStart(6, '0'), oid: buf.toString('hex', e.nameEnd + 1, e.end), type };
}

/**
 * Walks two trees side by side in git's order and reports each entry that differs (`a` or `b` undefined when
 * the name is on one side only), never turning an unchanged entry into strings: a diff of two 10,000-entry trees
 * that differ in one file costs a byte comparison per entry.
 */
export async function diffTreeEntries(reader: ObjectReader, a: string | undefined, b: string | undefined, visit: (name: string, a: Side | undefined, b: Side | undefined) => Promise<void>): Promise<void> {
  if (a === b) return;
  const ba = a ? await reader.rawTree(a) : Buffer.alloc(0);
  const bb = b ? await reader.rawTree(b) : Buffer.alloc(0);
  let ea = nextEntry(ba, 0);
  let eb = nextEntry(bb, 0);
  while (ea || eb) {
    if (ea && eb) {
      const c = compareEntries(ba, ea, bb, eb);
      if (c === 0) {
        const same = ea.end - ea.start === eb.end - eb.start && ba.compare(bb, eb.start, eb.end, ea.start, ea.end) === 0;
        if (!same) await visit(ba.toString('utf8', ea.nameStart, ea.nameEnd), side(ba, ea), side(bb, eb));
        ea = nextEntry(ba, ea.end);
        eb = nextEntry(bb, eb.end);
      } else if (c < 0) {
        await visit(ba.toString('utf8', ea.nameStart, ea.nameEnd), side(ba, ea), undefined);
        ea = nextEntry(ba, ea.end);
      } else {
        await visit(bb.toString('utf8', eb.nameStart, eb.nameEnd), undefined, side(bb, eb));
        eb = nextEntry(bb, eb.end);
      }
    } else if (ea) {
      await visit(ba.toString('utf8', ea.nameStart, ea.nameEnd), side(ba, ea), undefined);
      ea = nextEntry(ba, ea.end);
    } else {
      await visit(bb.toString('utf8', eb!.nameStart, eb!.nameEnd), undefined, side(bb, eb!));
      eb = nextEntry(bb, eb!.end);
    }
  }
}

/** Inserts a commit into a queue kept newest first (by committer time), as git's history walks do. */
export function queueByTime(queue: { oid: string; time: number }[], oid: string, time: number): void {
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (queue[mid]!.time >= time) lo = mid + 1;
    else hi = mid;
  }
  queue.splice(lo, 0, { oid, time });
}

/**
 * The commits reachable from `head` and not from `known` (the remote's tip, which the caller has merged), newest
 * first: the walk stops as soon as only commits the remote has are left (as `git rev-list head --not known`).
 */
export async function newCommits(reader: ObjectReader, head: string, known: string | undefined): Promise<string[]> {
  const SEEN = 1;
  const OLD = 2;
  const flags = new Map<string, number>();
  const queue: { oid: string; time: number }[] = [];
  const push = async (oid: string, f: number): Promise<void> => {
    const prev = flags.get(oid) ?? 0;
    if ((prev | f) === prev && prev & SEEN) return;
    flags.set(oid, prev | f | SEEN);
    if (prev & SEEN) return; // already queued: the new flag rides along
    const time = (await reader.commit(oid)).time;
    queueByTime(queue, oid, time);
  };
  await push(head, 0);
  if (known) await push(known, OLD);
  const out: string[] = [];
  while (queue.some((q) => !((flags.get(q.oid) ?? 0) & OLD))) {
    const { oid } = queue.shift()!;
    const f = (flags.get(oid) ?? 0) & OLD;
    if (!f) out.push(oid);
    for (const p of (await reader.commit(oid)).parents) await push(p, f);
  }
  return out;
}

/**
 * The objects the remote lacks for `commits`: each commit, and every tree and blob of its tree that no parent
 * holds at the same path (a subtree equal to a parent's is skipped whole, so the cost follows the change).
 */
export async function objectsToSend(reader: ObjectReader, commits: string[]): Promise<string[]> {
  const out = new Set<string>();
  // One parent: only the entries that differ from it, found without parsing the unchanged ones.
  const walkOne = async (tree: string, parent: string | undefined): Promise<void> => {
    if (tree === parent || out.has(tree)) return;
    out.add(tree);
    await diffTreeEntries(reader, parent, tree, async (_name, a, b) => {
      if (!b || b.type === 'commit') return;
      if (b.type === 'blob') out.add(b.oid);
      else await walkOne(b.oid, a?.type === 'tree' ? a.oid : undefined);
    });
  };
  const walk = async (tree: string, parents: string[]): Promise<void> => {
    if (parents.length <= 1) return walkOne(tree, parents[0]);
    if (parents.includes(tree) || out.has(tree)) return;
    out.add(tree);
    const entries = await reader.tree(tree);
    const parentTrees = await Promise.all(parents.map((p) => reader.tree(p)));
    for (const e of entries.values()) {
      if (e.type === 'commit') continue; // submodule: not ours to send
      const same = parentTrees.map((pt) => pt.get(e.path)).filter((x): x is TreeEntry => x !== undefined && x.type === e.type);
      if (e.type === 'blob') {
        if (!same.some((x) => x.oid === e.oid)) out.add(e.oid);
      } else await walk(e.oid, same.map((x) => x.oid));
    }
  };
  for (const c of commits) {
    out.add(c);
    const info = await reader.commit(c);
    const parentTrees = await Promise.all(info.parents.map(async (p) => (await reader.commit(p)).tree));
    await walk(info.tree, parentTrees);
  }
  return [...out];
}


/** A version-2 packfile of the given objects, whole (no deltas), compressed with native zlib. */
export async function buildPack(reader: ObjectReader, oids: string[]): Promise<Buffer> {
  const objects: PackInput[] = [];
  for (const oid of oids) objects.push((await reader.read(oid)) as PackInput);
  return encodePack(objects).pack;
}

/**
 * Stores the objects of a fetched pack as loose objects (what git does for small fetches), skipping any the repo
 * has. Deltas are resolved against objects in the pack or in the repo. The pack's checksum is verified first;
 * every object id is computed from its content. Returns the number of objects written.
 */
export async function storePack(dir: string, pack: Buffer, reader: ObjectReader): Promise<number> {
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK') throw new Error('not a pack');
  const version = pack.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`pack version ${version}`);
  const sum = crypto.createHash('sha1').update(pack.subarray(0, pack.length - 20)).digest();
  if (!sum.equals(pack.subarray(pack.length - 20))) throw new Error('pack checksum mismatch');
  const count = pack.readUInt32BE(8);
  interface Raw {
    type: number;
    data: Buffer;
    baseOffset?: number;
    baseOid?: string;
  }
  const raws = new Map<number, Raw>();
  const order: number[] = [];
  let i = 12;
  for (let n = 0; n < count; n++) {
    const offset = i;
    let c = pack[i++]!;
    const type = (c >> 4) & 7;
    while (c & 0x80) c = pack[i++]!;
    const raw: Raw = { type, data: Buffer.alloc(0) };
    if (type === 6) {
      c = pack[i++]!;
      let off = c & 127;
      while (c & 128) {
        c = pack[i++]!;
        off = (off + 1) * 128 + (c & 127);
      }
      raw.baseOffset = offset - off;
    } else if (type === 7) {
      raw.baseOid = pack.toString('hex', i, i + 20);
      i += 20;
    }
    const r = zlib.inflateSync(pack.subarray(i, pack.length - 20), { info: true }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
    raw.data = r.buffer;
    i += r.engine.bytesWritten;
    raws.set(offset, raw);
    order.push(offset);
  }
  const resolved = new Map<number, GitObject & { oid: string }>();
  const byOid = new Map<string, GitObject>();
  const finish = (offset: number, obj: GitObject): void => {
    const head = Buffer.from(`${obj.type} ${obj.data.length}\0`);
    const oid = crypto.createHash('sha1').update(head).update(obj.data).digest('hex');
    resolved.set(offset, { ...obj, oid });
    byOid.set(oid, obj);
  };
  const resolve = async (offset: number, depth = 0): Promise<GitObject | undefined> => {
    const done = resolved.get(offset);
    if (done) return done;
    const raw = raws.get(offset)!;
    if (depth > 10_000) throw new Error('delta chain too deep');
    let obj: GitObject | undefined;
    if (raw.type === 6) {
      const base = await resolve(raw.baseOffset!, depth + 1);
      if (base) obj = { type: base.type, data: applyDelta(base.data, raw.data) };
    } else if (raw.type === 7) {
      const base = byOid.get(raw.baseOid!) ?? (await reader.read(raw.baseOid!).catch(() => undefined));
      if (base) obj = { type: base.type, data: applyDelta(base.data, raw.data) };
    } else {
      const t = TYPES[raw.type];
      if (!t) throw new Error(`unknown pack object type ${raw.type}`);
      obj = { type: t, data: raw.data };
    }
    if (obj) finish(offset, obj);
    return obj;
  };
  // Ref-deltas may name a base that comes later in the pack: repeat until nothing more resolves.
  let pending = order;
  while (pending.length) {
    const next: number[] = [];
    for (const off of pending) if (!(await resolve(off))) next.push(off);
    if (next.length === pending.length) throw new Error(`${next.length} delta(s) with a missing base`);
    pending = next;
  }
  let written = 0;
  for (const obj of resolved.values()) {
    const file = path.join(dir, '.git', 'objects', obj.oid.slice(0, 2), obj.oid.slice(2));
    if (fs.existsSync(file)) continue;
    writeFileAtomic(file, zlib.deflateSync(Buffer.concat([Buffer.from(`${obj.type} ${obj.data.length}\0`), obj.data]), { level: 1 }), { fsync: false, mode: 0o444 });
    written++;
  }
  return written;
}
