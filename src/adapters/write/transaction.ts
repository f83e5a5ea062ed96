/**
 * Contract: the one write transaction of the data repo. Every write runs inside `withWriteLock`, which takes the
 * cross-process lock, finishes whatever a killed writer left in the journal, and hands `fn` a WriteTransaction;
 * only through it are files committed (`commit`: journal, working files written atomically, then blobs, trees
 * and the commit, the branch, the index) or a commit checked out (`checkout`, for sync). A process killed at any
 * point leaves either no trace or a journal that the next writer replays (a commit: all of it or none of it; a
 * checkout: finished), so the repo is always valid and the next write needs no manual help; taking the lock also
 * sweeps the temporary files of dead writers (store/fsutil.ts). Dependencies point one way: this folder uses store/ (lock, journal, files)
 * and git/ (objects, refs, index); neither of them knows about it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { refuseSecretWrite } from '../../core/secrets/guard.js';
import { resolveAuthor, type Author, type CommitIdentity } from '../git/author.js';
import { writeCommitObjects, type FileChange } from '../git/commit.js';
import { blobOid } from '../git/encoding.js';
import { currentBranch, headOid, setRef } from '../git/git.js';
import { updateIndexFile } from '../git/index-file.js';
import { ObjectReader } from '../git/reader.js';
import type { PathChange } from '../git/walk.js';
import { noteCommit, noteWriting, writeEnding } from '../store/commit-events.js';
import { removeTempSiblings, sweepDeadTemps, writeFileAtomic } from '../store/fsutil.js';
import { clearJournal, readJournal, writeJournal, type Journal } from '../store/journal.js';
import { ENTRY_ROOTS, isEntryFilePath, requireDataRepo, safeJoin, writablePath } from '../store/layout.js';
import { idFromPath } from '../../core/format/schema.js';
import { currentNamesKey, patchIdMap } from '../index/ids.js';
import { keepSearchDelta } from '../index/search-docs.js';
import { lockDataRepo } from '../store/lock.js';
import { bringPaths, checkoutCommit, finishCheckout, workingOid, type PathTarget } from './checkout.js';

export { refuseSecretInputs, refuseSecrets } from '../../core/secrets/guard.js';

/** One file to write (content: text, or bytes for an attachment) or delete (null), relative to the data repo. */
export interface PendingFile {
  path: string;
  content: string | Buffer | null;
}

export interface CommitOptions {
  /** fsync each file (default true). */
  fsync?: boolean;
  /** New files written in parallel without the temp-and-rename (import); one that exists is replaced atomically. */
  bulk?: boolean;
  onProgress?: (done: number) => void;
  /** Allow any path of the repo, not just the entry folders, kb.json and hosts.yaml (resolving a conflict). */
  anyPath?: boolean;
  /** Record the commit for the push after the verb when auto_sync is on (default true). */
  record?: boolean;
}

/** What finishing an interrupted write did when the lock was taken. */
export interface Recovery {
  kind: Journal['kind'];
  /** The files committed (a commit) or brought up to date (a checkout). */
  paths: string[];
  commit?: string;
  /** A commit whose files were not all written: every one of them put back as HEAD has it. */
  rolledBack?: string[];
}

/** The writes that may be made while the write lock is held. */
export interface WriteTransaction {
  readonly dir: string;
  /** Set when taking the lock meant finishing a write a killed process left half done. */
  readonly recovered?: Recovery;
  /** The commit author (resolved once per transaction). */
  author(): Author;
  /** Writes the files and commits them as one commit on the current branch; returns the commit id. */
  commit(files: PendingFile[], message: string, options?: CommitOptions): Promise<string>;
  /** Moves the current branch from `from` to `to` with its working files; returns the files changed. */
  checkout(from: string | undefined, to: string, reader: ObjectReader): Promise<PathChange[]>;
}

