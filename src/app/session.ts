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
import { clip, summarizeSession, summaryContentKey, type SessionSummary } from '../core/sessions/summary.js';
import { findTurn, grepLog, type GrepLine, type LoggedTurn } from '../core/sessions/turns.js';
import { readSessionState, stateIsCurrent, writeSessionState, type SessionState } from '../adapters/store/session-state.js';
import { transcriptSessionId, transcriptStem } from '../adapters/store/transcript-id.js';
import { readEntryText, safeJoin } from '../adapters/store/layout.js';
import type { TranscriptFacts } from '../core/sessions/transcript.js';
import { logSession, readTranscript, sessionForbidden, tidyArchive, transcriptStat } from './session-log.js';
import { foldTurnIndex } from '../adapters/index/turns.js';
import { nowStamp } from './fields.js';
import { filesById, findEntryFile } from './find.js';
import { repoForRead, repoForWrite, type RepoOptions } from './repo.js';
import { refuseSecrets, withWriteLock } from '../adapters/write/transaction.js';

export interface RecordOptions extends RepoOptions {
  transcript: string;
  /**
   * The session id from the hook input or `--session-id`: used only when no line of the transcript carries one
   * (transcriptSessionId: the transcript's own id wins, so every writer names a transcript's session alike).
   */
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
  /** The transcript already read (logSession read it): its facts and its stat then. */
  read?: { facts: TranscriptFacts; st: fs.Stats };
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
  return { file, st, facts: readTranscript(file, st.size).facts };
}

export { sessionForbidden };

async function recordOnce(options: RecordOptions): Promise<RecordResult> {
  const file = path.resolve(options.transcript);
  if (!options.read) transcriptStat(file); // a missing transcript is an error before any data repo is made
  let dir = options.dir;
  if (!dir) dir = options.create ? (await repoForWrite(options)).dir : repoForRead(options).dir;
  let read = options.read;
  if (!read) {
    // The turn log and archive first (a worker, catch-up or `session record`): it reads the transcript for both.
    const logged = await logSession({ transcript: file, sessionId: options.sessionId, dir, settings: options.settings });
    if (logged.facts && logged.st) read = { facts: logged.facts, st: logged.st };
  }
  const st = read?.st ?? transcriptStat(file);
  const facts = read?.facts ?? readTranscript(file, st.size).facts;
  const sessionId = transcriptSessionId(file, { given: options.sessionId, size: st.size });
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

/** A transcript on disk, and which session it is (transcriptSessionId). */
export interface TranscriptFile {
  file: string;
  sessionId: string;
  size: number;
  mtimeMs: number;
}

/** Transcript files (`<projects>/<project>/*.jsonl`, subagent files `agent-*.jsonl` left out) changed since `sinceMs`. */
function listTranscriptFiles(root: string, sinceMs = 0): Omit<TranscriptFile, 'sessionId'>[] {
  const out: Omit<TranscriptFile, 'sessionId'>[] = [];
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
      out.push({ file, size: st.size, mtimeMs: st.mtimeMs });
    }
  }
  return out;
}

/**
 * The sessions of recent transcripts, newest first, one file each: a session's id is read from its transcript's
 * lines (transcriptSessionId; the file name only when no line carries one). NOTE: two files of one session (a
 * transcript copied or renamed beside its original) are one session: the file kept is the one holding the most (a
 * transcript only grows), on a tie the one its state names, then the one named by its id, then the newest; the
 * others are `copies`, left alone, so a copy never makes a second summary nor turns the summary back and forth.
 */
function listTranscripts(dir: string, root: string, sinceMs = 0): { files: TranscriptFile[]; copies: number } {
  const bySession = new Map<string, TranscriptFile[]>();
  for (const f of listTranscriptFiles(root, sinceMs)) {
    const sessionId = transcriptSessionId(f.file, { size: f.size });
    if (!sessionId) continue;
    const all = bySession.get(sessionId) ?? [];
    all.push({ ...f, sessionId });
    bySession.set(sessionId, all);
  }
  const files: TranscriptFile[] = [];
  let copies = 0;
  for (const [sessionId, all] of bySession) {
    if (all.length > 1) {
      const known = readSessionState(dir, sessionId)?.transcript;
      const rank = (f: TranscriptFile): number[] => [f.size, f.file === known ? 1 : 0, transcriptStem(f.file) === sessionId ? 1 : 0, f.mtimeMs];
      all.sort((a, b) => {
        const ra = rank(a);
        const rb = rank(b);
        for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return rb[i]! - ra[i]!;
        return a.file < b.file ? -1 : 1;
      });
      copies += all.length - 1;
    }
    files.push(all[0]!);
  }
  return { files: files.sort((a, b) => b.mtimeMs - a.mtimeMs), copies };
}

