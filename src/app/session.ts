/**
 * Contract: the session use cases of spec/sessions.md. `recordSession` turns one transcript into its summary
 * entry and commits it (one commit, under the write lock, through src/adapters/write/transaction.ts), or says why not: the
 * transcript names a forbidden host or pattern (nothing is written, and hosts.yaml must load cleanly for anything
 * to be written at all), it has no real prompt, or the summary is unchanged. `catchUpSessions` does the same for
 * every recent transcript on the machine that was never summarised; `listSessions` and `showSession` read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadCatalog, type EntryMeta } from '../adapters/index/catalog.js';
import type { Settings } from '../adapters/config/settings.js';
import { KbError, type ErrorCode } from '../core/errors.js';
import { describeForbidden, forbiddenMatch, forbiddenMatcher, type ForbiddenHit, type HostMatcher } from '../core/hosts/hosts.js';
import { loadHosts } from '../adapters/store/hosts-file.js';
import { findSecrets } from '../core/secrets/scan.js';
import { summarizeSession, summaryContentKey, type SessionSummary } from '../core/sessions/summary.js';
import { readSessionState, stateIsCurrent, writeSessionState, type SessionState } from '../adapters/store/session-state.js';
import { readEntryText, safeJoin } from '../adapters/store/layout.js';
import { allTranscriptText, parseTranscript, type TranscriptFacts } from '../core/sessions/transcript.js';
import { nowStamp } from './fields.js';
import { filesById, findEntryFile } from './find.js';
import { repoForRead, repoForWrite, type RepoOptions } from './repo.js';
import { refuseSecrets, withWriteLock } from '../adapters/write/transaction.js';

/** The largest transcript read (bigger ones are summarised from their first this-many bytes). */
const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

export interface RecordOptions extends RepoOptions {
  transcript: string;
  /** The session id from the hook input; else the transcript's own. */
  sessionId?: string;
  /** The data repo, already resolved (hooks); else resolved from `data`. */
  dir?: string;
  /** Create the data repo when missing (the CLI does; hooks never do). */
  create?: boolean;
  now?: Date;
  /** A forbidden matcher already built (catch-up builds it once). */
  forbidden?: HostMatcher;
  /** Bring the prompt index up to date after a commit (default true; catch-up does it once at its end). */
  refreshIndex?: boolean;
}

/**
 * After a summary commit: the prompt index (when the repo has one) is brought up to date now, by the writer, so
 * that the next prompt finds it fresh, whichever process wrote (a Stop, the SessionEnd worker, a catch-up, the CLI).
 */
export async function refreshIndexAfterWrite(dir: string): Promise<void> {
  const { refreshPromptIndex } = await import('../adapters/index/prompt/load.js');
  await refreshPromptIndex(dir);
}

export interface RecordResult {
  status: 'written' | 'unchanged' | 'skipped' | 'forbidden';
  sessionId?: string;
  id?: string;
  path?: string;
  commit?: string;
  /** Why nothing was written (skipped, forbidden). Never quotes the forbidden text. */
  reason?: string;
  redactions?: number;
  /** Set when the status is forbidden. */
  exit?: Extract<ErrorCode, 'FORBIDDEN_HOST'>;
}

/** The `session_id` an existing summary file records (read without the YAML parser). */
function sessionIdOf(text: string): string | undefined {
  const m = /^session_id: ["']?([^"'\n]+?)["']?\s*$/m.exec(text);
  return m?.[1];
}