/** Commits working files that hold their new content already: objects, then the branch, then the index. */
async function commitWritten(dir: string, ref: string, changes: FileChange[], message: string, author: Author): Promise<string> {
  const reader = new ObjectReader(dir);
  try {
    const { commit, blobs } = await writeCommitObjects({ dir, reader, parent: await headOid(dir), changes, message, author });
    await setRef(dir, ref, commit);
    updateIndexFile(dir, blobs);
    return commit;
  } finally {
    reader.close();
  }
}

/**
 * Finishes a commit a killed process left half done, all or nothing: when every journalled path holds the blob
 * the journal names (the files were all written whole), they are committed, as the one commit meant (a commit
 * that already moved the branch only needs its index entries); otherwise every path is put back to HEAD's
 * version, working file and index (a torn or missing file of an import drops the whole import). A journal from
 * before the blobs were named commits what is there.
 */
async function finishCommit(dir: string, journal: Extract<Journal, { kind: 'commit' }>, author: Author): Promise<Recovery> {
  const ref = currentBranch(dir, 'writing');
  for (const p of journal.paths) removeTempSiblings(safeJoin(dir, p));
  const reader = new ObjectReader(dir);
  const changes: FileChange[] = [];
  const same: { path: string; oid: string | null }[] = [];
  const back: PathTarget[] = [];
  let whole = true;
  try {
    const headTree = await reader.treeOf(await headOid(dir));
    for (const [i, p] of journal.paths.entries()) {
      const old = (await reader.blobAt(headTree, p)) ?? undefined;
      const now = workingOid(dir, p);
      back.push({ path: p, oid: old?.oid ?? null, mode: old?.mode });
      if (journal.oids && now !== journal.oids[i]) whole = false;
      if ((old?.oid ?? null) === now) same.push({ path: p, oid: now });
      else if (now === 'not-a-file') whole = false;
      else changes.push({ path: p, content: now === null ? null : fs.readFileSync(safeJoin(dir, p)) });
    }
    if (!whole) {
      await bringPaths(dir, back, reader);
      clearJournal(dir);
      return { kind: 'commit', paths: [], rolledBack: journal.paths };
    }
  } finally {
    reader.close();
  }
  let commit: string | undefined;
  if (changes.length > 0) commit = await commitWritten(dir, ref, changes, journal.message, author);
  if (same.length > 0) updateIndexFile(dir, same);
  clearJournal(dir);
  return { kind: 'commit', paths: changes.map((c) => c.path), commit };
}

/** The folders git-kb writes into: the entry folders and `attachments/` (files an imported vault's notes embed). */
const WRITABLE_ROOTS = [...ENTRY_ROOTS, 'attachments'] as const;

/**
 * Derived state kept in step with a write (adapters/index): the id map gets the entry files just written or
 * removed. NOTE: after the commit, so a kill before it leaves a map whose key no longer matches (rebuilt by the
 * next lookup), never one that names files the commit did not land.
 */
function keepIdMap(dir: string, namesBefore: string, changed: { path: string; deleted: boolean }[]): void {
  const changes: { id: string; path: string; deleted: boolean }[] = [];
  for (const c of changed) {
    if (!isEntryFilePath(c.path)) continue;
    const id = idFromPath(c.path);
    if (id) changes.push({ id, path: c.path, deleted: c.deleted });
  }
  patchIdMap(dir, namesBefore, changes);
}

function checkedPath(dir: string, p: string, anyPath: boolean | undefined): string {
  if (!anyPath && !(WRITABLE_ROOTS as readonly string[]).includes(p.split('/')[0]!) && p !== 'kb.json' && p !== 'hosts.yaml' && p !== '.gitignore') {
    throw new KbError('USAGE', `refusing to write ${p}: outside the data repo's entry folders`);
  }
  return writablePath(dir, p);
}

