/**
 * Contract: the only module that imports isomorphic-git. Every commit it makes is an ordinary git commit on the
 * current branch that plain git reads (`git log`, `git fsck`, `git status` clean afterwards). Writes go through
 * an fs whose writes are atomic, so a killed process never leaves a torn object, ref or index.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import * as git from 'isomorphic-git';
import { KbError } from '../../core/errors.js';
import { atomicFs, writeFileAtomic } from '../store/fsutil.js';
import { updateIndexFile } from './index-file.js';
import { encodePack, encodePackIndex } from './pack.js';

const gfs = atomicFs;

// NOTE: isomorphic-git (de)compresses through the web CompressionStream/DecompressionStream when the runtime has
// them. In Node, touching those globals loads the whole fetch and web-streams stack (about 12 ms of a 150 ms add)
// to squeeze objects of a few hundred bytes. Hidden, isomorphic-git falls back to its own pako; the bulk paths
// (packs, big trees) use node:zlib directly anyway.
for (const name of ['CompressionStream', 'DecompressionStream']) {
  Object.defineProperty(globalThis, name, { value: undefined, configurable: true, writable: true });
}

export interface Author {
  name: string;
  email: string;
}

/** One file change: new content, or null to delete the path. */
export interface FileChange {
  path: string;
  content: Buffer | string | null;
}

/** True when `dir` is the top of a git work tree (has a `.git` directory). */
export function isRepo(dir: string): boolean {
  try {
    return fs.statSync(path.join(dir, '.git')).isDirectory();
  } catch {
    return false;
  }
}

/** Creates a git repository with `main` as its first branch. */
export async function initRepo(dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  await git.init({ fs: gfs, dir, defaultBranch: 'main' });
}

/** The ref HEAD points at (refs/heads/main), or undefined for a detached HEAD. */
export function headRef(dir: string): string | undefined {
  const text = fs.readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8').trim();
  return text.startsWith('ref: ') ? text.slice(5) : undefined;
}

/** The commit HEAD points at, or undefined in a repo with no commits yet. */
export async function headOid(dir: string): Promise<string | undefined> {
  try {
    return await git.resolveRef({ fs: gfs, dir, ref: 'HEAD' });
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFoundError') return undefined;
    throw err;
  }
}

function readGlobalGitConfig(): Author | undefined {
  for (const file of [path.join(os.homedir(), '.gitconfig'), path.join(process.env.XDG_CONFIG_HOME ?? path.join(os.homedir(), '.config'), 'git', 'config')]) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const section = /^\s*\[user\]([\s\S]*?)(?=^\s*\[|$(?![\s\S]))/m.exec(text)?.[1] ?? '';
    const name = /^\s*name\s*=\s*(.+)$/m.exec(section)?.[1]?.trim();
    const email = /^\s*email\s*=\s*(.+)$/m.exec(section)?.[1]?.trim();
    if (name && email) return { name: name.replace(/^"|"$/g, ''), email: email.replace(/^"|"$/g, '') };
  }
  return undefined;
}

/** The commit author: GIT_AUTHOR_* env, the repo's user.*, the global git config, else git-kb@host. */
export async function resolveAuthor(dir: string): Promise<Author> {
  const env = process.env;
  if (env.GIT_AUTHOR_NAME && env.GIT_AUTHOR_EMAIL) return { name: env.GIT_AUTHOR_NAME, email: env.GIT_AUTHOR_EMAIL };
  const name = (await git.getConfig({ fs: gfs, dir, path: 'user.name' })) as string | undefined;
  const email = (await git.getConfig({ fs: gfs, dir, path: 'user.email' })) as string | undefined;
  if (name && email) return { name, email };
  return readGlobalGitConfig() ?? { name: 'git-kb', email: `git-kb@${os.hostname()}` };
}

/** Hashes and stores a blob (native zlib and sha1: much faster than isomorphic-git's own for bulk work). */
export function writeBlob(dir: string, content: Buffer): Promise<string> {
  return writeObjectBody(dir, 'blob', content);
}

