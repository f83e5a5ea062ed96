/**
 * Contract: the session hooks of spec/hooks.md, "Session hooks", and spec/sessions.md, "When summaries are
 * written". Each reads its payload, looks at the small per-session state (src/core/sessions/summary.ts) and
 * decides before it loads anything heavy; none prints anything but the Stop hook's budget block, all are fail-open (runHook turns any error into
 * exit 0).
 *
 * - Stop: summarise the session now unless this machine committed its summary less than the debounce window ago
 *   (KB_SESSION_DEBOUNCE_S, default 300 s), in which case the state is marked pending and the next Stop,
 *   PreCompact, SessionEnd or catch-up writes it. The transcript is the source, so a skipped Stop loses nothing.
 * - PreCompact: summarise now, whatever the window.
 * - SessionEnd: start a detached `git-kb session record` when the state is not current, and return at once
 *   (Claude Code gives SessionEnd about 1.5 s; nothing depends on the worker finishing).
 * - PreCompact and SessionEnd also start a detached `git-kb reflect --auto` worker while the session's reflection
 *   is due (spec/reflect.md): no model call ever runs inside a hook.
 * - SessionStart: at most once per KB_SESSION_CATCHUP_MIN minutes (default 10) across sessions, start a detached
 *   `git-kb session catch-up` for transcripts that were never summarised, leaving the new session alone.
 *
 * - Stop also blocks the turn once per budget per cooldown when memory is over a budget (budgetBlock below):
 *   the one output of these hooks.
 *
 * Hooks never create the data repo, and `KB_SESSIONS=0` turns all four summaries off (not the budget block:
 * `KB_BUDGET_BLOCK=0`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveDataDir } from '../adapters/config/config.js';
import type { Settings } from '../adapters/config/settings.js';
import { isDataRepo, readRootFile } from '../adapters/store/layout.js';
import { writeLockBusy } from '../adapters/store/lock.js';
import { budgetSignature, catchUpDue, readBudgetState, readReflectState, readSessionState, reflectionDue, stateIsCurrent, writeBudgetState, writeSessionState, type SessionState } from '../adapters/store/session-state.js';
import { transcriptSessionId } from '../adapters/store/transcript-id.js';
import { TOOL_USE_MARK, type TranscriptFacts } from '../core/sessions/transcript.js';
import { shellQuote } from '../core/text/shell-quote.js';
import { readRepoSettings } from '../adapters/store/repo-settings.js';
import { KB_JSON_MAX } from '../adapters/system/read-bounded.js';
import { readAt } from '../adapters/store/fsutil.js';
import { budgetBlockReason, budgetOverruns, type BudgetName } from '../core/budget.js';
import { debugLog, type HookContext, type HookInput } from './protocol.js';

/**
 * Transcripts bigger than this are summarised by a detached worker, never inside a hook's time limit. NOTE: one of
 * 15.5 MB took 10.9 s of the Stop hook's 13 on an idle machine and past its 15 s timeout on a busy one (parsing
 * and redacting are linear, about 0.7 s a MB): 4 MB keeps a busy machine's worst within a few seconds.
 */
const INLINE_MAX_BYTES = 4 * 1024 * 1024;
/** A write lock younger than this means another writer is busy: a Stop leaves the write for later. */
const BUSY_LOCK_MS = 60_000;

type Event = 'stop' | 'precompact' | 'session-end' | 'session-start';

/** The data repo when it exists and is one (kb.json: the CLI's rule); hooks never create one nor write elsewhere. */
function dataRepo(settings: Settings): string | undefined {
  const { dir } = resolveDataDir({ settings });
  return isDataRepo(dir) ? dir : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/** The git-kb CLI next to the hook entry (bin/git-kb beside bin/git-kb-hook), else found from this bundle. */
export function cliPath(): string {
  const beside = process.argv[1] ? path.join(path.dirname(process.argv[1]), 'git-kb') : '';
  if (beside && fs.existsSync(beside)) return beside;
  // dist/hooks/session.js or dist/chunks/<chunk>.js → bin/git-kb
  let d = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 3; i++) {
    const candidate = path.join(d, 'bin', 'git-kb');
    if (fs.existsSync(candidate)) return candidate;
    d = path.dirname(d);
  }
  return beside;
}

