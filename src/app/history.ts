/**
 * Contract: `history` lists the commits that changed one entry; `restore` brings back an earlier version as a
 * new commit (nothing is rewritten), validated and secret-scanned like any write. An id no file in the entry
 * folders claims is looked up in git history: a deleted entry's history ends with the commit that deleted it,
 * and `restore` brings back its last version before that (or its version at `--to`).
 */
import fs from 'node:fs';
import { headOid, readFileAt, resolveRevision, type HistoryItem } from '../adapters/git/git.js';
import { commitItem, fileHistory } from '../adapters/git/file-log.js';
import { walkNewestFirst } from '../adapters/git/walk.js';
import { rawFilesNamed } from '../adapters/git/encoding.js';
import { ObjectReader } from '../adapters/git/reader.js';
import { KbError } from '../core/errors.js';
import { idFromFileName, isValidId } from '../core/format/schema.js';
import { isEntryFilePath, readEntryText, safeJoin, type EntryFile } from '../adapters/store/layout.js';
import { filesById, findEntryFile } from './find.js';
import { validateEntryText } from './fields.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { refuseForbidden } from './guard.js';
import { refuseSecrets, withWriteLock } from '../adapters/write/transaction.js';

/** Where a deleted entry was last: its path, the newest commit that had it, and the commit that removed it. */
export interface DeletedEntry {
  path: string;
  /** The newest commit whose tree has the file (its last version). */
  last: string;
  /** The commit that removed it; undefined when HEAD still has it (deleted from the working files, not committed). */
  deletedIn?: string;
}

/**
 * The name of the regular file claiming `id` in one entry folder's raw tree, if any. NOTE: the bytes are searched
 * (rawFilesNamed), not parsed: a walk over the whole history reads one entries/ tree per commit.
 */
function nameIn(raw: Buffer, id: string): string | undefined {
  for (const e of rawFilesNamed(raw, id)) if (e.mode !== '120000' && idFromFileName(e.name) === id) return e.name;
  return undefined;
}

/** The path of entry `id` in one commit's tree (entries/, hosts/<key>/, sessions/<yyyy>/<mm>/), if it has one. */
async function entryPathIn(reader: ObjectReader, tree: string, id: string, cache: Map<string, string | null>): Promise<string | undefined> {
  const root = await reader.tree(tree);
  const folders: { folder: string; oid: string }[] = [];
  const walk = async (oid: string, folder: string, depth: number): Promise<void> => {
    if (depth === 0) {
      folders.push({ folder, oid });
      return;
    }
    for (const [name, e] of await reader.tree(oid)) if (e.type === 'tree') await walk(e.oid, `${folder}/${name}`, depth - 1);
  };
  for (const [name, depth] of [['entries', 0], ['hosts', 1], ['sessions', 2]] as const) {
    const e = root.get(name);
    if (e?.type === 'tree') await walk(e.oid, name, depth);
  }
  for (const { folder, oid } of folders) {
    const key = `${oid}\0${folder}`;
    let hit = cache.get(key);
    if (hit === undefined) {
      // NOTE: read, not reader.tree: that would keep every version of entries/ in memory over a long walk.
      const { type, data } = await reader.read(oid);
      const name = type === 'tree' ? nameIn(data, id) : undefined;
      hit = name && isEntryFilePath(`${folder}/${name}`) ? `${folder}/${name}` : null;
      cache.set(key, hit);
    }
    if (hit) return hit;
  }
  return undefined;
}

/**
 * A deleted entry, found by walking the commits from HEAD newest first (by committer time, every parent, as
 * `git log` does): the first commit whose tree has a file claiming `id` holds its last version, and the commit
 * the walk came from is the one that deleted it. Undefined when no commit ever had it. `from`: start there, not
 * at HEAD.
 */
export async function findDeletedEntry(dir: string, id: string, from?: string): Promise<DeletedEntry | undefined> {
  const head = from ?? (await headOid(dir));
  if (!head) return undefined;
  const cache = new Map<string, string | null>();
  let found: DeletedEntry | undefined;
  await walkNewestFirst(dir, head, async (reader, oid, commit, child) => {
    const p = await entryPathIn(reader, commit.tree, id, cache);
    if (!p) return commit.parents;
    found = { path: p, last: oid, deletedIn: child };
    return 'stop';
  });
  return found;
}

