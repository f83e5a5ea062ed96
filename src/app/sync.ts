/**
 * Contract: `sync` of spec/sync.md. It asks the remote for its branch, fetches only when the remote has commits
 * this repo lacks, merges under the write lock (sync-merge.ts), and pushes; a push that lost a race is retried
 * after another fetch and merge. Local commits survive every failure. The result lists conflicts this sync made
 * and every conflict still unresolved (conflicts.ts); `resolve` (resolve.ts) settles them. Also the push after a
 * CLI write when auto_sync is on.
 */
import { initCommand } from '../adapters/system/init-hint.js';
import { configRemote, readConfig, type KbConfig } from '../adapters/config/config.js';
import type { Settings } from '../adapters/config/settings.js';
import { currentBranch, headOid, refOid, remoteUrl, setRef, setRemote } from '../adapters/git/git.js';
import { buildPack, storePack } from '../adapters/git/objects.js';
import { ObjectTooLarge } from '../adapters/git/pack-read.js';
import { hasCommit, ObjectReader } from '../adapters/git/reader.js';
import { redactUrl, type RemoteTarget, type Transport } from '../adapters/git/remote.js';
import { fetchPack, PackUnavailable, pushPack } from '../adapters/git/smart-http.js';
import { defaultBranch, fetchBranch, pushBranch, remoteHeads, transportFor, transportNote, type RemoteHeads } from '../adapters/git/transport.js';
import { newCommits, objectsToSend } from '../adapters/git/walk.js';
import { journalPending } from '../adapters/store/journal.js';
import { withWriteLock } from '../adapters/write/transaction.js';
import { isKbError, KbError } from '../core/errors.js';
import { shellQuote } from '../core/text/shell-quote.js';
import { trackConflicts, type ConflictInfo } from './conflicts.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { integrate } from './sync-merge.js';
import { remoteSettings } from './sync-settings.js';

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

async function resolveTarget(dir: string, options: SyncOptions, cfg: KbConfig, signal?: AbortSignal): Promise<RemoteTarget> {
  let url = await remoteUrl(dir);
  const named = url ? undefined : configRemote(cfg);
  if (named) {
    url = named;
    await setRemote(dir, url);
  }
  if (!url) throw new KbError('USAGE', `the data repo ${dir} has no remote to sync with; run "${initCommand(dir)} --remote URL" (or git -C ${dir} remote add origin URL)`);
  const branch = currentBranch(dir, 'syncing').slice('refs/heads/'.length);
  const settings = remoteSettings(options.settings, cfg);
  return { dir, remote: 'origin', url, branch, transport: transportFor(url, settings), settings, signal, timeoutMs: options.timeoutMs ? Math.min(options.timeoutMs, 30_000) : undefined };
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
    // NOTE: never isomorphic-git's fetch for an object over the cap: it would inflate the object whole.
    if (err instanceof ObjectTooLarge) throw fetchedTooLarge(t, tip, err);
    result.notes.push(`fetched again with isomorphic-git's own fetch (${(err as Error).message})`);
    await fetchBranch(t);
  } finally {
    reader.close();
  }
}

/**
 * The refusal of a fetched pack holding a git object over the cap (storePack stored nothing): which object, and
 * the file and commit holding it when the pack's trees say. Nothing moved here. A fetch brings the remote's whole
 * history since this repo's commits, so a commit that removes the file does not let a sync over HTTP through:
 * the object must leave the remote's history, or this repo sync elsewhere.
 */
function fetchedTooLarge(t: RemoteTarget, tip: string, err: ObjectTooLarge): KbError {
  const { oid, commit, path } = err.place;
  const holder = !path ? `the remote's ${t.branch} (commit ${tip.slice(0, 12)}) brings` : commit === tip ? `the remote's ${t.branch} (commit ${tip.slice(0, 12)}) holds ${path},` : `commit ${commit!.slice(0, 12)} of the remote's ${t.branch} (at ${tip.slice(0, 12)}) holds ${path},`;
  return new KbError(
    'SYNC_FAILED',
    `${holder} ${err.message}: a data repo holds notes, not files that size. Nothing was fetched or checked out and the branch did not move. A sync over HTTP(S) fetches the remote's history, so every sync stops here while that history holds the object, even after a commit that removes the file: whoever can write to the remote drops it from the history (for example git filter-repo --strip-blobs-bigger-than 256M, then a forced push), or this repo syncs with another remote ("git -C ${shellQuote(t.dir)} remote set-url ${t.remote} URL"); local commits are kept`,
    { url: redactUrl(t.url), commit: commit ?? tip, path: path ?? null, oid: oid ?? null, size: err.size },
  );
}

/**
 * The error for a remote commit holding a path git-kb never writes (into `.git`, out of the repo, through a
 * symbolic link): nothing was merged, and each sync stops here until the remote is repaired, so say how.
 */
