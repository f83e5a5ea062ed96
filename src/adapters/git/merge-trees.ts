/**
 * Contract: merging two commits of the data repo without touching unrelated files (spec/sync.md, "Merge").
 * The merged tree is computed from the trees (subtrees that one side left alone are taken whole, so a merge costs
 * what changed, not the size of the repo), each file that both sides changed goes through src/merge.ts, and only
 * the working files that differ from HEAD are rewritten, with the index updated for just those paths. Several
 * merge bases (criss-cross histories) are handled file by file; unrelated histories merge with no base at all.
 * A checkout is journalled so that a killed process is finished by the next sync.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import * as git from 'isomorphic-git';
import { blobOid, gfs, headRef, resolveAuthor, writeObjectBody } from './git.js';
import { diffTreeEntries, ObjectReader, queueByTime, type TreeEntry } from './objects.js';
import { updateIndexFile } from './index-file.js';
import { KbError } from '../../core/errors.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { conflictOpenLine, findConflicts, mergeDataFile, mergeEntryText } from '../../core/merge/merge.js';
import { ENTRY_ROOTS, safeJoin, stateDir } from '../store/layout.js';
import { idFromFileName } from '../../core/format/entry.js';

/** A path whose content changes: the new blob (and mode), or null for a deletion. */
export interface PathChange {
  path: string;
  oid: string | null;
  mode?: string;
  /** The blob the path held before (null: it did not exist). */
  old?: string | null;
}

/** A conflict this merge produced. */
export interface MergeConflict {
  path: string;
  id?: string;
  /** "entry": both versions in the entry file; "file": theirs stored beside ours in `sibling`; "type": a file and a folder. */
  kind: 'entry' | 'file' | 'type';
  sibling?: string;
}

export interface TreeMerge {
  tree: string;
  conflicts: MergeConflict[];
  notes: string[];
  /** Files both sides changed that merged cleanly. */
  merged: string[];
}

export { ObjectReader };

async function writeTree(dir: string, entries: TreeEntry[]): Promise<string> {
  const key = (e: TreeEntry): string => (e.type === 'tree' ? `${e.path}/` : e.path);
  const sorted = [...entries].sort((a, b) => Buffer.compare(Buffer.from(key(a)), Buffer.from(key(b))));
  const parts: Buffer[] = [];
  for (const e of sorted) parts.push(Buffer.from(`${e.mode === '040000' ? '40000' : e.mode} ${e.path}\0`), Buffer.from(e.oid, 'hex'));
  return writeObjectBody(dir, 'tree', Buffer.concat(parts));
}

function same(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  if (!a || !b) return a === b;
  return a.oid === b.oid && a.mode === b.mode;
}

function isEntryPath(p: string): boolean {
  return (ENTRY_ROOTS as readonly string[]).includes(p.split('/')[0]!) && p.endsWith('.md');
}

/** Labels for the two sides, written into conflict blocks and notes. */
export interface MergeLabels {
  /** e.g. "origin/main at 1a2b3c4d" */
  theirs: string;
}

/**
 * Three-way merge of trees. `bases` are the trees of the merge bases (empty for unrelated histories). Returns
 * the merged tree with the conflicts and notes. Writes blob and tree objects, never refs or working files.
 */