/** Starts a detached git-kb process that outlives the hook (its output goes nowhere). */
function spawnWorker(args: string[], env: NodeJS.ProcessEnv): number | undefined {
  const child = spawn(process.execPath, [cliPath(), ...args], { detached: true, stdio: 'ignore', env });
  child.on('error', () => undefined);
  child.unref();
  return child.pid;
}

/** A Stop that finds the write lock held waits this long for it before leaving the write for later. */
const LOCK_WAIT_MS = 2000;

/**
 * True when another live writer still holds the write lock after a short wait (the store's writeLockBusy: a lock
 * whose holder died is not busy). NOTE: a CLI or MCP write holds the lock for a fraction of a second, so a Stop
 * that arrives meanwhile waits for it and lands, rather than leaving the summary to the next Stop.
 */
async function lockBusy(dir: string): Promise<boolean> {
  const until = Date.now() + LOCK_WAIT_MS;
  while (writeLockBusy(dir, { maxAgeMs: BUSY_LOCK_MS })) {
    if (Date.now() >= until) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/**
 * What Stop, PreCompact and SessionEnd need: the session, its transcript file and the data repo; else nothing. The
 * session is the one the transcript's lines name (transcriptSessionId, as `session record` and catch-up read it),
 * the payload's `session_id` only when no line carries one: every writer keys a session's state, turn log and
 * summary alike.
 */
function sessionAtHand(input: HookInput, settings: Settings) {
  if (!settings.sessions) return undefined;
  const given = str(input.session_id);
  const transcript = str(input.transcript_path);
  if (!given || !transcript) return undefined;
  const dir = dataRepo(settings);
  if (!dir) return undefined;
  const st = fs.statSync(transcript, { throwIfNoEntry: false });
  if (!st?.isFile()) return undefined;
  const sessionId = transcriptSessionId(transcript, { given, size: st.size }) ?? given;
  return { sessionId, transcript, dir, st, state: readSessionState(dir, sessionId) };
}

/**
 * Stop and PreCompact: summarise inline (debounced for Stop). For a Stop the prompt index is left to the caller
 * (handleStop brings it up to date after the budget check, whose catalog load is part of its key): the data repo
 * of a summary written is returned then.
 */
async function summarise(event: Event, input: HookInput, ctx: HookContext): Promise<string | undefined> {
  const { settings } = ctx;
  const at = sessionAtHand(input, settings);
  if (!at) return undefined;
  const { sessionId, transcript, dir, st } = at;
  const log = (what: Record<string, unknown>): void => debugLog({ event, session: sessionId, ...what }, settings);
  if (st.size > INLINE_MAX_BYTES) {
    if (stateIsCurrent(at.state, st)) return void log({ outcome: 'current' });
    const pid = spawnWorker(['session', 'record', '--transcript', transcript, '--session-id', sessionId, '--data', dir, '--json'], settings.env);
    return void log({ outcome: 'worker', pid, bytes: st.size });
  }
  // Every turn: the archive and the turn log, so the turn is searchable from any other session now (no commit).
  if (event === 'stop') await settle(transcript, str(input.last_assistant_message), log);
  const { logSession } = await import('../app/session-log.js');
  let read: { facts: TranscriptFacts; st: fs.Stats } | undefined;
  try {
    const l = await logSession({ transcript, sessionId, dir, settings });
    if (l.facts && l.st) read = { facts: l.facts, st: l.st };
    log({ log: l.status, turns: l.turns, archive: l.archive });
  } catch (err) {
    log({ log: 'failed', error: String((err as Error)?.message ?? err).slice(0, 500) });
  }
  const state = readSessionState(dir, sessionId);
  if (stateIsCurrent(state, st)) return void log({ outcome: 'current' });
  // NOTE: a transcript only grows, so once it names a forbidden host it always will: no need to read it again.
  if (state?.outcome === 'forbidden' && event === 'stop') return void log({ outcome: 'forbidden (earlier)' });
  if (event === 'stop') {
    const why = recentCommit(state, settings) ? 'debounce' : (await lockBusy(dir)) ? 'write lock busy' : undefined;
    if (why) {
      if (state?.outcome !== 'pending') writeSessionState(dir, { ...(state ?? { sessionId }), sessionId, transcript, outcome: 'pending' });
      return void log({ outcome: 'pending', reason: why });
    }
  }
  const { recordSession } = await import('../app/session.js');
  const r = await recordSession({ transcript, sessionId, dir, settings: ctx.settings, refreshIndex: event !== 'stop', read });
  // NOTE: a written summary leaves the prompt index fresh (recordSession, or handleStop, updates it), so the next prompt does not.
  log({ outcome: r.status, id: r.id, reason: r.reason });
  return r.status === 'written' && event === 'stop' ? dir : undefined;
}

/** The longest a Stop waits for the transcript to hold the turn's last records. */
const SETTLE_MAX_MS = 1500;
/** A transcript that did not grow for this long is taken as settled (when the last reply cannot be told). */
const SETTLE_QUIET_MS = 300;

/**
 * Waits until the transcript holds the turn's end. NOTE: Claude Code (2.1.328) runs the Stop hook before it has
 * written the turn's last records (the final tool results and the reply) to the transcript: read at once, the
 * turn log missed them. The Stop payload's `last_assistant_message` is the reply's text: the wait ends when the
 * file's tail holds its end (at once when it already does), or the file stopped growing after it grew (without
 * that text: stopped growing), and never lasts more than SETTLE_MAX_MS.
 */
async function settle(file: string, last: string | undefined, log: (what: Record<string, unknown>) => void): Promise<void> {
  const started = Date.now();
  const needle = last ? JSON.stringify(last.trim().slice(-80)).slice(1, -1) : undefined;
  const size = (): number => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  const first = size();
  let prev = first;
  let quietSince = started;
  for (;;) {
    const now = Date.now();
    const n = size();
    if (n !== prev) {
      prev = n;
      quietSince = now;
    }
    if (needle && tailHolds(file, n, needle)) return void log({ settled: 'reply', ms: now - started, grew: n - first });
    if ((!needle || n > first) && now - quietSince >= SETTLE_QUIET_MS) return void log({ settled: 'quiet', ms: now - started, grew: n - first });
    if (now - started >= SETTLE_MAX_MS) return void log({ settled: 'timeout', ms: now - started, grew: n - first });
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** True when the last 256 KB of the file hold `needle`. */
function tailHolds(file: string, size: number, needle: string): boolean {
  const len = Math.min(size, 256 * 1024);
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    try {
      return readAt(fd, size - len, len).toString('utf8').includes(needle);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

/** True when this machine committed the session's summary less than the debounce window ago. */
function recentCommit(state: SessionState | undefined, settings: Settings): boolean {
  return state?.committedAt !== undefined && Date.now() - state.committedAt < settings.sessionDebounceS * 1000;
}

const BUDGET_KINDS: BudgetName[] = ['kernel_chars', 'host_chars', 'entry_chars'];
/** An unchanged repo's sizes are looked at again after this long (or the cooldown, when shorter). */
const BUDGET_CHECK_INTERVAL_MS = 10 * 60_000;

/**
 * The Stop hook's budget block (spec/memory.md): when memory is over a budget whose last block is older than the
 * cooldown, block the turn once with a reason naming the entries and the `/git-kb compact` command. Never when
 * `stop_hook_active` is true (Claude Code is already continuing because of a Stop hook), never without a kb.json
 * that parses and validates, and never when the block cannot be recorded (it could repeat every turn). Cheap: a
 * read of the small block state and two stats first; the catalog (stat data and cached front matter, no bodies)
 * only when the repo changed since the last look or that look is older than the check interval.
 */
export async function budgetBlock(input: HookInput, ctx: HookContext): Promise<{ decision: 'block'; reason: string } | undefined> {
  const { settings } = ctx;
  if (!settings.budgetBlock || input.stop_hook_active !== false && input.stop_hook_active !== undefined) return undefined;
  const dir = dataRepo(settings);
  if (!dir) return undefined;
  const log = (what: Record<string, unknown>): void => debugLog({ event: 'stop', budget: true, ...what }, settings);
  try {
    JSON.parse(readRootFile(dir, 'kb.json', KB_JSON_MAX).toString('utf8'));
  } catch {
    return void log({ outcome: 'no block', reason: 'kb.json does not parse' });
  }
  const { budgets } = readRepoSettings(dir);
  const now = Date.now();
  const state = readBudgetState(dir);
  const { blocks } = state;
  const cooldownMs = settings.budgetCooldownMin * 60_000;
  const due = BUDGET_KINDS.filter((k) => {
    const at = blocks[k];
    return at === undefined || at > now || now - at >= cooldownMs;
  });
  if (due.length === 0) return void log({ outcome: 'no block', reason: 'cooldown' });
  // NOTE: the sizes are looked at again only when the repo changed (a commit, kb.json) or after the check
  // interval: an unchanged repo costs a Stop two stats and this small file, not a catalog load.
  const sig = budgetSignature(dir);
  const intervalMs = Math.min(BUDGET_CHECK_INTERVAL_MS, cooldownMs);
  if (state.checkedSig === sig && state.checkedAt !== undefined && state.checkedAt <= now && now - state.checkedAt < intervalMs) return void log({ outcome: 'no block', reason: 'checked, unchanged' });
  const { loadCatalog } = await import('../adapters/index/catalog.js');
  const { readFloorSizes } = await import('../adapters/index/compact-ledger.js');
  const catalog = await loadCatalog(dir);
  // A target graded FLOOR is not asked about again until it outgrows the size it had then.
  const over = budgetOverruns(catalog.byId.values(), budgets, readFloorSizes(dir)).filter((o) => due.includes(o.budget));
  if (over.length === 0) {
    writeBudgetState(dir, { blocks, checkedAt: now, checkedSig: sig });
    return void log({ outcome: 'no block', reason: 'within budget' });
  }
  const next = { ...blocks };
  for (const o of over) next[o.budget] = now;
  if (!writeBudgetState(dir, { blocks: next, checkedAt: now, checkedSig: sig })) return void log({ outcome: 'no block', reason: 'block state not writable' });
  log({ outcome: 'block', budgets: [...new Set(over.map((o) => o.budget))], targets: over.map((o) => o.target) });
  return { decision: 'block', reason: budgetBlockReason(over) };
}

/** The Stop hook: the session summary first (its failure never stops the budget check), then the budget block. */
export async function handleStop(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  let written: string | undefined;
  try {
    written = await summarise('stop', input, ctx);
  } catch (err) {
    debugLog({ event: 'stop', error: String((err as Error)?.stack ?? err).slice(0, 2000) }, ctx.settings);
  }
  try {
    return await budgetBlock(input, ctx);
  } catch (err) {
    debugLog({ event: 'stop', budget: true, error: String((err as Error)?.stack ?? err).slice(0, 2000) }, ctx.settings);
    return undefined;
  } finally {
    if (written) {
      const { refreshIndexAfterWrite } = await import('../app/session.js');
      await refreshIndexAfterWrite(written); // never throws
    }
  }
}

/** Transcripts up to this size are looked through for a tool call before a reflection worker starts; a bigger one may have work. */
const WORK_SCAN_MAX_BYTES = 16 * 1024 * 1024;

/**
 * False only when the transcript surely holds no tool call (so the session did no real work, spec/reflect.md): its
 * bytes are read in 1 MB chunks until the mark turns up. A working session shows one in its first kilobytes; one
 * with none holds only prompts and replies, which are small. Any read error answers true (the worker decides).
 */
function mayHaveWork(file: string, size: number): boolean {
  if (size > WORK_SCAN_MAX_BYTES) return true;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const buf = Buffer.alloc(1024 * 1024);
    const overlap = TOOL_USE_MARK.length - 1;
    let carry = '';
    for (let pos = 0; ; ) {
      const n = fs.readSync(fd, buf, 0, buf.length, pos);
      if (n <= 0) return false;
      const text = carry + buf.toString('latin1', 0, n);
      if (text.includes(TOOL_USE_MARK)) return true;
      carry = text.slice(-overlap);
      pos += n;
    }
  } catch {
    return true;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * Reflection (spec/reflect.md): when it is on and still due for the session (its reflection state), start a
 * detached `git-kb reflect --auto` worker and return: the model call never runs inside a hook's time limit. The
 * worker itself decides whether the session did real work, and records what came of it.
 */
function startReflection(event: Event, input: HookInput, settings: Settings): void {
  if (!settings.reflect) return;
  const at = sessionAtHand(input, settings);
  if (!at) return;
  const { sessionId, transcript, dir, st } = at;
  // Read again: the summary written just before may have found a forbidden host.
  if (readSessionState(dir, sessionId)?.outcome === 'forbidden') return void debugLog({ event, session: sessionId, reflect: 'forbidden' }, settings);
  if (!reflectionDue(readReflectState(dir, sessionId))) return void debugLog({ event, session: sessionId, reflect: 'done' }, settings);
  if (!mayHaveWork(transcript, st.size)) return void debugLog({ event, session: sessionId, reflect: 'no tool call' }, settings);
  const pid = spawnWorker(['reflect', '--session', sessionId, '--transcript', transcript, '--data', dir, '--auto', '--json'], settings.env);
  debugLog({ event, session: sessionId, reflect: 'worker', pid }, settings);
}

/** The PreCompact hook: the summary now, then the reflection worker. */
export async function handlePreCompact(input: HookInput, ctx: HookContext): Promise<undefined> {
  try {
    await summarise('precompact', input, ctx);
  } finally {
    startReflection('precompact', input, ctx.settings);
  }
  return undefined;
}

/**
 * SessionEnd's summary part: hand the last write to a detached worker, if there is one to do and the session's
 * summary was not committed within the debounce window. NOTE: every turn is in the turn log already (the Stop
 * hook), so a summary left pending loses nothing: the next Stop, PreCompact or catch-up commits it, and a run of
 * `claude -p --resume` makes one commit per window, not one per run.
 */
function lastSummaryWrite(input: HookInput, ctx: HookContext): undefined {
  const { settings } = ctx;
  const at = sessionAtHand(input, settings);
  if (!at) return undefined;
  const { sessionId, transcript, dir, st, state } = at;
  if (stateIsCurrent(state, st) || state?.outcome === 'forbidden') {
    debugLog({ event: 'session-end', session: sessionId, outcome: state?.outcome ?? 'current' }, settings);
    return undefined;
  }
  if (recentCommit(state, settings)) {
    debugLog({ event: 'session-end', session: sessionId, outcome: 'pending', reason: 'debounce' }, settings);
    return undefined;
  }
  const pid = spawnWorker(['session', 'record', '--transcript', transcript, '--session-id', sessionId, '--data', dir, '--json'], settings.env);
  debugLog({ event: 'session-end', session: sessionId, outcome: 'worker', pid }, settings);
  return undefined;
}

/** The SessionEnd hook: the summary's last write and the reflection, each by a detached worker when due. */
export function handleSessionEnd(input: HookInput, ctx: HookContext): undefined {
  try {
    lastSummaryWrite(input, ctx);
  } finally {
    startReflection('session-end', input, ctx.settings);
  }
  return undefined;
}

/** The largest session env file looked into; a bigger one is left alone. */
const ENV_FILE_MAX = 1024 * 1024;

/**
 * Puts this plugin's bin/ on the PATH of the session's Bash commands through Claude Code's session env file
 * (`CLAUDE_ENV_FILE`, given to SessionStart hooks) when it is not there already: Claude Code adds a plugin's bin/
 * to PATH in ordinary sessions, but not in the runs of `claude plugin eval` (2.1.328), where `git-kb` was then
 * "command not found" (spec/memory.md, "Self-test"). One append of one line; any error is ignored.
 */
export function exportBinPath(env: NodeJS.ProcessEnv): boolean {
  const file = env.CLAUDE_ENV_FILE;
  if (!file) return false;
  const bin = path.dirname(cliPath());
  if (!fs.existsSync(path.join(bin, 'git-kb'))) return false;
  if ((env.PATH ?? '').split(path.delimiter).includes(bin)) return false;
  // NOTE: non-blocking and regular files only: a FIFO or a device given as the env file must not hold the hook.
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NONBLOCK, 0o600);
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > ENV_FILE_MAX) return false;
    const line = `export PATH=${shellQuote(bin)}:"$PATH"\n`;
    if (st.size > 0 && readAt(fd, 0, st.size).toString('utf8').includes(line)) return false;
    fs.writeSync(fd, line);
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The SessionStart hook: git-kb on Bash's PATH, and a catch-up worker when one is due. */
export function handleSessionStart(input: HookInput, ctx: HookContext): undefined {
  const { settings } = ctx;
  exportBinPath(settings.env);
  if (!settings.sessions) return undefined;
  const dir = dataRepo(settings);
  if (!dir) return undefined;
  if (!catchUpDue(dir, settings.sessionCatchupMin)) return undefined;
  const args = ['session', 'catch-up', '--data', dir, '--json'];
  const sessionId = str(input.session_id);
  if (sessionId) args.push('--exclude', sessionId);
  const pid = spawnWorker(args, settings.env);
  debugLog({ event: 'session-start', session: sessionId, outcome: 'catch-up worker', pid }, settings);
  return undefined;
}