function unwritableTree(err: unknown, t: RemoteTarget, tip: string): KbError | undefined {
  const p = err instanceof KbError ? err.data?.unwritable : undefined;
  if (typeof p !== 'string') return undefined;
  return new KbError(
    'SYNC_FAILED',
    `the remote's ${t.branch} (commit ${tip.slice(0, 12)}) holds "${p}", a path git-kb never writes (inside .git, outside the data repo, or through a symbolic link): nothing was merged or changed here, and local commits are kept. Every sync stops here until the remote is repaired (a commit on top that removes ${shellQuote(p)}, pushed by whoever can write there) or this repo syncs with another remote ("git -C ${shellQuote(t.dir)} remote set-url ${t.remote} URL")`,
    { url: redactUrl(t.url), commit: tip, path: p },
  );
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

/**
 * The refusal to push a branch the remote lacks while it has others (spec/sync.md, "One branch"): it names both
 * sides and the fix, renaming this branch to the remote's, after which sync merges the two histories as usual.
 */
function branchSplit(t: RemoteTarget, url: string, heads: RemoteHeads): KbError {
  const local = t.branch;
  const theirs = defaultBranch(heads.branches, heads.head);
  const names = heads.branches.map((b) => `"${b}"`).join(', ');
  const rename = theirs
    ? `git -C ${t.dir} branch -m ${local} ${theirs}`
    : `rename it to the branch that holds the knowledge base, git -C ${t.dir} branch -m ${local} NAME (NAME one of ${names})`;
  return new KbError(
    'CONFLICT',
    `${url} has no branch "${local}" (the branch checked out in ${t.dir}) but has ${names}: syncing would push "${local}" as a second branch, and each machine would sync only its own, never seeing the other's notes. Nothing was pushed; every machine must sync the same branch. Fix: ${rename}, then "git-kb sync" again (it merges the two histories, unrelated ones too; nothing is lost). To keep "${local}" as a separate branch on purpose, push it once yourself: git -C ${t.dir} push origin ${local}. Local commits are kept`,
    { url, branch: local, remote_branches: heads.branches, remote_branch: theirs ?? null },
  );
}

/** Runs `git-kb sync`. */
export async function syncRepo(options: SyncOptions): Promise<SyncResult> {
  const started = Date.now();
  const { dir } = repoForRead(options);
  const signal = options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined;
  const t = await resolveTarget(dir, options, readConfig(options.settings), signal);
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
  if (journalPending(dir)) {
    // Taking the lock finishes what a killed writer left (a sync's checkout, or any other write).
    const recovered = await withWriteLock(dir, async (tx) => tx.recovered, { identity: options.settings });
    if (recovered?.kind === 'checkout' && recovered.paths.length) result.notes.push(`finished an interrupted sync: ${recovered.paths.length} file(s) brought up to date`);
  }
  // Hand edits of entry files are committed first, as `git-kb commit` does (and refused the same way).
  const { commitWorkingChanges } = await import('./commit.js');
  const hand = await withWriteLock(dir, (tx) => commitWorkingChanges(dir, tx), { identity: options.settings }).catch((err: unknown) => {
    if (err instanceof KbError) throw new KbError(err.code, `sync stopped before pulling: ${err.message}`, err.data);
    throw err;
  });
  if (hand.commit) result.notes.push(`committed ${hand.files.length} hand edit(s) first (commit ${hand.commit.slice(0, 12)})`);
  const maxAttempts = options.maxAttempts ?? 4;
  for (let attempt = 1; ; attempt++) {
    result.attempts = attempt;
    const heads = await remoteHeads(t);
    const tip = heads.tip;
    // NOTE: a remote that lacks this branch but has others is not empty: pushing would start a second branch there,
    // and each machine would go on syncing its own without ever seeing the other's notes.
    if (!tip && heads.branches.length) throw branchSplit(t, result.url, heads);
    if (attempt === 1) result.remote_before = tip ?? null;
    if (tip) {
      if (!(await hasCommit(dir, tip))) {
        await fetchTip(t, tip, result);
        result.fetched = true;
      }
      const tracking = `refs/remotes/${t.remote}/${t.branch}`;
      if ((await refOid(dir, tracking)) !== tip) await setRef(dir, tracking, tip);
      await integrate(t, tip, result, options.settings).catch((err: unknown) => {
        throw unwritableTree(err, t, tip) ?? err;
      });
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
        // NOTE: back off before the next try (0.1, 0.2, 0.4 s): a push that is still landing, or a server still
        // holding the branch's lock after an interrupted push, has finished by then, where an at-once retry
        // meets the same lock every time.
        await new Promise((r) => setTimeout(r, 100 * 2 ** (attempt - 1)));
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

/**
 * The push after a CLI write, once auto-sync.ts found auto_sync on (config `auto_sync: true`, or GIT_KB_AUTO_SYNC
 * on; off turns it off) in `cfg`, bounded by `auto_sync_timeout_ms` (default 5000). Never throws: returns lines for stderr. A failure
 * leaves the commit local and says so.
 */
export async function autoSyncAfterWrite(dirs: string[], settings: Settings, cfg: KbConfig): Promise<string[]> {
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