export async function mergeTrees(dir: string, bases: string[], ours: string, theirs: string, labels: MergeLabels, reader = new ObjectReader(dir)): Promise<TreeMerge> {
  const result: TreeMerge = { tree: '', conflicts: [], notes: [], merged: [] };

  const mergeBlob = async (p: string, baseEntries: (TreeEntry | undefined)[], o: TreeEntry, t: TreeEntry): Promise<{ entry: TreeEntry; extra?: TreeEntry }> => {
    const ot = (await reader.blob(o.oid)).toString('utf8');
    const tt = (await reader.blob(t.oid)).toString('utf8');
    const baseTexts: (string | undefined)[] = [];
    for (const b of baseEntries) baseTexts.push(b && b.type === 'blob' ? (await reader.blob(b.oid)).toString('utf8') : undefined);
    const candidates = baseTexts.length ? baseTexts : [undefined];
    const id = isEntryPath(p) ? idFromFileName(p.split('/').pop()!) : undefined;
    // Each side equal to some base (criss-cross): both kept a different resolution; keep both.
    const oIsBase = baseEntries.some((b) => same(b, o));
    const tIsBase = baseEntries.some((b) => same(b, t));
    let best: { text: string; conflict: boolean } | undefined;
    for (const base of oIsBase && tIsBase ? [undefined] : candidates) {
      const m = id ? mergeEntryText(base, ot, tt, p, conflictOpenLine(id, labels.theirs)) : mergeDataFile(base, ot, tt, p);
      if (!best || (best.conflict && !m.conflict)) best = m;
      if (!m.conflict) break;
    }
    const m = best!;
    const oid = m.text === ot ? o.oid : m.text === tt ? t.oid : await writeObjectBody(dir, 'blob', Buffer.from(m.text));
    const entry: TreeEntry = { ...o, oid };
    if (!m.conflict) {
      result.merged.push(p);
      return { entry };
    }
    if (id) {
      result.conflicts.push({ path: p, id, kind: 'entry' });
      return { entry };
    }
    // Not an entry: ours stays in place and theirs goes beside it, so neither file's format breaks.
    const name = `${p.split('/').pop()!}.conflict-${t.oid.slice(0, 8)}`;
    result.conflicts.push({ path: p, kind: 'file', sibling: p.includes('/') ? `${p.slice(0, p.lastIndexOf('/'))}/${name}` : name });
    return { entry, extra: { ...t, path: name } };
  };

  const walk = async (baseTrees: (string | undefined)[], oTree: string | undefined, tTree: string | undefined, prefix: string): Promise<string | undefined> => {
    const o = await reader.tree(oTree);
    const t = await reader.tree(tTree);
    const bs = await Promise.all(baseTrees.map((b) => reader.tree(b)));
    const out: TreeEntry[] = [];
    const names = new Set([...o.keys(), ...t.keys()]);
    for (const b of bs) for (const k of b.keys()) names.add(k);
    for (const name of [...names].sort()) {
      const p = prefix ? `${prefix}/${name}` : name;
      const oe = o.get(name);
      const te = t.get(name);
      const be = bs.map((b) => b.get(name));
      if (same(oe, te)) {
        if (oe) out.push(oe);
        continue;
      }
      const oBase = be.some((b) => same(b, oe));
      const tBase = be.some((b) => same(b, te));
      if (bs.length && oBase && !tBase) {
        if (te) out.push(te);
        else if (oe && oe.type === 'blob' && !isEntryPath(p)) result.notes.push(`${p}: deleted on ${labels.theirs}`);
        continue;
      }
      if (bs.length && tBase && !oBase) {
        if (oe) out.push(oe);
        continue;
      }
      // Both sides changed this name.
      if (oe?.type === 'tree' && te?.type === 'tree') {
        const sub = await walk(be.map((b) => (b?.type === 'tree' ? b.oid : undefined)), oe.oid, te.oid, p);
        if (sub) out.push({ mode: '040000', path: name, oid: sub, type: 'tree' });
        continue;
      }
      if ((!oe || !te) && bs.length === 0) {
        out.push((oe ?? te)!); // unrelated histories: a file only one side has
        continue;
      }
      if (!oe || !te) {
        // Changed on one side, deleted on the other: the change wins, nothing edited is lost.
        const kept = (oe ?? te)!;
        out.push(kept);
        const id = isEntryPath(p) ? idFromFileName(name) : undefined;
        result.notes.push(oe ? `${id ?? p}: deleted on ${labels.theirs} but edited here; kept the edit` : `${id ?? p}: deleted here but edited on ${labels.theirs}; kept the edit`);
        continue;
      }
      if (oe.type === 'blob' && te.type === 'blob') {
        const { entry, extra } = await mergeBlob(p, be, oe, te);
        out.push(entry);
        if (extra) out.push(extra);
        continue;
      }
      // A file on one side and a folder (or submodule) on the other: keep ours, put theirs beside it.
      out.push(oe);
      const name2 = `${name}.conflict-${te.oid.slice(0, 8)}`;
      out.push({ ...te, path: name2 });
      result.conflicts.push({ path: p, kind: 'type', sibling: prefix ? `${prefix}/${name2}` : name2 });
    }
    if (out.length === 0) return undefined;
    // Unchanged from one side: reuse its tree object instead of writing an identical one.
    if (oTree && out.length === o.size && out.every((e) => same(e, o.get(e.path)))) return oTree;
    if (tTree && out.length === t.size && out.every((e) => same(e, t.get(e.path)))) return tTree;
    return writeTree(dir, out);
  };

  result.tree = (await walk(bases, ours, theirs, '')) ?? (await writeTree(dir, []));
  return result;
}