/** The entry's file now, or (when no file claims the id) where history last had it; the NOT_FOUND stands when it never existed. */
async function liveOrDeleted(dir: string, id: string, ids: Map<string, EntryFile[]>): Promise<{ path: string; deleted?: DeletedEntry }> {
  try {
    return { path: findEntryFile(dir, id, ids).path };
  } catch (err) {
    if (!(err instanceof KbError) || err.code !== 'NOT_FOUND' || !isValidId(id)) throw err;
    const gone = await findDeletedEntry(dir, id);
    if (!gone) throw new KbError('NOT_FOUND', `no entry with id ${id}, now or in the data repo's history; "git-kb search" or "git-kb list" shows what exists`, { id });
    return { path: gone.path, deleted: gone };
  }
}

/** The subject of the commit `restore` makes when it brings back a deleted entry. */
const restoredSubject = (id: string): RegExp => new RegExp(`^restore deleted ${id} to [0-9a-f]{12}$`);

/**
 * The commits of one entry, newest first, as `git log -- PATH` gives them; for a deleted entry, the deleting
 * commit first (`deleted`). A history that begins with `restore` bringing the entry back goes on with the
 * history before its deletion (only then: looking further back for an id would walk the whole history).
 */
export async function entryHistory(options: RepoOptions & { id: string }): Promise<{ id: string; path: string; commits: HistoryItem[]; deleted?: string }> {
  const { dir } = repoForRead(options);
  const { id } = options;
  const f = await liveOrDeleted(dir, id, filesById(dir));
  const commits: HistoryItem[] = [];
  let part: { path: string; ref?: string; deletedIn?: string } = { path: f.path, ref: f.deleted?.last, deletedIn: f.deleted?.deletedIn };
  const reader = new ObjectReader(dir);
  try {
    for (;;) {
      if (part.deletedIn && !commits.some((c) => c.commit === part.deletedIn)) commits.push(await commitItem(reader, part.deletedIn));
      for (const c of await fileHistory(dir, part.path, 200, part.ref)) if (!commits.some((x) => x.commit === c.commit)) commits.push(c);
      const oldest = commits.at(-1);
      if (!oldest || commits.length >= 200 || !restoredSubject(id).test(oldest.message.split('\n')[0]!)) break;
      const parent = (await reader.commit(oldest.commit)).parents[0];
      const gone = parent ? await findDeletedEntry(dir, id, parent) : undefined;
      if (!gone) break;
      part = { path: gone.path, ref: gone.last, deletedIn: gone.deletedIn ?? parent };
    }
  } finally {
    reader.close();
  }
  return { id, path: f.path, commits, ...(f.deleted?.deletedIn ? { deleted: f.deleted.deletedIn } : {}) };
}

export interface RestoreResult {
  id: string;
  path: string;
  from: string;
  commit?: string;
  changed: boolean;
  /** Set when the entry had been deleted: the commit that deleted it. */
  deleted?: string;
}

/**
 * Restores an entry to its content at `to` (default: the version before the latest change; for a deleted entry,
 * its last version before the deletion).
 */
export async function restoreEntry(options: RepoOptions & { id: string; to?: string }): Promise<RestoreResult> {
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const ids = filesById(dir);
    const f = await liveOrDeleted(dir, options.id, ids);
    // NOTE: resolved once, so `from` and the commit message name the commit, not a name like HEAD~1 that moves.
    let rev = options.to === undefined ? undefined : await resolveRevision(dir, options.to);
    if (!rev && f.deleted) rev = f.deleted.last;
    if (!rev) {
      const commits = await fileHistory(dir, f.path);
      if (commits.length < 2) throw new KbError('NOT_FOUND', `${options.id} has no earlier version to restore (history has ${commits.length} commit)`);
      rev = commits[1]!.commit;
    }
    const old = await readFileAt(dir, rev, f.path);
    if (!old) throw new KbError('NOT_FOUND', `${f.path} did not exist at ${rev}`);
    const text = old.toString('utf8');
    const deleted = f.deleted?.deletedIn ? { deleted: f.deleted.deletedIn } : {};
    if (f.deleted) {
      // NOTE: no file claims the id (else it would not count as deleted), but the path may hold something else now.
      if (fs.existsSync(safeJoin(dir, f.path))) throw new KbError('CONFLICT', `cannot restore ${options.id}: ${f.path} exists again; move it away first`, { id: options.id, path: f.path });
    } else if (text === readEntryText(dir, f.path)) return { id: options.id, path: f.path, from: rev, changed: false };
    validateEntryText(text, f.path, (x) => ids.has(x) || x === options.id);
    refuseSecrets(text, f.path);
    await refuseForbidden(dir, [{ text, where: f.path }]);
    const what = f.deleted ? `restore deleted ${options.id}` : `restore ${options.id}`;
    const commit = await tx.commit([{ path: f.path, content: text }], `${what} to ${rev.slice(0, 12)}`);
    return { id: options.id, path: f.path, from: rev, commit, changed: true, ...deleted };
  }, { identity: options.settings });
}
