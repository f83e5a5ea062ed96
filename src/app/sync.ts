/**
 * Contract: `sync` and `resolve` of spec/sync.md. `sync` asks the remote for its branch, fetches only when the
 * remote has commits this repo lacks, merges under the write lock (fast-forward, or a merge commit with two
 * parents; nothing is ever lost, conflicts keep both versions), and pushes; a push that lost a race is retried
 * after another fetch and merge. Local commits survive every failure. The result lists conflicts this sync made
 * and every conflict still unresolved; `resolve` settles them with one command.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readConfig } from '../adapters/config/config.js';
import type { Settings } from '../adapters/config/settings.js';
import { findEntryFile } from './find.js';
import { KbError, isKbError } from '../core/errors.js';
import { writeFileAtomic } from '../adapters/store/fsutil.js';
import { commitChanges, headOid, headRef, refOid, remoteUrl, setRef, setRemote } from '../adapters/git/git.js';
import { resolveConflictText, type Keep } from '../core/merge/merge.js';
import { entryFolderNames, readEntryText, safeJoin, stateDir } from '../adapters/store/layout.js';
import { fetchBranch, fetchPack, machineName, PackUnavailable, pushBranch, pushPack, redactUrl, remoteTip, transportFor, transportNote, type RemoteTarget, type Transport } from '../adapters/git/transport.js';
import { nowStamp } from './fields.js';
import { repoForRead, type RepoOptions } from './repo.js';
import {
  checkoutCommit,
  checkoutPending,
  ObjectReader,
  conflictMarksIn,
  hasCommit,
  mergeBases,
  mergeTrees,
  recoverCheckout,
  writeMergeCommit,
  type MergeConflict,
  type PathChange,
} from '../adapters/git/merge-trees.js';
import { buildPack, newCommits, objectsToSend, storePack } from '../adapters/git/objects.js';
import { withWriteLock, writeAndCommit } from '../adapters/store/transaction.js';
import { idFromFileName } from '../core/format/entry.js';

export interface SyncOptions extends RepoOptions {
  /** Push after merging (default true). */
  push?: boolean;
  /** Give up on the network after this long (ms); local work done so far stays. */
  timeoutMs?: number;
  /** Fetch-merge-push rounds before a push that keeps losing races is reported (default 4). */
  maxAttempts?: number;
  /** Test seam: runs just before each push. */
  beforePush?: (attempt: number) => Promise<void>;
}

/** One unresolved conflict: the file, the line of its conflict block, and the entry id when it is an entry. */
export interface ConflictInfo {
  path: string;
  line: number;
  id?: string;
  /** "entry": both versions in the entry; "file": theirs kept in the sibling `path`; "git": markers from plain git. */
  kind: 'entry' | 'file' | 'git';
  /** For kind "file": the file that holds ours. */
  of?: string;
}

export interface SyncResult {
  data_dir: string;
  remote: string;
  url: string;
  branch: string;
  transport: Transport;
  /** "up-to-date": nothing moved either way. */
  status: 'up-to-date' | 'synced';
  head_before: string | null;
  head_after: string | null;
  remote_before: string | null;
  remote_after: string | null;
  fetched: boolean;
  merge: 'none' | 'fast-forward' | 'merge';
  merge_commit: string | null;
  pushed: boolean;
  /** Working files this sync changed. */
  changed: { added: number; modified: number; deleted: number };
  /** Conflicts this sync created. */
  conflicts: ConflictInfo[];
  /** Every conflict still unresolved in the repo after this sync. */
  unresolved: ConflictInfo[];
  notes: string[];
  attempts: number;
  ms: number;
}

const SIBLING = /\.conflict-[0-9a-f]{8}$/;

function conflictsFile(dir: string): string {
  return path.join(stateDir(dir), 'conflicts.json');
}

