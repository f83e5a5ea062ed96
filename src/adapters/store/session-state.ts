/**
 * Contract: the per-session state of spec/sessions.md, "State": what the last look at a session's transcript
 * found, one small JSON file per session in `.git/git-kb/sessions/` (derived, per machine, safe to delete), and
 * the stamp that lets sessions starting together start one catch-up between them. Every write is best effort:
 * the state only saves work, so a read-only repo just re-reads its transcripts. Light: the session hooks read it
 * before they load anything heavy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fnv1a } from '../../core/text/fnv.js';
import { readSmall } from '../system/read-bounded.js';
import { writeFileAtomic } from './fsutil.js';
import { headSymbolicRef, stateDir } from './layout.js';

/** What the last look at a session's transcript found. */
export interface SessionState {
  sessionId: string;
  transcript?: string;
  /** Size and mtime of the transcript when it was last summarised (or found to need no summary). */
  size?: number;
  mtimeMs?: number;
  /** `written`, `unchanged`, `forbidden`, `skipped:<reason>`, or `pending` (a debounced Stop). */
  outcome?: string;
  id?: string;
  path?: string;
  /** When this machine last committed the session's summary (ms since the epoch). */
  committedAt?: number;
  /** Size and mtime of the transcript when its turn log (and archive) were last brought up to date. */
  loggedSize?: number;
  loggedMtimeMs?: number;
}

function sessionStateDir(dir: string): string {
  return path.join(stateDir(dir), 'sessions');
}

/**
 * The base of a file name for a session id (the state, the turn log, the archive): the id itself when it is safe,
 * else its safe characters and a hash.
 */
export function sessionFileBase(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '');
  if (safe === sessionId && safe.length > 0 && safe.length <= 100) return safe;
  return `${safe.slice(0, 60)}-${fnv1a(sessionId).toString(36)}`;
}

/** The largest state file read; a bigger one is unreadable. */
const STATE_MAX_BYTES = 1024 * 1024;

/** A state file's JSON; throws when it is missing, not a small regular file (a FIFO is never waited on) or not JSON. */
function readStateJson(file: string): unknown {
  const bytes = readSmall(file, STATE_MAX_BYTES);
  if (!bytes) throw new Error(`${file} is missing or is not a small regular file`);
  return JSON.parse(bytes.toString('utf8'));
}

function stateName(sessionId: string): string {
  return `${sessionFileBase(sessionId)}.json`;
}

