/**
 * Contract: the one reader of git objects (loose objects and version-2 packs, deltas included), using Node's
 * native zlib; isomorphic-git's reader inflates in JavaScript and re-hashes every object, which made a sync on a
 * 10,000-entry repo spend most of its time re-reading the one large tree, and a commit re-read the folder it
 * changes. Anything this reader does not understand (an unknown index version, a missing object) falls back to
 * isomorphic-git, so it is never less able. Read-only: objects are written by objects.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { parseTree, type GitObject, type ObjectType, type TreeEntry } from './encoding.js';
import { gfs, iso } from './git.js';
import { applyDelta, findInPack, inflateCapped, MAX_OBJECT_BYTES, ObjectTooLarge, OFS_DELTA, PACKED_TYPES, parsePackedHeader, parsePackIndex, REF_DELTA, type PackIndex } from './pack-read.js';

export interface CommitInfo {
  tree: string;
  parents: string[];
  /** Committer time, seconds since the epoch. */
  time: number;
}

interface Pack extends PackIndex {
  pack: string;
  fd?: number;
  size: number;
}

function loadPack(idxFile: string): Pack | undefined {
  const index = parsePackIndex(fs.readFileSync(idxFile));
  if (!index) return undefined;
  const pack = idxFile.replace(/\.idx$/, '.pack');
  return { ...index, pack, size: fs.statSync(pack).size };
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
        const p = loadPack(path.join(packDir, n));
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

  /** The object at `offset` of pack `p`; `oid` (when the caller knows it) names it in an ObjectTooLarge. */
  private readAt(p: Pack, offset: number, oid?: string): GitObject {
    const key = `${p.pack}:${offset}`;
    const hit = this.byOffset.get(key);
    if (hit) return hit;
    p.fd ??= fs.openSync(p.pack, 'r');
    const head = Buffer.alloc(32);
    fs.readSync(p.fd, head, 0, 32, offset);
    const h = parsePackedHeader(head, 0, offset);
    const what = oid ? oid.slice(0, 12) : `${path.basename(p.pack)} at ${offset}`;
    if (h.size > MAX_OBJECT_BYTES) throw new ObjectTooLarge(h.size, what);
    const start = offset + h.dataStart;
    let window = h.size + 1024 + Math.ceil(h.size / 100);
    let data: Buffer;
    for (;;) {
      const len = Math.min(window, p.size - start);
      const raw = Buffer.allocUnsafe(len);
      fs.readSync(p.fd, raw, 0, len, start);
      try {
        data = inflateCapped(zlib.inflateSync, raw, { what }); // capped: the header's size may understate it
        break;
      } catch (err) {
        if (err instanceof ObjectTooLarge || len >= p.size - start) throw err;
        window *= 4;
      }
    }
    let obj: GitObject;
    if (h.type === OFS_DELTA || h.type === REF_DELTA) {
      const base = h.type === OFS_DELTA ? this.readAt(p, h.baseOffset!) : this.readSync(h.baseOid!);
      if (!base) throw new Error(`delta base ${h.baseOid} missing`);
      obj = { type: base.type, data: applyDelta(base.data, data) };
    } else {
      const t = PACKED_TYPES[h.type];
      if (!t) throw new Error(`unknown pack object type ${h.type}`);
      obj = { type: t, data };
    }
    this.byOffset.set(key, obj);
    return obj;
  }

  /** Reads an object with the native reader, or undefined when it is not found there. */
  private readSync(oid: string): GitObject | undefined {
    let raw: Buffer | undefined;
    try {
      raw = fs.readFileSync(path.join(this.dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2)));
    } catch {
      /* not loose */
    }
    if (raw) {
      const buf = inflateCapped(zlib.inflateSync, raw, { what: oid.slice(0, 12), extra: 64 }); // the header ("blob 123\0") on top
      const nul = buf.indexOf(0);
      const [type] = buf.subarray(0, nul).toString('latin1').split(' ');
      return { type: type as ObjectType, data: buf.subarray(nul + 1) };
    }
    const bin = Buffer.from(oid, 'hex');
    for (const p of this.loadPacks()) {
      const off = findInPack(p, bin);
      if (off !== undefined) return this.readAt(p, off, oid);
    }
    return undefined;
  }

  /** Reads an object (native first, isomorphic-git as the fallback). Throws when it does not exist. */
  async read(oid: string): Promise<GitObject> {
    try {
      const o = this.readSync(oid);
      if (o) return o;
    } catch (err) {
      if (err instanceof ObjectTooLarge) throw err; // isomorphic-git would read it whole
      // else fall through to isomorphic-git
    }
    const r = await (await iso()).readObject({ fs: gfs, dir: this.dir, oid, format: 'content' });
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

  /** A tree's entries by name (an empty map for no tree). */
  async tree(oid: string | undefined): Promise<Map<string, TreeEntry>> {
    if (!oid) return new Map();
    const hit = this.trees.get(oid);
    if (hit) return hit;
    const map = parseTree(await this.rawTree(oid));
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

  /** The tree of a commit, or undefined for no commit. */
  async treeOf(commit: string | null | undefined): Promise<string | undefined> {
    return commit ? (await this.commit(commit)).tree : undefined;
  }

  /** A blob's content. */
  async blob(oid: string): Promise<Buffer> {
    const { type, data } = await this.read(oid);
    if (type !== 'blob') throw new Error(`${oid} is a ${type}, not a blob`);
    return data;
  }

  /** The blob entry at a path of a tree, or undefined when the path holds none. */
  async blobAt(tree: string | undefined, p: string): Promise<TreeEntry | undefined> {
    const e = await this.entryAt(tree, p);
    return e?.type === 'blob' ? e : undefined;
  }

  /** The entry at a path of a tree (a blob, a subtree or a submodule's commit), or undefined when there is none. */
  async entryAt(tree: string | undefined, p: string): Promise<TreeEntry | undefined> {
    let current = tree;
    const parts = p.split('/');
    for (let i = 0; i < parts.length; i++) {
      if (!current) return undefined;
      const e = (await this.tree(current)).get(parts[i]!);
      if (!e) return undefined;
      if (i === parts.length - 1) return e;
      current = e.type === 'tree' ? e.oid : undefined;
    }
    return undefined;
  }
}

/** True when the object exists locally and is a commit. */
export async function hasCommit(dir: string, oid: string): Promise<boolean> {
  const reader = new ObjectReader(dir);
  try {
    return (await reader.read(oid)).type === 'commit';
  } catch {
    return false;
  } finally {
    reader.close();
  }
}