function infoFor(dir: string, p: string): ConflictInfo[] {
  if (SIBLING.test(p)) {
    if (!fs.existsSync(safeJoin(dir, p))) return [];
    return [{ path: p, line: 1, kind: 'file', of: p.replace(SIBLING, '') }];
  }
  const id = p.endsWith('.md') ? idFromFileName(p.split('/').pop()!) : undefined;
  return conflictMarksIn(dir, p).map((m) => ({ path: p, line: m.line, kind: m.kind === 'git' ? 'git' : 'entry', ...(id ? { id } : {}) }));
}

/** Every conflict in the working files, found by reading them all (lint does the same). */
export function scanConflicts(dir: string): ConflictInfo[] {
  const out: ConflictInfo[] = [];
  for (const name of fs.readdirSync(dir)) if (SIBLING.test(name)) out.push(...infoFor(dir, name));
  for (const { folder: d, names } of entryFolderNames(dir)) {
    for (const name of names) {
      if (name.endsWith('.md') || SIBLING.test(name)) out.push(...infoFor(dir, `${d}/${name}`));
    }
  }
  return out;
}

/**
 * The unresolved conflicts, kept as a list of paths in `.git/git-kb/conflicts.json` so that a sync with nothing to
 * do reads a handful of files, not the repo. `touched` are paths whose content just changed. The first call on a
 * repo (no list yet) scans every file once.
 */
export function trackConflicts(dir: string, touched: string[] = []): ConflictInfo[] {
  let paths: string[] | undefined;
  try {
    const parsed = JSON.parse(fs.readFileSync(conflictsFile(dir), 'utf8')) as unknown;
    if (Array.isArray(parsed) && parsed.every((p) => typeof p === 'string')) paths = parsed;
  } catch {
    // missing or unreadable: scan below
  }
  const listed = paths;
  if (!paths) paths = [...new Set(scanConflicts(dir).map((c) => c.path))];
  const candidates = [...new Set([...paths, ...touched])];
  const infos = candidates.flatMap((p) => infoFor(dir, p));
  const now = [...new Set(infos.map((c) => c.path))].sort();
  if (!listed || JSON.stringify(now) !== JSON.stringify([...listed].sort())) {
    try {
      fs.mkdirSync(stateDir(dir), { recursive: true });
      writeFileAtomic(conflictsFile(dir), JSON.stringify(now), { fsync: false });
    } catch {
      // NOTE: a read-only repo still reports; it just re-checks next time.
    }
  }
  return infos.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}

async function resolveTarget(dir: string, options: SyncOptions, signal?: AbortSignal): Promise<RemoteTarget> {
  let url = await remoteUrl(dir);
  if (!url) {
    const cfg = readConfig(options.settings);
    if (typeof cfg.remote === 'string' && cfg.remote) {
      url = cfg.remote;
      await setRemote(dir, url);
    }
  }
  if (!url) throw new KbError('USAGE', `the data repo ${dir} has no remote to sync with; run "git-kb init --remote URL" (or git -C ${dir} remote add origin URL)`);
  const ref = headRef(dir);
  if (!ref || !ref.startsWith('refs/heads/')) throw new KbError('CONFLICT', `${dir} has a detached HEAD; check out a branch (git checkout main) before syncing`);
  return { dir, remote: 'origin', url, branch: ref.slice('refs/heads/'.length), transport: transportFor(url), signal, timeoutMs: options.timeoutMs ? Math.min(options.timeoutMs, 30_000) : undefined };
}

function countChanges(changes: PathChange[], into: SyncResult['changed']): void {
  for (const c of changes) {
    if (c.oid === null) into.deleted++;
    else if (c.old) into.modified++;
    else into.added++;
  }
}

function conflictInfos(dir: string, list: MergeConflict[]): ConflictInfo[] {
  return list.flatMap((c) => (c.kind === 'entry' ? infoFor(dir, c.path) : c.sibling ? infoFor(dir, c.sibling) : []));
}