/** Writes an object given its type and body (native sha1 and zlib), returning its id. */
export async function writeObjectBody(dir: string, type: 'blob' | 'tree', body: Buffer): Promise<string> {
  const wrapped = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  const oid = crypto.createHash('sha1').update(wrapped).digest('hex');
  await git.writeObject({ fs: gfs, dir, type, format: 'deflated', object: zlib.deflateSync(wrapped, { level: 1 }), oid });
  return oid;
}

/**
 * The body of a tree object: a loose object is inflated with node's zlib (several times faster than
 * isomorphic-git's pure-JS inflate on a tree of 10,000 entries); a packed one goes through isomorphic-git.
 */
async function readTreeBody(dir: string, oid: string, cache: object): Promise<Buffer> {
  try {
    const raw = zlib.inflateSync(fs.readFileSync(path.join(dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2))));
    const nul = raw.indexOf(0);
    if (raw.toString('latin1', 0, 5) === 'tree ') return raw.subarray(nul + 1);
  } catch {
    // not loose (packed) or unreadable: isomorphic-git knows packs
  }
  const { object } = await git.readObject({ fs: gfs, dir, oid, format: 'content', cache });
  return Buffer.from(object as Uint8Array);
}

/** One entry of a raw tree body: its sort key (name bytes as latin1, `/` appended for trees) and byte range. */
interface RawTreeEntry {
  key: string;
  name: string;
  isTree: boolean;
  start: number;
  end: number;
}

function scanTree(body: Buffer): RawTreeEntry[] {
  const out: RawTreeEntry[] = [];
  let i = 0;
  while (i < body.length) {
    const space = body.indexOf(0x20, i);
    const nul = body.indexOf(0, space);
    const isTree = body[i] === 0x34 && space - i === 5; // "40000"
    const name = body.toString('latin1', space + 1, nul);
    out.push({ key: isTree ? `${name}/` : name, name, isTree, start: i, end: nul + 21 });
    i = nul + 21;
  }
  return out;
}

/** A new tree entry: mode, name and id, or null to delete the name. */
interface TreeChange {
  name: string;
  isTree: boolean;
  oid: string | null;
}

function entryBytes(c: TreeChange): Buffer {
  return Buffer.concat([Buffer.from(`${c.isTree ? '40000' : '100644'} ${c.name}\0`), Buffer.from(c.oid!, 'hex')]);
}

function latin1Key(name: string, isTree: boolean): string {
  return Buffer.from(isTree ? `${name}/` : name).toString('latin1');
}

/**
 * Rebuilds a tree with the given changes (paths relative to it). Unchanged entries are copied as runs of raw
 * bytes in one merge walk, so adding one file to a folder of 10,000 costs a scan and a copy, not 10,000 objects.
 */