/** Reads a session's state; undefined when missing or unreadable. */
export function readSessionState(dir: string, sessionId: string): SessionState | undefined {
  try {
    const raw = readStateJson(path.join(sessionStateDir(dir), stateName(sessionId))) as SessionState;
    return raw && typeof raw === 'object' && raw.sessionId === sessionId ? raw : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes a session's state (writeFileAtomic: a killed writer's temporary file is in `.git/git-kb/.tmp/`, where the
 * next lock holder sweeps it; errors ignored: the state is only an optimisation).
 */
export function writeSessionState(dir: string, state: SessionState): void {
  try {
    writeFileAtomic(path.join(sessionStateDir(dir), stateName(state.sessionId)), JSON.stringify(state), { fsync: false });
  } catch {
    /* read-only repo: the next look re-reads the transcript */
  }
}

/** True when the transcript's size and mtime are those the state recorded (nothing new to summarise). */
export function stateIsCurrent(state: SessionState | undefined, st: { size: number; mtimeMs: number }): boolean {
  return !!state && state.outcome !== 'pending' && state.size === st.size && state.mtimeMs === st.mtimeMs;
}

/**
 * Reflection's state for one session (spec/reflect.md, "State"), in a file of its own beside the session's state
 * (`<session>.reflect.json`), so the summary writers and the reflection worker never overwrite each other's: when
 * it last ran, on what size of transcript, what came of it (`running`, `reflected`, `forbidden`, `error`, or
 * `skipped:<reason>`) and its commit.
 */
export interface ReflectState {
  sessionId: string;
  at: number;
  size: number;
  outcome: string;
  commit?: string;
}

function reflectStateFile(dir: string, sessionId: string): string {
  return path.join(sessionStateDir(dir), stateName(sessionId).replace(/\.json$/, '.reflect.json'));
}

/** Reads a session's reflection state; undefined when missing or unreadable. */
export function readReflectState(dir: string, sessionId: string): ReflectState | undefined {
  try {
    const raw = readStateJson(reflectStateFile(dir, sessionId)) as ReflectState;
    return raw && typeof raw === 'object' && raw.sessionId === sessionId && typeof raw.outcome === 'string' ? raw : undefined;
  } catch {
    return undefined;
  }
}

/** Writes a session's reflection state (best effort, as writeSessionState). */
export function writeReflectState(dir: string, state: ReflectState): void {
  try {
    writeFileAtomic(reflectStateFile(dir, state.sessionId), JSON.stringify(state), { fsync: false });
  } catch {
    /* read-only repo: the state only saves a model call */
  }
}

/** A reflection marked running longer ago than this died: it may be started again. */
export const REFLECT_STALE_MS = 15 * 60_000;

/**
 * True when an automatic reflection of the session is still due: it never ran, or it was skipped (off, no
 * `claude`, no real work yet), or a run marked `running` is stale. A run that reached the model (`reflected`,
 * `error`) or found a forbidden host is final: at most one model call per session.
 */
export function reflectionDue(state: ReflectState | undefined, now = Date.now()): boolean {
  if (!state) return true;
  if (state.outcome.startsWith('skipped')) return true;
  return state.outcome === 'running' && (now - state.at > REFLECT_STALE_MS || state.at > now);
}

/**
 * True when no catch-up started in the last `minutes` (and then records this one, so sessions starting together
 * start one catch-up between them).
 */
export function catchUpDue(dir: string, minutes: number): boolean {
  const stamp = path.join(sessionStateDir(dir), 'catch-up');
  const st = fs.statSync(stamp, { throwIfNoEntry: false });
  if (st && Date.now() - st.mtimeMs < minutes * 60_000) return false;
  try {
    fs.mkdirSync(path.dirname(stamp), { recursive: true });
    fs.writeFileSync(stamp, new Date().toISOString());
  } catch {
    /* read-only: run anyway */
  }
  return true;
}

/**
 * The Stop hook's budget state, in `sessions/budget-blocks.json`: when it last blocked a turn for each budget (ms
 * since the epoch, keyed by budget name), and when it last looked at the sizes (`checked_at`) with what the repo
 * looked like then (`checked_sig`: the stat data of kb.json and of the branch ref).
 */
export interface BudgetState {
  blocks: Partial<Record<string, number>>;
  checkedAt?: number;
  checkedSig?: string;
}

function budgetBlocksFile(dir: string): string {
  return path.join(sessionStateDir(dir), 'budget-blocks.json');
}

/** The budget state; empty when missing or unreadable. */
export function readBudgetState(dir: string): BudgetState {
  try {
    const raw = readStateJson(budgetBlocksFile(dir));
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { blocks: {} };
    const o = raw as Record<string, unknown>;
    const blocks: BudgetState['blocks'] = {};
    for (const [k, v] of Object.entries(o)) if (k.endsWith('_chars') && typeof v === 'number' && Number.isFinite(v)) blocks[k] = v;
    return {
      blocks,
      ...(typeof o.checked_at === 'number' ? { checkedAt: o.checked_at } : {}),
      ...(typeof o.checked_sig === 'string' ? { checkedSig: o.checked_sig } : {}),
    };
  } catch {
    return { blocks: {} };
  }
}

/**
 * Records the state (writeFileAtomic, as writeSessionState). Returns false when it could not be written: the hook
 * then does not block, since a block it cannot remember could repeat on every turn.
 */
export function writeBudgetState(dir: string, state: BudgetState): boolean {
  try {
    const text = JSON.stringify({ ...state.blocks, ...(state.checkedAt !== undefined ? { checked_at: state.checkedAt } : {}), ...(state.checkedSig ? { checked_sig: state.checkedSig } : {}) });
    writeFileAtomic(budgetBlocksFile(dir), text, { fsync: false });
    return true;
  } catch {
    return false;
  }
}

/** What the budgets depend on, cheaply: the stat data of kb.json and of the branch ref HEAD names (or HEAD). */
export function budgetSignature(dir: string): string {
  const st = (p: string): string => {
    const s = fs.statSync(p, { throwIfNoEntry: false });
    return s ? `${s.mtimeMs}:${s.size}:${s.ino}` : '-';
  };
  const ref = headSymbolicRef(dir) ?? 'HEAD';
  return `${st(path.join(dir, 'kb.json'))}|${st(path.join(dir, '.git', ref))}|${st(path.join(dir, '.git', 'packed-refs'))}`;
}