/** Pulls the remote branch into the current one (under the lock). */
async function integrate(dir: string, t: RemoteTarget, tip: string, result: SyncResult): Promise<void> {
  await withWriteLock(dir, async () => {
    if (checkoutPending(dir)) await recoverCheckout(dir);
    const reader = new ObjectReader(dir);
    try {
      await pull(reader);
    } catch (err) {
      if (err instanceof KbError) throw err;
      // NOTE: a merge that fails unexpectedly has changed nothing (the branch moves last, after a journal).
      const msg = String((err as Error)?.message ?? err).split('\n')[0];
      throw new KbError('SYNC_FAILED', `could not merge ${t.remote}/${t.branch} (${tip.slice(0, 8)}) into ${t.branch}: ${msg}; nothing was changed and local commits are kept; please report this`, { tip });
    } finally {
      reader.close();
    }
  });

  async function pull(reader: ObjectReader): Promise<void> {
    const head = await headOid(dir);
    if (head === tip) return;
    const read = (oid: string) => reader.commit(oid);
    let target = tip;
    let made: MergeConflict[] = [];
    if (head) {
      const bases = await mergeBases(dir, head, tip, reader);
      if (bases.includes(tip)) return; // we are ahead: nothing to pull
      if (!bases.includes(head)) {
        const label = `${t.remote}/${t.branch} at ${tip.slice(0, 8)}`;
        const baseTrees = await Promise.all(bases.map(async (b) => (await read(b)).tree));
        const m = await mergeTrees(dir, baseTrees, (await read(head)).tree, (await read(tip)).tree, { theirs: label }, reader);
        if (bases.length > 1) result.notes.push(`histories crossed (${bases.length} merge bases): merged file by file against each base`);
        if (bases.length === 0) result.notes.push('the remote history is unrelated to this one: merged with no common base');
        result.notes.push(...m.notes);
        const lines = [`git-kb sync: merge ${t.remote}/${t.branch} into ${t.branch}`, '', `Merged on ${machineName()}: ${m.merged.length} file(s) changed on both sides merged cleanly.`];
        if (m.conflicts.length) {
          lines.push(`Conflicts (both versions kept, see spec/sync.md; settle with git-kb resolve):`);
          for (const c of m.conflicts) lines.push(`- ${c.id ?? c.path}${c.sibling ? ` (theirs in ${c.sibling})` : ''}`);
        }
        for (const n of m.notes) lines.push(`Note: ${n}`);
        target = await writeMergeCommit(dir, m.tree, [head, tip], lines.join('\n'));
        made = m.conflicts;
        result.merge = 'merge';
        result.merge_commit = target;
      } else result.merge = 'fast-forward';
    } else result.merge = 'fast-forward';
    const changes = await checkoutCommit(dir, head, target, reader);
    countChanges(changes, result.changed);
    result.conflicts.push(...conflictInfos(dir, made));
    trackConflicts(dir, changes.filter((c) => c.oid !== null).map((c) => c.path));
  }
}

/** Fetches the remote tip: one pack over HTTP stored as loose objects, the system git otherwise (spec/sync.md). */
async function fetchTip(t: RemoteTarget, tip: string, result: SyncResult): Promise<void> {
  if (t.transport === 'system-git') return fetchBranch(t);
  const haves: string[] = [];
  for (const ref of ['HEAD', `refs/remotes/${t.remote}/${t.branch}`]) {
    const oid = await refOid(t.dir, ref);
    if (oid && (await hasCommit(t.dir, oid))) haves.push(oid);
  }
  const pack = await fetchPack(t, tip, haves);
  const reader = new ObjectReader(t.dir);
  try {
    await storePack(t.dir, pack, reader);
    if (await hasCommit(t.dir, tip)) return;
    throw new Error(`the pack did not hold ${tip.slice(0, 8)}`);
  } catch (err) {
    if (err instanceof KbError) throw err;
    result.notes.push(`fetched again with isomorphic-git's own fetch (${(err as Error).message})`);
    await fetchBranch(t);
  } finally {
    reader.close();
  }
}