/** The blob changes that turn tree `a` into tree `b` (unchanged entries and subtrees are skipped). */
export async function diffTrees(reader: ObjectReader, a: string | undefined, b: string | undefined, prefix = '', out: PathChange[] = []): Promise<PathChange[]> {
  await diffTreeEntries(reader, a, b, async (name, ea, eb) => {
    const p = prefix ? `${prefix}/${name}` : name;
    const treeA = ea?.type === 'tree' ? ea.oid : undefined;
    const treeB = eb?.type === 'tree' ? eb.oid : undefined;
    if (treeA || treeB) await diffTrees(reader, treeA, treeB, p, out);
    if (ea?.type === 'blob' && eb?.type !== 'blob') out.push({ path: p, oid: null, old: ea.oid });
    if (eb?.type === 'blob') out.push({ path: p, oid: eb.oid, mode: eb.mode, old: ea?.type === 'blob' ? ea.oid : null });
  });
  return out;
}

/**
 * The best common ancestors of two commits, found as git does (walk both histories newest first, stop when only
 * commits already known to be common remain), so the walk costs the divergence, not the whole history.
 */
export async function mergeBases(dir: string, a: string, b: string, reader = new ObjectReader(dir)): Promise<string[]> {
  const read = (oid: string) => reader.commit(oid);
  if (a === b) return [a];
  const P1 = 1;
  const P2 = 2;
  const STALE = 4;
  const RESULT = 8;
  const flags = new Map<string, number>();
  const queue: { oid: string; time: number }[] = [];
  const push = async (oid: string): Promise<void> => {
    const time = (await read(oid)).time;
    queueByTime(queue, oid, time);
  };
  flags.set(a, P1);
  flags.set(b, P2);
  await push(a);
  await push(b);
  const results: string[] = [];
  while (queue.some((q) => !((flags.get(q.oid) ?? 0) & STALE))) {
    const { oid } = queue.shift()!;
    let f = (flags.get(oid) ?? 0) & (P1 | P2 | STALE);
    if ((f & (P1 | P2)) === (P1 | P2)) {
      if (!((flags.get(oid) ?? 0) & RESULT)) {
        flags.set(oid, (flags.get(oid) ?? 0) | RESULT);
        results.push(oid);
      }
      f |= STALE;
    }
    for (const p of (await read(oid)).parents) {
      const pf = flags.get(p) ?? 0;
      if ((pf & f) === f) continue;
      flags.set(p, pf | f);
      await push(p);
    }
  }
  const best = results.filter((r) => !((flags.get(r) ?? 0) & STALE) || results.length === 1);
  const list = best.length ? best : results;
  if (list.length <= 1) return list;
  // Several candidates (criss-cross merges): let isomorphic-git drop those that are ancestors of others.
  return git.findMergeBase({ fs: gfs, dir, oids: [a, b] });
}

function checkoutJournal(dir: string): string {
  return path.join(stateDir(dir), 'sync-checkout.json');
}

interface CheckoutJournal {
  from: string | null;
  to: string;
  paths: string[];
}

async function treeOfCommit(reader: ObjectReader, oid: string | null | undefined): Promise<string | undefined> {
  if (!oid) return undefined;
  return (await reader.commit(oid)).tree;
}

async function blobAt(reader: ObjectReader, tree: string | undefined, p: string): Promise<TreeEntry | undefined> {
  let current = tree;
  const parts = p.split('/');
  for (let i = 0; i < parts.length; i++) {
    if (!current) return undefined;
    const e = (await reader.tree(current)).get(parts[i]!);
    if (!e) return undefined;
    if (i === parts.length - 1) return e.type === 'blob' ? e : undefined;
    current = e.type === 'tree' ? e.oid : undefined;
  }
  return undefined;
}

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

