/**
 * Contract: moving the current branch to another commit and bringing the working files along (the pull of
 * sync): only the files that differ are rewritten, and the index is updated for just those paths. It refuses,
 * before changing anything, when a file it must rewrite has uncommitted changes. The branch moves first, after
 * the journal, so a killed checkout is finished by the next writer: every journalled file that still holds its
 * old version gets the one the branch now has. Runs under the write lock (a WriteTransaction's `checkout`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { blobOid } from '../git/encoding.js';
import { currentBranch, headOid, setRef } from '../git/git.js';
import { updateIndexFile } from '../git/index-file.js';
import { ObjectReader } from '../git/reader.js';
import { diffTrees, type PathChange } from '../git/walk.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { clearJournal, writeJournal, type Journal } from '../store/journal.js';
import { safeJoin } from '../store/layout.js';

/** The blob a working file holds now: null when missing, "not-a-file" for a folder or link. */
function workingOid(dir: string, p: string): string | null {
  const abs = safeJoin(dir, p);
  try {
    const st = fs.lstatSync(abs);
    if (!st.isFile()) return 'not-a-file';
    return blobOid(fs.readFileSync(abs));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw err;
  }
}

function removeEmptyParents(dir: string, p: string): void {
  let d = path.dirname(safeJoin(dir, p));
  const root = path.resolve(dir);
  while (d !== root && d.startsWith(root)) {
    try {
      fs.rmdirSync(d);
    } catch {
      return; // not empty (or gone)
    }
    d = path.dirname(d);
  }
}

async function writeWorkingFiles(dir: string, changes: PathChange[], reader: ObjectReader): Promise<void> {
  for (const c of changes) {
    const abs = safeJoin(dir, c.path);
    if (c.oid === null) {
      fs.rmSync(abs, { force: true });
      removeEmptyParents(dir, c.path);
      continue;
    }
    const content = await reader.blob(c.oid);
    // NOTE: a symlink in the data repo is written as a plain file holding its target; entries never are links.
    writeFileAtomic(abs, content, { fsync: false, mode: c.mode === '100755' ? 0o755 : 0o644 });
  }
  updateIndexFile(dir, changes.map((c) => ({ path: c.path, oid: c.oid })));
}

/** Moves the current branch from `from` to commit `to` with its working files; returns the files it changed. */
export async function checkoutCommit(dir: string, from: string | undefined, to: string, reader: ObjectReader): Promise<PathChange[]> {
  const ref = currentBranch(dir, 'syncing');
  const changes = await diffTrees(reader, await reader.treeOf(from), await reader.treeOf(to));
  const dirty: string[] = [];
  for (const c of changes) {
    const now = workingOid(dir, c.path);
    if (now !== (c.old ?? null) && now !== c.oid) dirty.push(c.path);
  }
  if (dirty.length) {
    throw new KbError(
      'CONFLICT',
      `uncommitted changes in ${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ` and ${dirty.length - 5} more` : ''} would be overwritten by the incoming changes; commit them (git -C ${dir} commit -am "...") or undo them, then sync again. Nothing was changed`,
      { files: dirty },
    );
  }
  writeJournal(dir, { kind: 'checkout', from: from ?? null, to, paths: changes.map((c) => c.path) });
  await setRef(dir, ref, to);
  try {
    await writeWorkingFiles(dir, changes, reader);
  } catch (err) {
    const msg = String((err as Error)?.message ?? err).split('\n')[0];
    throw new KbError('SYNC_FAILED', `the branch moved to ${to.slice(0, 8)} but updating the files stopped (${msg}); fix the cause and run "git-kb sync" again, which finishes the update`, { to });
  }
  clearJournal(dir);
  return changes;
}

/**
 * Finishes a checkout a killed process left half done: every journalled file that still holds its old version
 * while HEAD holds another gets HEAD's version; files changed by hand since are left alone. Returns those fixed.
 */
export async function finishCheckout(dir: string, journal: Extract<Journal, { kind: 'checkout' }>): Promise<string[]> {
  const reader = new ObjectReader(dir);
  try {
    const headTree = await reader.treeOf(await headOid(dir));
    const fromTree = await reader.treeOf(journal.from);
    const fixes: PathChange[] = [];
    for (const p of journal.paths) {
      const was = (await reader.blobAt(fromTree, p))?.oid ?? null;
      const want = await reader.blobAt(headTree, p);
      const now = workingOid(dir, p);
      if (now === was && (want?.oid ?? null) !== was) fixes.push({ path: p, oid: want?.oid ?? null, mode: want?.mode });
    }
    if (fixes.length) await writeWorkingFiles(dir, fixes, reader);
    clearJournal(dir);
    return fixes.map((f) => f.path);
  } finally {
    reader.close();
  }
}