/** Pushes HEAD: a pack of just the missing objects over HTTP, the system git otherwise (spec/sync.md). */
async function pushHead(t: RemoteTarget, head: string, tip: string | undefined, result: SyncResult): Promise<void> {
  if (t.transport === 'system-git') return pushBranch(t, head);
  const reader = new ObjectReader(t.dir);
  try {
    await pushPack(t, head, tip, async () => buildPack(reader, await objectsToSend(reader, await newCommits(reader, head, tip))));
  } catch (err) {
    if (!(err instanceof PackUnavailable)) throw err;
    result.notes.push(`pushed with isomorphic-git's own push (${err.message})`);
    await pushBranch(t, head);
  } finally {
    reader.close();
  }
}

/** Runs `git-kb sync`. */
export async function syncRepo(options: SyncOptions): Promise<SyncResult> {
  const started = Date.now();
  const { dir } = repoForRead(options);
  const signal = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
  const t = await resolveTarget(dir, options, signal);
  const result: SyncResult = {
    data_dir: dir,
    remote: t.remote,
    url: redactUrl(t.url),
    branch: t.branch,
    transport: t.transport,
    status: 'up-to-date',
    head_before: (await headOid(dir)) ?? null,
    head_after: null,
    remote_before: null,
    remote_after: null,
    fetched: false,
    merge: 'none',
    merge_commit: null,
    pushed: false,
    changed: { added: 0, modified: 0, deleted: 0 },
    conflicts: [],
    unresolved: [],
    notes: [],
    attempts: 0,
    ms: 0,
  };
  const note = transportNote(t);
  if (note) result.notes.push(note);
  if (checkoutPending(dir)) {
    const fixed = await withWriteLock(dir, () => recoverCheckout(dir));
    if (fixed.length) result.notes.push(`finished an interrupted sync: ${fixed.length} file(s) brought up to date`);
  }
  const maxAttempts = options.maxAttempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    result.attempts = attempt;
    const tip = await remoteTip(t);
    if (attempt === 1) result.remote_before = tip ?? null;
    if (tip) {
      if (!(await hasCommit(dir, tip))) {
        await fetchTip(t, tip, result);
        result.fetched = true;
      }
      const tracking = `refs/remotes/${t.remote}/${t.branch}`;
      if ((await refOid(dir, tracking)) !== tip) await setRef(dir, tracking, tip);
      await integrate(dir, t, tip, result);
    }
    result.remote_after = tip ?? null;
    const head = await headOid(dir);
    if (options.push === false || !head || head === tip) break;
    try {
      await options.beforePush?.(attempt);
      await pushHead(t, head, tip, result);
      result.pushed = true;
      result.remote_after = head;
      break;
    } catch (err) {
      if (isKbError(err, 'PUSH_REJECTED') && err.data.reason === 'not-fast-forward' && attempt < maxAttempts) {
        result.notes.push(`the remote moved on during the push (attempt ${attempt}); fetched and merged again`);
        continue;
      }
      if (isKbError(err, 'PUSH_REJECTED') && err.data.reason === 'not-fast-forward') {
        throw new KbError('PUSH_REJECTED', `${result.url} kept moving: the push lost the race ${attempt} times; local commits (and any merge) are kept, run "git-kb sync" again`, { ...err.data, attempts: attempt });
      }
      throw err;
    }
  }
  result.head_after = (await headOid(dir)) ?? null;
  result.unresolved = trackConflicts(dir);
  if (result.fetched || result.pushed || result.merge !== 'none') result.status = 'synced';
  result.ms = Date.now() - started;
  return result;
}