async function commitFiles(dir: string, author: Author, files: PendingFile[], message: string, options: CommitOptions): Promise<string> {
  // The one secret scan of every byte written into the repo: paths, contents and the commit message.
  refuseSecretWrite(files, message);
  const abs = files.map((f) => checkedPath(dir, f.path, options.anyPath));
  const ref = currentBranch(dir, 'writing');
  const namesBefore = currentNamesKey(dir);
  writeJournal(dir, { kind: 'commit', paths: files.map((f) => f.path), message, oids: files.map((f) => (f.content === null ? null : blobOid(Buffer.from(f.content)))) });
  let done = 0;
  if (options.bulk) {
    // NOTE: a bulk write of NEW files (import) skips the temp-and-rename: the journal names the files and their
    // blobs, the branch moves only once they are all written, and recovery puts the whole import back when a kill
    // left any torn or missing (one commit, all or nothing), so the repo stays valid at a fraction of the cost.
    // Written in turn, not on the thread pool: the file creations queue on the folder's lock anyway, and 1,871
    // promises cost more than they overlapped.
    for (const d of new Set(abs.map((a) => path.dirname(a)))) fs.mkdirSync(d, { recursive: true });
    files.forEach((f, i) => {
      try {
        fs.writeFileSync(abs[i]!, f.content!, { flag: 'wx' });
      } catch (err) {
        // A file that exists already (the .gitignore an import adds lines to) is still replaced atomically.
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        writeFileAtomic(abs[i]!, f.content!, { fsync: false });
      }
      options.onProgress?.(++done);
    });
  } else {
    files.forEach((f, i) => {
      if (f.content === null) fs.rmSync(abs[i]!, { force: true });
      else writeFileAtomic(abs[i]!, f.content, { fsync: options.fsync });
      options.onProgress?.(++done);
    });
  }
  const commit = await commitWritten(dir, ref, files, message, author);
  clearJournal(dir);
  keepIdMap(dir, namesBefore, files.map((f) => ({ path: f.path, deleted: f.content === null })));
  await keepSearchDelta(dir, namesBefore, files);
  // Auto-sync hook point (spec/sync.md): the CLI pushes after the verb when auto_sync is on; hooks never do.
  if (options.record !== false) noteCommit(dir);
  return commit;
}

/**
 * Holds the data repo's write lock around `fn`, finishing any interrupted write first, and hands `fn` the
 * transaction it writes through. `identity` says who commits (Settings' author fields and home folders);
 * `manifest` is for data-repo.ts alone (the commit that makes a git repo a data repo).
 */
export async function withWriteLock<T>(dir: string, fn: (tx: WriteTransaction) => Promise<T>, options: { identity?: CommitIdentity; timeoutMs?: number; manifest?: boolean } = {}): Promise<T> {
  // Nothing is ever committed into a git repo that is not a data repo (kb.json), whoever asks; only the
  // manifest's own commit (data-repo.ts) makes one.
  if (!options.manifest) requireDataRepo(dir);
  const lock = await lockDataRepo(dir, options.timeoutMs);
  noteWriting(dir);
  let open = true;
  let author: Author | undefined;
  const authorOf = (): Author => (author ??= resolveAuthor(dir, options.identity));
  const held = (): void => {
    if (!open) throw new Error(`the write lock of ${dir} was released; write inside withWriteLock`);
  };
  try {
    sweepDeadTemps(dir);
    const journal = readJournal(dir);
    let recovered: Recovery | undefined;
    if (journal?.kind === 'commit') recovered = await finishCommit(dir, journal, authorOf());
    else if (journal?.kind === 'checkout') recovered = { kind: 'checkout', paths: await finishCheckout(dir, journal) };
    return await fn({
      dir,
      recovered,
      author: authorOf,
      commit: (files, message, commitOptions = {}) => {
        held();
        return commitFiles(dir, authorOf(), files, message, commitOptions);
      },
      checkout: async (from, to, reader) => {
        held();
        const namesBefore = currentNamesKey(dir);
        const changed = await checkoutCommit(dir, from, to, reader);
        keepIdMap(dir, namesBefore, changed.map((c) => ({ path: c.path, deleted: c.oid === null })));
        return changed;
      },
    });
  } finally {
    open = false;
    await writeEnding();
    lock.release();
    noteWriting(undefined);
  }
}