async function applyToTree(dir: string, treeOid: string | undefined, changes: Map<string, string | null>, cache: object): Promise<string | undefined> {
  const body = treeOid ? await readTreeBody(dir, treeOid, cache) : Buffer.alloc(0);
  const existing = scanTree(body);
  const direct = new Map<string, TreeChange>();
  const sub = new Map<string, Map<string, string | null>>();
  for (const [p, oid] of changes) {
    const slash = p.indexOf('/');
    if (slash === -1) direct.set(p, { name: p, isTree: false, oid });
    else {
      const head = p.slice(0, slash);
      if (!sub.has(head)) sub.set(head, new Map());
      sub.get(head)!.set(p.slice(slash + 1), oid);
    }
  }
  for (const [name, subChanges] of sub) {
    const key = latin1Key(name, true);
    const old = existing.find((e) => e.key === key);
    const oldOid = old ? body.toString('hex', old.end - 20, old.end) : undefined;
    direct.set(`${name}/`, { name, isTree: true, oid: (await applyToTree(dir, oldOid, subChanges, cache)) ?? null });
  }
  const pending = [...direct.values()].map((c) => ({ c, key: latin1Key(c.name, c.isTree) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const parts: Buffer[] = [];
  let runStart = -1;
  let runEnd = -1;
  const flush = (): void => {
    if (runStart !== -1) parts.push(body.subarray(runStart, runEnd));
    runStart = -1;
  };
  // A name that changes between file and folder has a different key; its old entry is dropped.
  const changedNames = new Set(pending.map((p) => Buffer.from(p.c.name).toString('latin1')));
  let j = 0;
  for (const e of existing) {
    while (j < pending.length && pending[j]!.key < e.key) {
      flush();
      if (pending[j]!.c.oid) parts.push(entryBytes(pending[j]!.c));
      j++;
    }
    if (j < pending.length && pending[j]!.key === e.key) {
      flush();
      if (pending[j]!.c.oid) parts.push(entryBytes(pending[j]!.c));
      j++;
    } else if (changedNames.has(e.name)) {
      flush();
    } else {
      if (runStart === -1) runStart = e.start;
      runEnd = e.end;
    }
  }
  flush();
  for (; j < pending.length; j++) if (pending[j]!.c.oid) parts.push(entryBytes(pending[j]!.c));
  const newBody = Buffer.concat(parts);
  if (newBody.length === 0) return undefined;
  return writeObjectBody(dir, 'tree', newBody);
}

/** Past this many new blobs in one commit, they go into one packfile instead of one loose file each. */
const PACK_THRESHOLD = 64;

/**
 * Writes blobs as one packfile with its index, the way `git` stores objects it receives: one file instead of
 * thousands. The .idx is renamed in last, so a pack without an index is never visible; `git fsck` and
 * isomorphic-git read the result like any pack. Returns the blob ids in input order.
 */
export function writePackedBlobs(dir: string, contents: Buffer[]): string[] {
  const { pack, entries } = encodePack(contents.map((data) => ({ type: 'blob' as const, data })));
  const base = path.join(dir, '.git', 'objects', 'pack', `pack-${pack.subarray(pack.length - 20).toString('hex')}`);
  fs.mkdirSync(path.dirname(base), { recursive: true });
  writeFileAtomic(`${base}.pack`, pack, { mode: 0o444 });
  writeFileAtomic(`${base}.idx`, encodePackIndex(entries, pack), { mode: 0o444 });
  return entries.map((e) => e.oid.toString('hex'));
}

/**
 * Commits file changes straight to the current branch: blobs, the touched trees and the commit are written as
 * objects, the branch ref is moved, and the index is updated for just these paths. The working files must
 * hold the new content (or be gone, for deletions) by the time `workingFiles` settles. Returns the commit id.
 */
export async function commitChanges(options: {
  dir: string;
  changes: FileChange[];
  message: string;
  author?: Author;
  now?: Date;
  /** Settles when the working files are written; awaited before the branch moves (lets bulk writes overlap). */
  workingFiles?: Promise<unknown>;
}): Promise<string> {
  const { dir, changes, message } = options;
  const cache = {};
  const ref = headRef(dir);
  if (!ref) throw new KbError('CONFLICT', `${dir} has a detached HEAD; check out a branch (git checkout main) before writing`);
  const parent = await headOid(dir);
  let baseTree: string | undefined;
  if (parent) baseTree = (await git.readCommit({ fs: gfs, dir, oid: parent, cache })).commit.tree;
  const blobOids = new Map<string, string | null>();
  const written = changes.filter((c) => c.content !== null);
  const buffers = written.map((c) => (Buffer.isBuffer(c.content) ? c.content : Buffer.from(c.content as string)));
  if (written.length > PACK_THRESHOLD) {
    const oids = writePackedBlobs(dir, buffers);
    written.forEach((c, i) => blobOids.set(c.path, oids[i]!));
  } else {
    const oids = await Promise.all(buffers.map((b) => writeBlob(dir, b)));
    written.forEach((c, i) => blobOids.set(c.path, oids[i]!));
  }
  for (const c of changes) if (c.content === null) blobOids.set(c.path, null);
  const tree = (await applyToTree(dir, baseTree, blobOids, cache)) ?? (await writeObjectBody(dir, 'tree', Buffer.alloc(0)));
  const author = options.author ?? (await resolveAuthor(dir));
  const when = options.now ?? new Date();
  const stamp = { ...author, timestamp: Math.floor(when.getTime() / 1000), timezoneOffset: when.getTimezoneOffset() };
  const oid = await git.writeCommit({
    fs: gfs,
    dir,
    commit: { tree, parent: parent ? [parent] : [], author: stamp, committer: stamp, message: message.endsWith('\n') ? message : `${message}\n` },
  });
  await options.workingFiles;
  await git.writeRef({ fs: gfs, dir, ref, value: oid, force: true });
  updateIndexFile(dir, [...blobOids].map(([p, o]) => ({ path: p, oid: o })));
  return oid;
}

/** One commit in an entry's history. */
export interface HistoryItem {
  commit: string;
  date: string;
  author: string;
  message: string;
}

/** The commits that changed `filepath`, newest first (following renames is not needed: paths are stable). */
export async function fileHistory(dir: string, filepath: string, limit = 200): Promise<HistoryItem[]> {
  if (!(await headOid(dir))) return [];
  const log = await git.log({ fs: gfs, dir, filepath, depth: limit, cache: {} });
  return log.map((c) => ({
    commit: c.oid,
    date: new Date(c.commit.author.timestamp * 1000).toISOString(),
    author: `${c.commit.author.name} <${c.commit.author.email}>`,
    message: c.commit.message.trim(),
  }));
}

/** The content of `filepath` at a revision (commit id, short id, branch or tag), or undefined if absent there. */
export async function readFileAt(dir: string, rev: string, filepath: string): Promise<Buffer | undefined> {
  let oid: string;
  try {
    oid = /^[0-9a-f]{4,40}$/.test(rev) ? await git.expandOid({ fs: gfs, dir, oid: rev }) : await git.resolveRef({ fs: gfs, dir, ref: rev });
  } catch {
    throw new KbError('NOT_FOUND', `revision "${rev}" not found in the data repo`);
  }
  try {
    const { blob } = await git.readBlob({ fs: gfs, dir, oid, filepath });
    return Buffer.from(blob);
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFoundError') return undefined;
    throw err;
  }
}

/** The content of a blob by id, or undefined when missing. */
export async function readBlobById(dir: string, oid: string): Promise<Buffer | undefined> {
  try {
    const { blob } = await git.readBlob({ fs: gfs, dir, oid });
    return Buffer.from(blob);
  } catch {
    return undefined;
  }
}

/** The paths and blob ids HEAD holds under the given top-level directories (for recovery and status). */
export async function headFiles(dir: string, prefixes: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const head = await headOid(dir);
  if (!head) return out;
  const cache = {};
  const walk = async (treeOid: string, base: string): Promise<void> => {
    const { tree } = await git.readTree({ fs: gfs, dir, oid: treeOid, cache });
    for (const e of tree) {
      const p = base ? `${base}/${e.path}` : e.path;
      if (e.type === 'tree') {
        if (!base && !prefixes.includes(e.path)) continue;
        await walk(e.oid, p);
      } else if (base) out.set(p, e.oid);
    }
  };
  await walk((await git.readCommit({ fs: gfs, dir, oid: head, cache })).commit.tree, '');
  return out;
}

/** The blob id git would give `content`. */
export function blobOid(content: Buffer): string {
  return crypto.createHash('sha1').update(Buffer.concat([Buffer.from(`blob ${content.length}\0`), content])).digest('hex');
}

/** The configured URL of remote `origin`, if any. */
export async function remoteUrl(dir: string, remote = 'origin'): Promise<string | undefined> {
  return ((await git.getConfig({ fs: gfs, dir, path: `remote.${remote}.url` })) as string | undefined) ?? undefined;
}

/** Sets the URL of remote `origin`. */
export async function setRemote(dir: string, url: string, remote = 'origin'): Promise<void> {
  await git.setConfig({ fs: gfs, dir, path: `remote.${remote}.url`, value: url });
  await git.setConfig({ fs: gfs, dir, path: `remote.${remote}.fetch`, value: `+refs/heads/*:refs/remotes/${remote}/*` });
}

/** The atomic fs every git-layer module hands to isomorphic-git. */
export { gfs };

/** The commit a ref points at, or undefined when the ref does not exist. */
export async function refOid(dir: string, ref: string): Promise<string | undefined> {
  return git.resolveRef({ fs: gfs, dir, ref }).catch(() => undefined);
}

/** Points a ref at a commit (created or moved). */
export async function setRef(dir: string, ref: string, value: string): Promise<void> {
  await git.writeRef({ fs: gfs, dir, ref, value, force: true });
}