/** Where the data repo stands against its remote, from what the last sync saw (no network). */
export interface SyncStatus {
  remote?: string;
  url?: string;
  branch?: string;
  /** Commits here that the remote lacked when last seen, and the reverse; undefined before the first sync. */
  ahead?: number;
  behind?: number;
  unresolved: number;
  auto_sync: boolean;
}

/** Reports the sync state for `status` (spec/sync.md): no network, a short walk of recent commits. */
export async function syncStatus(options: RepoOptions): Promise<SyncStatus> {
  const { dir } = repoForRead(options);
  const url = await remoteUrl(dir);
  const cfg = readConfig(options.settings);
  const env = process.env.GIT_KB_AUTO_SYNC;
  const out: SyncStatus = { unresolved: trackConflicts(dir).length, auto_sync: env === '1' || env === 'true' ? true : env === '0' || env === 'false' ? false : cfg.auto_sync === true };
  if (!url) return out;
  out.remote = 'origin';
  out.url = redactUrl(url);
  const ref = headRef(dir);
  if (!ref?.startsWith('refs/heads/')) return out;
  out.branch = ref.slice('refs/heads/'.length);
  const head = await headOid(dir);
  const tracking = await refOid(dir, `refs/remotes/origin/${out.branch}`);
  if (!head || !tracking) return out;
  const reader = new ObjectReader(dir);
  try {
    out.ahead = (await newCommits(reader, head, tracking)).length;
    out.behind = (await newCommits(reader, tracking, head)).length;
  } finally {
    reader.close();
  }
  return out;
}

export interface ResolveOptions extends RepoOptions {
  targets: string[];
  keep?: string;
  all?: boolean;
}

export interface ResolveResult {
  keep: Keep;
  resolved: { target: string; path: string; id?: string }[];
  commit: string | null;
  unresolved: ConflictInfo[];
}

/** Settles conflicts: for each entry id or file, keep ours, theirs, or both (entries only). One commit. */
export async function resolveConflicts(options: ResolveOptions): Promise<ResolveResult> {
  const keep = options.keep as Keep;
  if (!['ours', 'theirs', 'both'].includes(options.keep ?? '')) throw new KbError('USAGE', `--keep must be ours, theirs or both (got ${JSON.stringify(options.keep ?? null)}); "ours" is the version the file holds, "theirs" the one in the conflict block`);
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async () => {
    let targets = options.targets;
    if (options.all) targets = [...new Set(trackConflicts(dir).map((c) => c.id ?? c.of ?? c.path))];
    if (targets.length === 0) throw new KbError('USAGE', options.all ? 'no unresolved conflicts' : 'name the entry ids or files to resolve (or --all)');
    const entryFiles: { path: string; content: string | null }[] = [];
    const otherFiles: { path: string; content: string | null }[] = [];
    const resolved: ResolveResult['resolved'] = [];
    for (const target of targets) {
      if (/^kb-[0-9a-z]+$/.test(target)) {
        const file = findEntryFile(dir, target);
        const text = readEntryText(dir, file.path);
        let next: string | undefined;
        try {
          next = resolveConflictText(text, keep, file.path, keep === 'both' ? nowStamp() : undefined);
        } catch (err) {
          throw new KbError('CONFLICT', (err as Error).message, { file: file.path });
        }
        if (next === undefined) {
          const git = conflictMarksIn(dir, file.path);
          if (git.length) throw new KbError('CONFLICT', `${file.path}:${git[0]!.line}: these are git's own conflict markers, not a git-kb conflict block; edit the file by hand (keep what you want, delete the marker lines) and commit`, { file: file.path, line: git[0]!.line });
          throw new KbError('NOT_FOUND', `${target} (${file.path}) has no unresolved conflict`, { id: target });
        }
        entryFiles.push({ path: file.path, content: next });
        resolved.push({ target, path: file.path, id: target });
        continue;
      }
      // A file with theirs kept beside it: the file itself or its sibling.
      const rel = target.replace(/\\/g, '/').replace(/^\.\//, '');
      const base = rel.replace(SIBLING, '');
      safeJoin(dir, base);
      const dirOf = base.includes('/') ? base.slice(0, base.lastIndexOf('/')) : '';
      const siblings = fs
        .readdirSync(dirOf ? path.join(dir, dirOf) : dir)
        .filter((n) => SIBLING.test(n) && n.replace(SIBLING, '') === base.split('/').pop())
        .map((n) => (dirOf ? `${dirOf}/${n}` : n))
        .filter((s) => s === rel || rel === base);
      if (siblings.length === 0) throw new KbError('NOT_FOUND', `${target} has no unresolved conflict (no ${base}.conflict-* file beside it)`);
      if (keep === 'both') throw new KbError('USAGE', `--keep both works for entries only; for ${base} keep ours or theirs, or merge ${siblings[0]} into it by hand and delete it`);
      if (keep === 'theirs') {
        if (siblings.length > 1) throw new KbError('CONFLICT', `${base} has ${siblings.length} other versions (${siblings.join(', ')}); name the one to keep`);
        otherFiles.push({ path: base, content: fs.readFileSync(safeJoin(dir, siblings[0]!), 'utf8') });
      }
      for (const s of siblings) otherFiles.push({ path: s, content: null });
      resolved.push({ target, path: base });
    }
    let commit: string | null = null;
    const message = `resolve ${resolved.map((r) => r.id ?? r.path).join(', ')}: keep ${keep}`;
    if (otherFiles.length) {
      for (const f of otherFiles) {
        const abs = safeJoin(dir, f.path);
        if (f.content === null) fs.rmSync(abs, { force: true });
        else writeFileAtomic(abs, f.content);
      }
      commit = await commitChanges({ dir, changes: otherFiles, message });
      const { noteCommit } = await import('../adapters/store/commit-events.js');
      noteCommit(dir);
    }
    if (entryFiles.length) commit = await writeAndCommit(dir, entryFiles, message);
    return { keep, resolved, commit, unresolved: trackConflicts(dir, resolved.map((r) => r.path)) };
  });
}

