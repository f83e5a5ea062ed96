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
import git from 'isomorphic-git';
import { KbError } from './errors.js';
import { atomicFs } from './fsutil.js';
import { updateIndexFile } from './git-index.js';

const gfs = atomicFs;

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
export async function writeBlob(dir: string, content: Buffer): Promise<string> {
  const wrapped = Buffer.concat([Buffer.from(`blob ${content.length}\0`), content]);
  const oid = crypto.createHash('sha1').update(wrapped).digest('hex');
  await git.writeObject({ fs: gfs, dir, type: 'blob', format: 'deflated', object: zlib.deflateSync(wrapped, { level: 1 }), oid });
  return oid;
}

interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

function sortKey(e: TreeEntry): string {
  return e.type === 'tree' ? `${e.path}/` : e.path;
}

async function writeTreeObject(dir: string, entries: TreeEntry[]): Promise<string> {
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(sortKey(a)), Buffer.from(sortKey(b))));
  const parts: Buffer[] = [];
  for (const e of sorted) {
    parts.push(Buffer.from(`${e.mode === '040000' ? '40000' : e.mode} ${e.path}\0`), Buffer.from(e.oid, 'hex'));
  }
  const body = Buffer.concat(parts);
  const wrapped = Buffer.concat([Buffer.from(`tree ${body.length}\0`), body]);
  const oid = crypto.createHash('sha1').update(wrapped).digest('hex');
  await git.writeObject({ fs: gfs, dir, type: 'tree', format: 'deflated', object: zlib.deflateSync(wrapped, { level: 1 }), oid });
  return oid;
}

/** Rebuilds a tree with the given changes (paths relative to it), reading only the subtrees they touch. */
async function applyToTree(dir: string, treeOid: string | undefined, changes: Map<string, string | null>, cache: object): Promise<string | undefined> {
  const entries = new Map<string, TreeEntry>();
  if (treeOid) {
    const { tree } = await git.readTree({ fs: gfs, dir, oid: treeOid, cache });
    for (const e of tree) entries.set(e.path, e as TreeEntry);
  }
  const sub = new Map<string, Map<string, string | null>>();
  for (const [p, oid] of changes) {
    const slash = p.indexOf('/');
    if (slash === -1) {
      if (oid === null) entries.delete(p);
      else entries.set(p, { mode: '100644', path: p, oid, type: 'blob' });
    } else {
      const head = p.slice(0, slash);
      if (!sub.has(head)) sub.set(head, new Map());
      sub.get(head)!.set(p.slice(slash + 1), oid);
    }
  }
  for (const [name, subChanges] of sub) {
    const existing = entries.get(name);
    const newOid = await applyToTree(dir, existing?.type === 'tree' ? existing.oid : undefined, subChanges, cache);
    if (newOid) entries.set(name, { mode: '040000', path: name, oid: newOid, type: 'tree' });
    else entries.delete(name);
  }
  if (entries.size === 0) return undefined;
  return writeTreeObject(dir, [...entries.values()]);
}

/**
 * Commits file changes straight to the current branch: blobs, the touched trees and the commit are written as
 * objects, the branch ref is moved, and the index is updated for just these paths. The working files must
 * already hold the new content (or be gone, for deletions). Returns the commit id.
 */
export async function commitChanges(options: { dir: string; changes: FileChange[]; message: string; author?: Author; now?: Date }): Promise<string> {
  const { dir, changes, message } = options;
  const cache = {};
  const ref = headRef(dir);
  if (!ref) throw new KbError('CONFLICT', `${dir} has a detached HEAD; check out a branch (git checkout main) before writing`);
  const parent = await headOid(dir);
  let baseTree: string | undefined;
  if (parent) baseTree = (await git.readCommit({ fs: gfs, dir, oid: parent, cache })).commit.tree;
  const blobOids = new Map<string, string | null>();
  await Promise.all(
    changes.map(async (c) => {
      blobOids.set(c.path, c.content === null ? null : await writeBlob(dir, Buffer.isBuffer(c.content) ? c.content : Buffer.from(c.content)));
    }),
  );
  const tree = (await applyToTree(dir, baseTree, blobOids, cache)) ?? (await writeTreeObject(dir, []));
  const author = options.author ?? (await resolveAuthor(dir));
  const when = options.now ?? new Date();
  const stamp = { ...author, timestamp: Math.floor(when.getTime() / 1000), timezoneOffset: when.getTimezoneOffset() };
  const oid = await git.writeCommit({
    fs: gfs,
    dir,
    commit: { tree, parent: parent ? [parent] : [], author: stamp, committer: stamp, message: message.endsWith('\n') ? message : `${message}\n` },
  });
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

/** The isomorphic-git module and our atomic fs, for the sync layer (kept inside the git boundary). */
export { git as isogit, gfs };