function transcriptStat(file: string): fs.Stats {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw new KbError('NOT_FOUND', `cannot read transcript ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
  if (!st.isFile()) throw new KbError('USAGE', `transcript ${file} is not a file`, { file });
  return st;
}

function readTranscript(file: string, size: number): string {
  if (size <= MAX_TRANSCRIPT_BYTES) return fs.readFileSync(file, 'utf8');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(MAX_TRANSCRIPT_BYTES);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/** Renders the entry text of a summary. */
async function renderSummary(s: SessionSummary, updated: string): Promise<string> {
  const { formatEntry } = await import('../core/format/entry.js');
  return formatEntry({ id: s.id, ...s.fields, created: s.created, updated }, s.body);
}

/**
 * Summarises one transcript and commits the summary when it changed. Fails closed: a hosts.yaml that does not
 * load (so forbidden hosts cannot be told) stops the write with its error.
 */
export async function recordSession(options: RecordOptions): Promise<RecordResult> {
  const r = await recordOnce(options);
  if (r.status === 'written' && options.refreshIndex !== false) await refreshIndexAfterWrite(options.dir ?? repoForRead(options).dir);
  return r;
}

/** A transcript file read (its first MAX_TRANSCRIPT_BYTES) and parsed; NOT_FOUND or USAGE when it cannot be read. */
export function loadTranscript(transcript: string): { file: string; st: fs.Stats; facts: TranscriptFacts } {
  const file = path.resolve(transcript);
  const st = transcriptStat(file);
  return { file, st, facts: parseTranscript(readTranscript(file, st.size)) };
}

/**
 * The forbidden host or global pattern a session touched, if any. NOTE: the whole transcript is checked, tool output
 * and subagent text included, plus its path (a project folder can carry a host's name): a session that touched a
 * forbidden host leaves no summary and no reflection at all.
 */
export function sessionForbidden(matcher: HostMatcher, file: string, sessionId: string | undefined, facts: TranscriptFacts): ForbiddenHit | undefined {
  return forbiddenMatch(matcher, `${file}\n${sessionId ?? ''}\n${allTranscriptText(facts)}`);
}

async function recordOnce(options: RecordOptions): Promise<RecordResult> {
  const { file, st, facts } = loadTranscript(options.transcript);
  const sessionId = options.sessionId ?? facts.sessionId;
  let dir = options.dir;
  if (!dir) dir = options.create ? (await repoForWrite(options)).dir : repoForRead(options).dir;
  const state = (outcome: string, extra: Partial<SessionState> = {}): void => {
    if (!sessionId) return;
    const prev = readSessionState(dir!, sessionId);
    writeSessionState(dir!, { ...prev, sessionId, transcript: file, size: st.size, mtimeMs: st.mtimeMs, outcome, ...extra });
  };

  const matcher = options.forbidden ?? forbiddenMatcher(await loadHosts(dir));
  const hit = sessionForbidden(matcher, file, sessionId, facts);
  if (hit) {
    state('forbidden');
    return { status: 'forbidden', sessionId, reason: `the transcript mentions ${describeForbidden(hit)}; no summary is stored`, exit: 'FORBIDDEN_HOST' };
  }
  const made = summarizeSession(facts, { sessionId, transcriptPath: file });
  if ('skip' in made) {
    state(`skipped:${made.skip}`);
    return { status: 'skipped', sessionId, reason: made.skip };
  }
  let summary = made.summary;
  const now = options.now ?? new Date();

  return withWriteLock(dir, async (tx) => {
    // The id follows from the session; another session's file on that id (odds of 1 in 1.7 million) moves it.
    let existing: string | undefined;
    for (let salt = 1; ; salt++) {
      const abs = safeJoin(dir!, summary.path);
      existing = fs.existsSync(abs) ? readEntryText(dir!, summary.path) : undefined;
      if (existing === undefined || sessionIdOf(existing) === summary.sessionId || salt > 8) break;
      const again = summarizeSession(facts, { sessionId, transcriptPath: file, salt });
      if ('skip' in again) break;
      summary = again.summary;
    }
    let text = await renderSummary(summary, nowStamp(now));
    if (existing !== undefined && summaryContentKey(existing) === summaryContentKey(text)) {
      state('unchanged', { id: summary.id, path: summary.path });
      return { status: 'unchanged', sessionId: summary.sessionId, id: summary.id, path: summary.path, redactions: summary.redactions };
    }
    // Defence in depth: every piece was redacted; a secret formed across pieces is redacted here, and anything
    // still secret-shaped refuses the write.
    if (findSecrets(text).length > 0) {
      const { redactSecrets } = await import('../core/secrets/scan.js');
      summary = { ...summary, body: redactSecrets(summary.body).text };
      text = await renderSummary(summary, nowStamp(now));
    }
    refuseSecrets(text, summary.path);
    if (forbiddenMatch(matcher, text)) return { status: 'forbidden' as const, sessionId, reason: 'the summary would mention a forbidden host or pattern', exit: 'FORBIDDEN_HOST' as const };
    const { validateEntryText } = await import('./fields.js');
    validateEntryText(text, summary.path, () => true);
    const commit = await tx.commit([{ path: summary.path, content: text }], `session ${summary.id}: ${summary.title}`);
    state('written', { id: summary.id, path: summary.path, committedAt: Date.now() });
    return { status: 'written', sessionId: summary.sessionId, id: summary.id, path: summary.path, commit, redactions: summary.redactions };
  }, { identity: options.settings });
}

// ---------------------------------------------------------------------------------------------------------
// Catch-up

/** Where Claude Code keeps transcripts: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function projectsDir(settings: Pick<Settings, 'claudeConfigDir'>): string {
  return path.join(settings.claudeConfigDir, 'projects');
}

/** A transcript on disk. */
export interface TranscriptFile {
  file: string;
  sessionId: string;
  size: number;
  mtimeMs: number;
}

/** Session transcripts (`<projects>/<project>/<session-id>.jsonl`, subagent files left out), newest first. */
function listTranscripts(root: string, sinceMs = 0): TranscriptFile[] {
  const out: TranscriptFile[] = [];
  let projects: fs.Dirent[];
  try {
    projects = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const p of projects) {
    if (!p.isDirectory()) continue;
    let names: string[];
    try {
      names = fs.readdirSync(path.join(root, p.name));
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.endsWith('.jsonl') || n.startsWith('agent-')) continue;
      const file = path.join(root, p.name, n);
      const st = fs.statSync(file, { throwIfNoEntry: false });
      if (!st?.isFile() || st.mtimeMs < sinceMs) continue;
      out.push({ file, sessionId: n.slice(0, -'.jsonl'.length), size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

export interface CatchUpOptions extends RepoOptions {
  /** The transcripts folder (default: `projects` in the Claude config folder of `settings`). */
  projects?: string;
  /** Only transcripts changed in the last this-many days (default 30). */
  days?: number;
  /** Session ids to leave alone (the session that started the catch-up). */
  exclude?: string[];
  /** Stop starting new transcripts after this long (default 60 s). */
  budgetMs?: number;
  dir?: string;
}

export interface CatchUpResult {
  looked: number;
  current: number;
  written: string[];
  unchanged: number;
  skipped: number;
  forbidden: number;
  failed: { file: string; error: string }[];
  /** Transcripts left for next time (the budget ran out). */
  left: number;
}

/** Summarises every recent transcript whose state says it changed since it was last looked at. */
export async function catchUpSessions(options: CatchUpOptions): Promise<CatchUpResult> {
  const dir = options.dir ?? repoForRead(options).dir;
  const started = Date.now();
  const days = options.days ?? 30;
  const files = listTranscripts(options.projects ?? projectsDir(options.settings), Date.now() - days * 86_400_000);
  const exclude = new Set(options.exclude ?? []);
  const result: CatchUpResult = { looked: 0, current: 0, written: [], unchanged: 0, skipped: 0, forbidden: 0, failed: [], left: 0 };
  const todo = files.filter((f) => {
    if (exclude.has(f.sessionId)) return false;
    if (stateIsCurrent(readSessionState(dir, f.sessionId), f)) {
      result.current++;
      return false;
    }
    return true;
  });
  if (todo.length === 0) return result;
  const matcher = forbiddenMatcher(await loadHosts(dir));
  for (const [i, f] of todo.entries()) {
    if (Date.now() - started > (options.budgetMs ?? 60_000)) {
      result.left = todo.length - i;
      break;
    }
    result.looked++;
    try {
      const r = await recordSession({ transcript: f.file, sessionId: f.sessionId, dir, settings: options.settings, forbidden: matcher, refreshIndex: false });
      if (r.status === 'written') result.written.push(r.id!);
      else if (r.status === 'unchanged') result.unchanged++;
      else if (r.status === 'forbidden') result.forbidden++;
      else result.skipped++;
    } catch (err) {
      result.failed.push({ file: f.file, error: (err as Error).message.split('\n')[0]! });
    }
  }
  if (result.written.length > 0) await refreshIndexAfterWrite(dir);
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// Reading

/** One summary as `session list` shows it. */
export interface SessionItem {
  id: string;
  title: string;
  session_id?: string;
  project?: string;
  cwd?: string;
  branch?: string;
  started?: string;
  ended?: string;
  turns?: number;
  path: string;
}

function itemOf(e: EntryMeta): SessionItem {
  const d = e.data;
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : v instanceof Date ? v.toISOString() : undefined);
  return {
    id: e.id,
    title: e.title,
    session_id: str(d.session_id),
    project: str(d.project),
    cwd: str(d.cwd),
    branch: str(d.branch),
    started: str(d.started) ?? e.created,
    ended: str(d.ended) ?? e.updated,
    turns: typeof d.turns === 'number' ? d.turns : undefined,
    path: e.path,
  };
}

export interface ListSessionsOptions extends RepoOptions {
  cwd?: string;
  limit?: number;
}

/** Session summaries, the most recently ended first, optionally of one project directory. */
export async function listSessions(options: ListSessionsOptions): Promise<SessionItem[]> {
  const { dir } = repoForRead(options);
  const catalog = await loadCatalog(dir);
  const want = options.cwd ? path.resolve(options.cwd).replace(/[\\/]+$/, '') : undefined;
  const items = [...catalog.byId.values()].filter((e) => e.type === 'session_summary').map(itemOf);
  const kept = want ? items.filter((i) => i.cwd && i.cwd.replace(/[\\/]+$/, '') === want) : items;
  kept.sort((a, b) => ((a.ended ?? '') < (b.ended ?? '') ? 1 : (a.ended ?? '') > (b.ended ?? '') ? -1 : a.id < b.id ? 1 : -1));
  return kept.slice(0, options.limit ?? kept.length);
}

/** A summary by entry id, or by session id (a unique prefix of at least 8 characters will do). */
export async function showSession(options: RepoOptions & { id: string }): Promise<{ id: string; path: string; text: string }> {
  const { dir } = repoForRead(options);
  const q = options.id.trim();
  if (/^kb-[0-9a-z]+$/.test(q)) {
    const f = findEntryFile(dir, q, filesById(dir));
    return { id: q, path: f.path, text: readEntryText(dir, f.path) };
  }
  if (q.length < 8) throw new KbError('USAGE', `"${q}" is neither an entry id nor a session id (give at least 8 characters of a session id)`);
  const catalog = await loadCatalog(dir);
  const found = [...catalog.byId.values()].filter((e) => e.type === 'session_summary' && typeof e.data.session_id === 'string' && (e.data.session_id as string).startsWith(q));
  if (found.length === 0) throw new KbError('NOT_FOUND', `no session summary for session ${q}; "git-kb session list" shows them`, { id: q });
  if (found.length > 1) throw new KbError('USAGE', `session id prefix ${q} matches ${found.length} sessions (${found.map((e) => e.id).join(', ')}); give more characters`);
  const e = found[0]!;
  return { id: e.id, path: e.path, text: readEntryText(dir, e.path) };
}