/**
 * The push after a CLI write when auto_sync is on (config `auto_sync: true`, or GIT_KB_AUTO_SYNC=1; =0 turns it
 * off), bounded by `auto_sync_timeout_ms` (default 5000). Never throws: returns lines for stderr. A failure
 * leaves the commit local and says so.
 */
export async function autoSyncAfterWrite(dirs: string[], settings: Settings): Promise<string[]> {
  const env = process.env.GIT_KB_AUTO_SYNC;
  let cfg: ReturnType<typeof readConfig>;
  try {
    cfg = readConfig(settings);
  } catch {
    return [];
  }
  const on = env === '1' || env === 'true' ? true : env === '0' || env === 'false' ? false : cfg.auto_sync === true;
  if (!on) return [];
  const timeoutMs = typeof cfg.auto_sync_timeout_ms === 'number' && cfg.auto_sync_timeout_ms > 0 ? cfg.auto_sync_timeout_ms : 5000;
  const out: string[] = [];
  for (const dir of dirs) {
    try {
      if (!(await remoteUrl(dir))) continue;
      const r = await syncRepo({ data: dir, settings, timeoutMs });
      let line = `auto-sync: ${r.status === 'up-to-date' ? 'already up to date' : `synced with ${r.remote}${r.pushed ? ' (pushed)' : ''}`}`;
      if (r.unresolved.length) line += `; ${r.unresolved.length} conflict(s) to settle (git-kb sync shows them)`;
      out.push(line);
    } catch (err) {
      const msg = err instanceof KbError ? err.message : String((err as Error)?.message ?? err);
      out.push(`auto-sync failed (${err instanceof KbError ? err.code : 'INTERNAL'}): ${msg}; the commit is kept locally, run "git-kb sync" later`);
    }
  }
  return out;
}