/**
 * Moves the current branch from `from` to commit `to` and brings the working files along (only those that
 * differ). Refuses, before changing anything, when a file it must rewrite has uncommitted changes.
 * The caller holds the write lock.
 */
export async function checkoutCommit(dir: string, from: string | undefined, to: string, reader = new ObjectReader(dir)): Promise<PathChange[]> {
  const ref = headRef(dir);
  if (!ref) throw new KbError('CONFLICT', `${dir} has a detached HEAD; check out a branch (git checkout main) before syncing`);
  const fromTree = await treeOfCommit(reader, from);
  const toTree = await treeOfCommit(reader, to);
  const changes = await diffTrees(reader, fromTree, toTree);
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
  fs.mkdirSync(stateDir(dir), { recursive: true });
  writeFileAtomic(checkoutJournal(dir), JSON.stringify({ from: from ?? null, to, paths: changes.map((c) => c.path) } satisfies CheckoutJournal));
  await git.writeRef({ fs: gfs, dir, ref, value: to, force: true });
  try {
    await writeWorkingFiles(dir, changes, reader);
  } catch (err) {
    const msg = String((err as Error)?.message ?? err).split('\n')[0];
    throw new KbError('SYNC_FAILED', `the branch moved to ${to.slice(0, 8)} but updating the files stopped (${msg}); fix the cause and run "git-kb sync" again, which finishes the update`, { journal: checkoutJournal(dir) });
  }
  fs.rmSync(checkoutJournal(dir), { force: true });
  return changes;
}

/**
 * Finishes a checkout that a killed sync left half done: every journalled file that still holds its old
 * version while HEAD holds another gets HEAD's version. Files changed by hand since are left alone.
 */
export async function recoverCheckout(dir: string): Promise<string[]> {
  let journal: CheckoutJournal;
  try {
    journal = JSON.parse(fs.readFileSync(checkoutJournal(dir), 'utf8')) as CheckoutJournal;
  } catch {
    fs.rmSync(checkoutJournal(dir), { force: true });
    return [];
  }
  const reader = new ObjectReader(dir);
  const head = await git.resolveRef({ fs: gfs, dir, ref: 'HEAD' }).catch(() => undefined);
  const headTree = await treeOfCommit(reader, head);
  const fromTree = await treeOfCommit(reader, journal.from);
  const fixes: PathChange[] = [];
  for (const p of journal.paths) {
    const was = (await blobAt(reader, fromTree, p))?.oid ?? null;
    const want = await blobAt(reader, headTree, p);
    const now = workingOid(dir, p);
    if (now === was && (want?.oid ?? null) !== was) fixes.push({ path: p, oid: want?.oid ?? null, mode: want?.mode });
  }
  if (fixes.length) await writeWorkingFiles(dir, fixes, reader);
  fs.rmSync(checkoutJournal(dir), { force: true });
  return fixes.map((f) => f.path);
}

/** True when a checkout journal is waiting to be finished. */
export function checkoutPending(dir: string): boolean {
  return fs.existsSync(checkoutJournal(dir));
}

/** Writes a merge commit with two parents (author from the usual sources). */
export async function writeMergeCommit(dir: string, tree: string, parents: string[], message: string): Promise<string> {
  const author = await resolveAuthor(dir);
  const when = new Date();
  const stamp = { ...author, timestamp: Math.floor(when.getTime() / 1000), timezoneOffset: when.getTimezoneOffset() };
  return git.writeCommit({ fs: gfs, dir, commit: { tree, parent: parents, author: stamp, committer: stamp, message: message.endsWith('\n') ? message : `${message}\n` } });
}

/** True when the object exists locally. */
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

/** Conflict marks in a working file (entries in conflict form, git's own markers). */
export function conflictMarksIn(dir: string, p: string): { line: number; kind: string }[] {
  try {
    return findConflicts(fs.readFileSync(safeJoin(dir, p), 'utf8'));
  } catch {
    return [];
  }
}