export interface CatchUpOptions extends RepoOptions {
  /** The transcripts folder (default: `projects` in the Claude config folder of `settings`). */
  projects?: string;
  /** Only transcripts changed in the last this-many days (default 30). */
  days?: number;
  /** Session ids to leave alone (the session that started the catch-up): a transcript whose lines or file name name one. */
  exclude?: string[];
  /** Stop starting new transcripts after this long (default 60 s). */
  budgetMs?: number;
  dir?: string;
}

export interface CatchUpResult {
  looked: number;
  current: number;
  written: string[];
  /** Transcripts whose turn log (and archive) were brought up to date. */
  logged: number;
  unchanged: number;
  skipped: number;
  forbidden: number;
  /** Transcripts left alone as copies of another file of the same session (listTranscripts). */
  copies: number;
  failed: { file: string; error: string }[];
  /** Transcripts left for next time (the budget ran out). */
  left: number;
  /** Turn logs rebuilt from the archive, and archives removed past their retention. */
  rebuilt: number;
  pruned: number;
}

/**
 * Brings every recent transcript's turn log and archive up to date, and summarises those whose state says they
 * changed since they were last summarised (a debounced session's last turns land here); then the archive's
 * tidying (tidyArchive).
 */
export async function catchUpSessions(options: CatchUpOptions): Promise<CatchUpResult> {
  const dir = options.dir ?? repoForRead(options).dir;
  const started = Date.now();
  const days = options.days ?? 30;
  const { files, copies } = listTranscripts(dir, options.projects ?? projectsDir(options.settings), Date.now() - days * 86_400_000);
  const exclude = new Set(options.exclude ?? []);
  const result: CatchUpResult = { looked: 0, current: 0, written: [], logged: 0, unchanged: 0, skipped: 0, forbidden: 0, copies, failed: [], left: 0, rebuilt: 0, pruned: 0 };
  const todo = files.filter((f) => {
    if (exclude.has(f.sessionId) || exclude.has(transcriptStem(f.file) ?? '')) return false;
    const state = readSessionState(dir, f.sessionId);
    if (stateIsCurrent(state, f) && state?.loggedSize === f.size && state.loggedMtimeMs === f.mtimeMs) {
      result.current++;
      return false;
    }
    return true;
  });
  const matcher = forbiddenMatcher(await loadHosts(dir));
  for (const [i, f] of todo.entries()) {
    if (Date.now() - started > (options.budgetMs ?? 60_000)) {
      result.left = todo.length - i;
      break;
    }
    result.looked++;
    try {
      const logged = await logSession({ transcript: f.file, sessionId: f.sessionId, dir, settings: options.settings, forbidden: matcher });
      if (logged.status === 'logged') result.logged++;
      if (stateIsCurrent(readSessionState(dir, f.sessionId), f)) continue;
      const read = logged.facts && logged.st ? { facts: logged.facts, st: logged.st } : undefined;
      const r = await recordSession({ transcript: f.file, sessionId: f.sessionId, dir, settings: options.settings, forbidden: matcher, refreshIndex: false, read });
      if (r.status === 'written') result.written.push(r.id!);
      else if (r.status === 'unchanged') result.unchanged++;
      else if (r.status === 'forbidden') result.forbidden++;
      else result.skipped++;
    } catch (err) {
      result.failed.push({ file: f.file, error: (err as Error).message.split('\n')[0]! });
    }
  }
  if (Date.now() - started <= (options.budgetMs ?? 60_000)) {
    Object.assign(result, await tidyArchive(dir, options.settings, matcher));
    foldTurnIndex(dir); // the turn index's base, so searches add few documents of their own
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

/** One turn as `session show --turns` lists it. */
export interface TurnListItem {
  n: number;
  anchor: string;
  at?: string;
  prompt: string;
  replies: number;
  tools: number;
  recaps: number;
}

/** What `session show` reads: the summary (default), the list of turns, one turn, or the lines holding a text. */
export interface ShowOptions extends RepoOptions {
  id: string;
  turns?: boolean;
  /** A turn number or anchor. */
  turn?: string;
  grep?: string;
}

export type ShowResult =
  | { view: 'summary'; id: string; path: string; text: string }
  | { view: 'turns'; id: string; session_id: string; title: string; turns: TurnListItem[] }
  | { view: 'turn'; id: string; session_id: string; title: string; turn: LoggedTurn }
  | { view: 'grep'; id: string; session_id: string; title: string; grep: string; lines: GrepLine[] };

/**
 * How a session is named on the command line: true for an entry id (its summary's), false for a session id or a
 * prefix of one, which must be 8 characters or more (USAGE otherwise).
 */
export function isSummaryRef(q: string): boolean {
  if (/^kb-[0-9a-z]+$/.test(q)) return true;
  if (q.length < 8) throw new KbError('USAGE', `"${q}" is neither an entry id nor a session id (give at least 8 characters of a session id)`);
  return false;
}

/**
 * A session by entry id, or by session id (a unique prefix of at least 8 characters will do): its summary, or with
 * `turns`, `turn` or `grep` its turn log (spec/sessions.md, "Turns"), which outlives the transcript through the
 * archive and exists before the summary is committed.
 */
export async function showSession(options: ShowOptions): Promise<ShowResult> {
  const { dir } = repoForRead(options);
  const q = options.id.trim();
  const byEntry = isSummaryRef(q);
  const catalog = await loadCatalog(dir);
  const found = [...catalog.byId.values()].filter((e) => e.type === 'session_summary' && (byEntry ? e.id === q : typeof e.data.session_id === 'string' && (e.data.session_id as string).startsWith(q)));
  if (found.length > 1) throw new KbError('USAGE', `session id prefix ${q} matches ${found.length} sessions (${found.map((e) => e.id).join(', ')}); give more characters`);
  const entry = found[0];
  const wantsTurns = options.turns || options.turn !== undefined || options.grep !== undefined;
  if (!wantsTurns) {
    if (byEntry && !entry) {
      const f = findEntryFile(dir, q, filesById(dir)); // any entry by id, as before (NOT_FOUND when none)
      return { view: 'summary', id: q, path: f.path, text: readEntryText(dir, f.path) };
    }
    if (!entry) throw new KbError('NOT_FOUND', `no session summary for session ${q}; "git-kb session list" shows them, "git-kb session show ${q} --turns" reads a session not yet summarised`, { id: q });
    return { view: 'summary', id: entry.id, path: entry.path, text: readEntryText(dir, entry.path) };
  }
  const sessionId = typeof entry?.data.session_id === 'string' ? (entry.data.session_id as string) : undefined;
  const { findLog } = await import('./session-log.js');
  const log = await findLog(dir, options.settings, sessionId ? { sessionId } : byEntry ? { entryId: q } : { prefix: q });
  if (!log) throw new KbError('NOT_FOUND', `no turns kept for session ${q}: its transcript was never read on this machine (or the archive is off, KB_ARCHIVE=0)`, { id: q });
  const head = { id: entry?.id ?? log.id, session_id: log.sessionId, title: entry?.title ?? log.title };
  if (options.grep !== undefined) {
    if (options.grep.trim() === '') throw new KbError('USAGE', '--grep needs a text to look for');
    return { view: 'grep', ...head, grep: options.grep, lines: grepLog(log, options.grep) };
  }
  if (options.turn !== undefined) {
    const turn = findTurn(log, options.turn);
    if (!turn) throw new KbError('NOT_FOUND', `session ${head.id} has no turn ${options.turn} (turns 1 to ${log.turns.length ? log.turns[log.turns.length - 1]!.n : 0}; --turns lists them with their anchors)`, { id: q });
    return { view: 'turn', ...head, turn };
  }
  const turns = log.turns.map((t) => ({ n: t.n, anchor: t.anchor, ...(t.at ? { at: t.at } : {}), prompt: clip(t.prompt, 200), replies: t.replies.length, tools: t.tools.length, recaps: t.recaps.length }));
  return { view: 'turns', ...head, turns };
}
