/**
 * Contract: moving the current branch to another commit and bringing the working files along (the pull of
 * sync): only the files that differ are rewritten, and the index is updated for just those paths. It refuses,
 * before changing anything, when a file it must rewrite has uncommitted changes. The branch moves first, after
 * the journal, so a killed checkout is finished by the next writer, by replaying it: every journalled path gets
 * the branch's version in the work tree (unless changed by hand since; a temp file beside it is removed) AND in the index, and is added to the
 * conflict list to re-check; replaying twice changes nothing more. Runs under the write lock (a
 * WriteTransaction's `checkout`). `bringPaths` is the one idempotent "make these paths hold these blobs" step,
 * shared with the commit's roll-back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { shellQuote } from '../../core/text/shell-quote.js';
import { blobOid, GITLINK } from '../git/encoding.js';
import { currentBranch, headOid, setRef } from '../git/git.js';
import { updateIndexFile } from '../git/index-file.js';
import { ObjectTooLarge } from '../git/pack-read.js';
import { ObjectReader } from '../git/reader.js';
import { diffTrees, type PathChange } from '../git/walk.js';
import { removeTempSiblings, writeFileAtomic } from '../store/fsutil.js';
import { addConflictCandidates } from '../store/conflict-list.js';
import { clearJournal, writeJournal, type Journal } from '../store/journal.js';
import { safeJoin, writablePath } from '../store/layout.js';

/**
 * The blob a working file holds now: null when missing, "not-a-file" for a folder or a FIFO. A symbolic link (a
 * clone made by git, which writes the repo's links as links) holds its target, as git hashes it, so a link the
 * remote changes is not taken for a hand edit; the checkout then writes the new target as a plain file.
 */
