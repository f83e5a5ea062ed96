/**
 * Contract: `history` lists the commits that changed one entry; `restore` brings back an earlier version as a
 * new commit (nothing is rewritten), validated and secret-scanned like any write.
 */
import { fileHistory, readFileAt, type HistoryItem } from '../adapters/git/git.js';
import { KbError } from '../core/errors.js';
import { readEntryText } from '../adapters/store/layout.js';
import { filesById, findEntryFile } from './find.js';
import { validateEntryText } from './fields.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { refuseForbidden } from './guard.js';
import { refuseSecrets, withWriteLock } from '../adapters/write/transaction.js';

/** The commits of one entry, newest first. */
export async function entryHistory(options: RepoOptions & { id: string }): Promise<{ id: string; path: string; commits: HistoryItem[] }> {
  const { dir } = repoForRead(options);
  const f = findEntryFile(dir, options.id);
  return { id: options.id, path: f.path, commits: await fileHistory(dir, f.path) };
}

export interface RestoreResult {
  id: string;
  path: string;
  from: string;
  commit?: string;
  changed: boolean;
}

/** Restores an entry to its content at `to` (default: the version before the latest change). */
export async function restoreEntry(options: RepoOptions & { id: string; to?: string }): Promise<RestoreResult> {
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const ids = filesById(dir);
    const f = findEntryFile(dir, options.id, ids);
    let rev = options.to;
    if (!rev) {
      const commits = await fileHistory(dir, f.path);
      if (commits.length < 2) throw new KbError('NOT_FOUND', `${options.id} has no earlier version to restore (history has ${commits.length} commit)`);
      rev = commits[1]!.commit;
    }
    const old = await readFileAt(dir, rev, f.path);
    if (!old) throw new KbError('NOT_FOUND', `${f.path} did not exist at ${rev}`);
    const text = old.toString('utf8');
    if (text === readEntryText(dir, f.path)) return { id: options.id, path: f.path, from: rev, changed: false };
    validateEntryText(text, f.path, (x) => ids.has(x));
    refuseSecrets(text, f.path);
    await refuseForbidden(dir, [{ text, where: f.path }]);
    const commit = await tx.commit([{ path: f.path, content: text }], `restore ${options.id} to ${rev.slice(0, 12)}`);
    return { id: options.id, path: f.path, from: rev, commit, changed: true };
  }, { identity: options.settings });
}