export function workingOid(dir: string, p: string): string | null {
  const abs = safeJoin(dir, p);
  try {
    const st = fs.lstatSync(abs);
    if (st.isSymbolicLink()) return blobOid(Buffer.from(fs.readlinkSync(abs)));
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

/**
 * One path and the blob it is to hold (null: absent). Mode GITLINK: a submodule entry, `oid` its commit (null: the
 * entry goes).
 */
export interface PathTarget {
  path: string;
  oid: string | null;
  mode?: string;
}

/**
 * A submodule entry's folder, as git leaves one it has not cloned: made, empty, when the entry comes (its content
 * is never fetched nor checked out), and removed with the folders it leaves empty when the entry goes, if empty.
 */
function bringGitlink(dir: string, c: PathTarget): void {
  const abs = writablePath(dir, c.path);
  if (c.oid === null) {
    try {
      fs.rmdirSync(abs);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return; // not empty, or not a folder: left as it is (as git leaves it)
    }
    removeEmptyParents(dir, c.path);
    return;
  }
  try {
    fs.mkdirSync(abs, { recursive: true });
  } catch (err) {
    // A file changed by hand in the way (a replay keeps it): the index names the submodule all the same.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
  }
}

/**
 * Makes each path hold its target blob: the working file is rewritten (or removed) only where it differs, and the
 * index entry of every path is set to the target, so `git status` is clean for them. A submodule target gets its
 * folder and its index entry (mode 160000, its commit). Targets are applied in order (a path may be both
 * removed and then given anew, as when a file becomes a submodule); its index entry is the last one. Idempotent.
 */
export async function bringPaths(dir: string, targets: PathTarget[], reader: ObjectReader): Promise<void> {
  for (const c of targets) {
    if (c.mode === GITLINK) {
      bringGitlink(dir, c);
      continue;
    }
    if (workingOid(dir, c.path) === c.oid) continue;
    const abs = writablePath(dir, c.path);
    if (c.oid === null) {
      fs.rmSync(abs, { force: true });
      removeEmptyParents(dir, c.path);
      continue;
    }
    const content = await reader.blob(c.oid);
    // NOTE: a symlink in the data repo is written as a plain file holding its target; entries never are links.
    writeFileAtomic(abs, content, { fsync: false, mode: c.mode === '100755' ? 0o755 : 0o644 });
  }
  updateIndexFile(dir, targets.map((c) => ({ path: c.path, oid: c.oid, mode: c.mode })));
}

/** The written paths a checkout must have re-checked for conflicts (its outcome, recorded before the journal goes). */
function noteWritten(dir: string, targets: PathTarget[]): void {
  addConflictCandidates(dir, targets.filter((c) => c.oid !== null && c.mode !== GITLINK).map((c) => c.path));
}

/** A target whose blob is over the object cap, and the refusal that says so. */
interface OverCap {
  path: string;
  err: ObjectTooLarge;
}

/** The targets whose blob is over the object cap (in order; none: empty); every other is read (packed ones stay cached). */
async function overCap(reader: ObjectReader, targets: PathTarget[]): Promise<OverCap[]> {
  const big: OverCap[] = [];
  for (const c of targets) {
    if (c.oid === null || c.mode === GITLINK) continue;
    try {
      await reader.blob(c.oid);
    } catch (err) {
      if (err instanceof ObjectTooLarge) big.push({ path: c.path, err });
      else throw err;
    }
  }
  return big;
}

/**
 * SYNC_FAILED for a commit holding files over the object cap (`big`, the first named): what, where, what was done
 * (`done`), and the way out (`way`).
 */
function tooLarge(dir: string, to: string, big: OverCap[], done = 'Nothing was checked out and the branch did not move', way = `A commit on top that removes the file, pushed by whoever can write to the remote, lets the next sync through; or this repo syncs with another remote ("git -C ${dir} remote set-url origin URL")`): KbError {
  const [{ path: p, err }] = big as [OverCap];
  const more = big.length > 1 ? ` (and ${big.length - 1} more file(s) over the cap: ${big.slice(1, 4).map((b) => b.path).join(', ')}${big.length > 4 ? ', ...' : ''})` : '';
  return new KbError('SYNC_FAILED', `commit ${to.slice(0, 12)} holds ${p}${more}, ${err.message}: a data repo holds notes, not files that size. ${done}. ${way}`, {
    commit: to,
    path: p,
    size: err.size,
    ...(big.length > 1 ? { paths: big.map((b) => b.path) } : {}),
  });
}

/**
 * Moves the current branch from `from` to commit `to` with its working files; returns the files it changed (the
 * submodule entries it adds, changes or removes are brought along, index and empty folder, but not returned).
 */
export async function checkoutCommit(dir: string, from: string | undefined, to: string, reader: ObjectReader): Promise<PathChange[]> {
  const ref = currentBranch(dir, 'syncing');
  const links: PathChange[] = [];
  const changes = await diffTrees(reader, await reader.treeOf(from), await reader.treeOf(to), '', [], links);
  const dirty: string[] = [];
  for (const c of changes) {
    const now = workingOid(dir, c.path);
    if (now !== (c.old ?? null) && now !== c.oid) dirty.push(c.path);
  }
  // A submodule's folder goes where a file of ours is not (one the pull removes was checked above): git refuses to
  // put one over a file it does not track, and so does this.
  const changed = new Set(changes.map((c) => c.path));
  for (const l of links) {
    if (l.oid === null || changed.has(l.path)) continue;
    const now = workingOid(dir, l.path);
    if (now !== null && now !== 'not-a-file') dirty.push(l.path);
  }
  if (dirty.length) {
    throw new KbError(
      'CONFLICT',
      `uncommitted changes in ${dirty.slice(0, 5).join(', ')}${dirty.length > 5 ? ` and ${dirty.length - 5} more` : ''} would be overwritten by the incoming changes; commit them (git -C ${dir} commit -am "...") or undo them, then sync again. Nothing was changed`,
      { files: dirty },
    );
  }
  // Every file it would write is read first: one over the object cap stops the checkout here, before the branch
  // moves, not halfway with a journal every later write would replay.
  const big = await overCap(reader, changes);
  if (big.length) throw tooLarge(dir, to, big);
  writeJournal(dir, { kind: 'checkout', from: from ?? null, to, paths: [...new Set([...changes, ...links].map((c) => c.path))] });
  await setRef(dir, ref, to);
  try {
    // Submodule entries that go first (a file may take the place), those that come last (one may take a file's).
    await bringPaths(dir, [...links.filter((l) => l.oid === null), ...changes, ...links.filter((l) => l.oid !== null)], reader);
    noteWritten(dir, changes);
  } catch (err) {
    const msg = String((err as Error)?.message ?? err).split('\n')[0];
    throw new KbError('SYNC_FAILED', `the branch moved to ${to.slice(0, 8)} but updating the files stopped (${msg}); fix the cause and run "git-kb sync" again, which finishes the update`, { to });
  }
  clearJournal(dir);
  return changes;
}

type CheckoutJournal = Extract<Journal, { kind: 'checkout' }>;

/**
 * Finishes a checkout a killed process left half done, by replaying it against the branch (which moved first, or
 * not at all): every journalled path gets HEAD's version in the work tree (a file changed by hand since, holding
 * neither version, is left as it is) and in the index, and goes on the conflict list. Returns the files rewritten.
 * A journal left by a git-kb from before the size check (checkoutCommit) may have moved the branch to a commit
 * holding a file over the object cap, which no replay can write. Whatever the journal and the branch say, the
 * journal goes (later writes are not held up by it) and this write fails once with SYNC_FAILED naming the commit
 * and the file: undoCheckout when that checkout's branch move can be undone exactly, keepBranch otherwise.
 */
export async function finishCheckout(dir: string, journal: CheckoutJournal): Promise<string[]> {
  for (const p of journal.paths) removeTempSiblings(safeJoin(dir, p));
  const reader = new ObjectReader(dir);
  try {
    const head = await headOid(dir);
    const plan = await replayPlan(reader, dir, head, journal.from, journal.paths);
    const big = await overCap(reader, plan.targets);
    if (!big.length) {
      await replay(dir, plan, reader);
      clearJournal(dir);
      return plan.rewritten;
    }
    // NOTE: big is never empty with no HEAD (every target is then "absent").
    if (journal.from && head === journal.to) return await undoCheckout(dir, reader, { ...journal, from: journal.from }, big);
    return await keepBranch(dir, reader, head!, journal, plan, big);
  } finally {
    reader.close();
  }
}

/**
 * The branch is still where that checkout moved it, from a known commit: it goes back there, the journalled paths
 * with it (hand edits left alone), as if the pull had been refused before moving, as sync now refuses it.
 */
async function undoCheckout(dir: string, reader: ObjectReader, journal: CheckoutJournal & { from: string }, big: OverCap[]): Promise<never> {
  // The files go back first, then the branch, then the journal: killed before the branch moved, the next replay
  // comes here again; after, it finds the paths at HEAD's version.
  await replay(dir, await replayPlan(reader, dir, journal.from, journal.to, journal.paths), reader);
  await setRef(dir, currentBranch(dir, 'syncing'), journal.from);
  clearJournal(dir);
  throw tooLarge(dir, journal.to, big, `An interrupted sync of an earlier git-kb had moved the branch to it; the branch is back at ${journal.from.slice(0, 12)}, its files with it, and the unfinished checkout is dropped, so writes work again`);
}

/**
 * The branch cannot be put back without risk: a first sync (no `from`: there was no commit before it, and which of
 * the files written since were in the work tree before cannot be known) or a branch moved since (its commits are
 * the user's). The branch stays at HEAD; every other journalled path gets HEAD's version; each file over the cap is
 * left as the work tree has it (missing, or an older version or a hand edit), never checked out, its index entry
 * set to HEAD's blob so nothing is staged (git status shows it as changed in the work tree).
 */
async function keepBranch(dir: string, reader: ObjectReader, head: string, journal: CheckoutJournal, plan: ReplayPlan, big: OverCap[]): Promise<never> {
  const skip = new Set(big.map((b) => b.path));
  await replay(dir, { targets: plan.targets.filter((c) => !skip.has(c.path)), byHand: [...plan.byHand, ...plan.targets.filter((c) => skip.has(c.path))], rewritten: [] }, reader);
  clearJournal(dir);
  const why = journal.from ? `the branch has moved on since, to ${head.slice(0, 12)}, so it stays there` : `it was this repo's first sync (no commit before it), so the branch stays there`;
  const files = big.length === 1 ? `${big[0]!.path} is` : `the ${big.length} files over the cap are`;
  throw tooLarge(
    dir,
    head,
    big,
    `An interrupted sync of an earlier git-kb had checked it out; ${why}, its other files are brought up to date, ${files} left as the work tree has ${big.length === 1 ? 'it' : 'them'}, not checked out (git status shows ${big.length === 1 ? 'it' : 'them'} as changed), and the unfinished checkout is dropped, so writes work again`,
    `To drop ${big.length === 1 ? 'it' : 'them'} from the branch, commit the removal: git -C ${shellQuote(dir)} rm -q --cached -- ${big.map((b) => shellQuote(b.path)).join(' ')} && git -C ${shellQuote(dir)} commit -q -m "remove files over 256 MB"`,
  );
}

/** What replaying a checkout toward commit `head` does to each path (`from`: the commit it came from). */
interface ReplayPlan {
  /** The paths to bring to `head`'s version. */
  targets: PathTarget[];
  /** Paths changed by hand since: the file stays, the index follows the branch. */
  byHand: PathTarget[];
  /** The paths whose working file changes. */
  rewritten: string[];
}

async function replayPlan(reader: ObjectReader, dir: string, head: string | undefined, from: string | null, paths: string[]): Promise<ReplayPlan> {
  const headTree = await reader.treeOf(head);
  const fromTree = await reader.treeOf(from);
  const plan: ReplayPlan = { targets: [], byHand: [], rewritten: [] };
  const links: PathTarget[] = [];
  for (const p of paths) {
    const wasEntry = await reader.entryAt(fromTree, p);
    const wantEntry = await reader.entryAt(headTree, p);
    const was = wasEntry?.type === 'blob' ? wasEntry.oid : null;
    const want = wantEntry?.type === 'blob' ? wantEntry : undefined;
    let now = workingOid(dir, p);
    // A submodule entry that goes takes its empty folder first; one that comes (below) gets its folder last.
    if (wasEntry?.type === 'commit' && wantEntry?.type !== 'commit') {
      plan.targets.unshift({ path: p, oid: null, mode: GITLINK });
      if (now === 'not-a-file') now = null;
    }
    if (wantEntry?.type === 'commit') {
      const link = { path: p, oid: wantEntry.oid, mode: GITLINK };
      if (now === null || now === 'not-a-file' || now === was) {
        if (now !== null && now === was) plan.targets.push({ path: p, oid: null });
        links.push(link);
      } else plan.byHand.push(link);
      continue;
    }
    const target = { path: p, oid: want?.oid ?? null, mode: want?.mode };
    if (now === target.oid || now === was) {
      if (now !== target.oid) plan.rewritten.push(p);
      plan.targets.push(target);
    } else plan.byHand.push(target);
  }
  plan.targets.push(...links);
  return plan;
}

/** Carries out a replay plan (the journal stays: the caller removes it once the branch is where it belongs). */
async function replay(dir: string, plan: ReplayPlan, reader: ObjectReader): Promise<void> {
  await bringPaths(dir, plan.targets, reader);
  // NOTE: no stat data for a file left as it is (its working file does not hold the branch's blob), or git would
  // take it for unchanged and hide the hand edit from git status and git commit -a.
  if (plan.byHand.length) updateIndexFile(dir, plan.byHand.map((c) => ({ ...c, differs: true })));
  noteWritten(dir, plan.targets);
}
