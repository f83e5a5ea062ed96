/**
 * Contract: the turn log and the transcript archive of spec/sessions.md, "Turns" and "Archive". `logSession`
 * brings one session's archive (redacted, compressed, outside the data repo) and its turn log (under
 * `.git/git-kb/turns/`, which search reads) up to date with its transcript: the Stop hook runs it at the end of every
 * turn, so the turn is searchable from any other session at once, with no commit. A transcript that names a
 * forbidden host or pattern keeps neither. `readTurns` reads a session turn by turn (`session show --turns`,
 * `--turn`, `--grep`), from its log, else from its archive when the transcript is gone.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Settings } from '../adapters/config/settings.js';
import { archiveTranscript, listArchive, pruneArchive, readArchiveLines, removeArchive, type ArchiveOutcome } from '../adapters/store/archive.js';
import { loadHosts } from '../adapters/store/hosts-file.js';
import { forEachLine } from '../adapters/store/fsutil.js';
import { readSessionState, writeSessionState } from '../adapters/store/session-state.js';
import { transcriptSessionId } from '../adapters/store/transcript-id.js';
import { findSessionLogs, readSessionLog, removeSessionLog, writeSessionLog } from '../adapters/index/turns.js';
import { KbError } from '../core/errors.js';
import { forbiddenMatch, forbiddenMatcher, type ForbiddenHit, type HostMatcher } from '../core/hosts/hosts.js';
import { isOwnChildSession, sessionScrubber } from '../core/sessions/summary.js';
import { redactTranscriptLine, transcriptReader, transcriptTexts, type TranscriptFacts } from '../core/sessions/transcript.js';
import { sessionLog, turnLogReader, type SessionLog } from '../core/sessions/turns.js';

/** The largest transcript read (bigger ones are read from their first this-many bytes). */
const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

/** A transcript's stat, or a clear error. */
export function transcriptStat(file: string): fs.Stats {
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch (err) {
    throw new KbError('NOT_FOUND', `cannot read transcript ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { file });
  }
  if (!st.isFile()) throw new KbError('USAGE', `transcript ${file} is not a file`, { file });
  return st;
}

/** A transcript as read: its facts, the bytes read, and the end of its last complete line. */
export interface TranscriptRead {
  facts: TranscriptFacts;
  bytes: number;
  end: number;
}

/**
 * A transcript read (its first MAX_TRANSCRIPT_BYTES when bigger) and parsed line by line: its text is never held
 * whole, only the facts parsed from it (a transcript of hundreds of MB is read in about its size, not eight times it).
 */
export function readTranscript(file: string, size: number): TranscriptRead {
  const reader = transcriptReader();
  const { bytes, end } = forEachLine(file, 0, size <= MAX_TRANSCRIPT_BYTES ? Infinity : MAX_TRANSCRIPT_BYTES, (l) => reader.line(l));
  return { facts: reader.finish(), bytes, end };
}

/**
 * The forbidden host or global pattern a session touched, if any. NOTE: the whole transcript is checked, tool output
 * and subagent text included, plus its path (a project folder can carry a host's name): a session that touched a
 * forbidden host leaves no summary, no turn log, no archive and no reflection at all. The text checked is the path,
 * the session id and allTranscriptText, one per line, given to the matcher in parts (the same answer as the joined
 * text: hostScan), so a transcript's text is never copied whole.
 */
export function sessionForbidden(matcher: HostMatcher, file: string, sessionId: string | undefined, facts: TranscriptFacts): ForbiddenHit | undefined {
  return forbiddenMatch(matcher, withTexts([file, sessionId ?? ''], facts));
}

/** `head` then the transcript's texts, as the parts of `${head.join('\n')}\n${allTranscriptText(facts)}`. */
function* withTexts(head: string[], facts: TranscriptFacts): Generator<string> {
  yield* head;
  const texts = transcriptTexts(facts);
  if (texts.length === 0) yield '';
  for (const t of texts) yield t;
}

/** A transcript line through the session's redaction (a blank line kept as it is). */
function redactLine(line: string, scrub: (s: string) => string): string {
  return line.trim() ? redactTranscriptLine(line, scrub) : line;
}

export interface LogOptions {
  transcript: string;
  /** The session id from the hook input, used when no line of the transcript carries one (transcriptSessionId). */
  sessionId?: string;
  /** The data repo (it exists). */
  dir: string;
  settings: Settings;
  /** A forbidden matcher already built (catch-up builds it once). */
  forbidden?: HostMatcher;
}

export interface LogResult {
  status: 'logged' | 'current' | 'skipped' | 'forbidden';
  sessionId?: string;
  turns?: number;
  archive?: ArchiveOutcome | 'off';
  /** The transcript's facts as read (unredacted), for a summary written right after. */
  facts?: TranscriptFacts;
  /** The transcript's stat when read. */
  st?: fs.Stats;
}

/** Brings a session's archive and turn log up to date with its transcript (see the module contract). */
export async function logSession(options: LogOptions): Promise<LogResult> {
  const { dir, settings } = options;
  const file = path.resolve(options.transcript);
  const st = transcriptStat(file);
  const sessionId = transcriptSessionId(file, { given: options.sessionId, size: st.size });
  if (sessionId) {
    const state = readSessionState(dir, sessionId);
    if (state?.loggedSize === st.size && state.loggedMtimeMs === st.mtimeMs && (state.outcome === 'forbidden' || readSessionLog(dir, sessionId))) {
      return { status: 'current', sessionId };
    }
  }
  const read = readTranscript(file, st.size);
  const facts = read.facts;
  if (!sessionId || isOwnChildSession(facts)) return { status: 'skipped', facts, st };
  const mark = (extra: Record<string, unknown> = {}): void => {
    writeSessionState(dir, { ...readSessionState(dir, sessionId), sessionId, transcript: file, loggedSize: st.size, loggedMtimeMs: st.mtimeMs, ...extra });
  };
  const matcher = options.forbidden ?? forbiddenMatcher(await loadHosts(dir));
  if (sessionForbidden(matcher, file, sessionId, facts)) {
    removeArchive(settings.archiveDir, sessionId);
    removeSessionLog(dir, sessionId);
    mark({ outcome: 'forbidden' });
    return { status: 'forbidden', sessionId, facts, st };
  }
  const scrubber = sessionScrubber(facts);
  // The transcript is read again line by line for what is stored: the bytes read above, no more (it may have grown).
  const redacted = (from: number, to: number, put: (line: string) => void): void => {
    forEachLine(file, from, to, (l) => put(redactLine(l, scrubber.scrub)));
  };
  let archive: LogResult['archive'] = 'off';
  // The turn log is read from the redacted transcript as the archive holds it (what it held before, and what this
  // look added), so a log rebuilt from the archive later is the same.
  let turns: ReturnType<typeof transcriptReader> | undefined;
  if (settings.archive) {
    archive = await archiveTranscript(settings.archiveDir, {
      sessionId,
      transcript: file,
      st,
      end: read.end,
      secretValues: scrubber.values,
      redact: (from, put) => {
        // Archived from its start: the lines archived are the whole archive, read as they are written.
        const tee = from === 0 ? (turns = turnLogReader()) : undefined;
        redacted(from, read.end, (l) => {
          put(`${l}\n`);
          tee?.line(l);
        });
      },
    });
    if (archive === 'busy') turns = undefined;
    else if (archive !== 'rewritten') {
      const reader = turnLogReader();
      turns = (await readArchiveLines(settings.archiveDir, sessionId, (l) => reader.line(l))) ? reader : undefined;
    }
  }
  if (!turns) {
    const reader = turnLogReader();
    redacted(0, read.bytes, (l) => reader.line(l));
    turns = reader;
  }
  const log = sessionLog(turns.finish(), sessionId);
  if (!log) {
    mark();
    return { status: 'skipped', sessionId, archive, facts, st };
  }
  writeSessionLog(dir, log);
  mark();
  return { status: 'logged', sessionId, turns: log.turns.length, archive, facts, st };
}

/**
 * A session's log rebuilt from its archive (the transcript may be gone), written back to the turn store; none
 * when the archive names a forbidden host or pattern of this data repo.
 */
async function logFromArchive(dir: string, settings: Settings, sessionId: string, matcher?: HostMatcher): Promise<SessionLog | undefined> {
  const reader = transcriptReader();
  if (!(await readArchiveLines(settings.archiveDir, sessionId, (l) => reader.line(l)))) return undefined;
  const facts = reader.finish();
  const m = matcher ?? forbiddenMatcher(await loadHosts(dir));
  if (forbiddenMatch(m, withTexts([sessionId], facts))) return undefined;
  const log = sessionLog(facts, sessionId);
  if (log) {
    try {
      writeSessionLog(dir, log);
    } catch {
      /* read-only repo: read again next time */
    }
  }
  return log;
}

/**
 * A session's turn log by session id (or a unique prefix of 8 or more characters) or by entry id: from the turn
 * store, else rebuilt from the archive. Undefined when neither has it.
 */
export async function findLog(dir: string, settings: Settings, ref: { sessionId?: string; entryId?: string; prefix?: string }): Promise<SessionLog | undefined> {
  if (ref.sessionId) return readSessionLog(dir, ref.sessionId) ?? (await logFromArchive(dir, settings, ref.sessionId));
  const stored = ref.entryId ? findSessionLogs(dir, (l) => l.id === ref.entryId) : findSessionLogs(dir, (l) => l.sessionId.startsWith(ref.prefix ?? '\0'), ref.prefix);
  if (stored.length > 1) throw new KbError('USAGE', `session id prefix ${ref.prefix} matches ${stored.length} sessions; give more characters`);
  if (stored[0]) return stored[0];
  if (!ref.prefix || !settings.archive) return undefined;
  const archived = listArchive(settings.archiveDir).filter((a) => a.sessionId.startsWith(ref.prefix!));
  if (archived.length > 1) throw new KbError('USAGE', `session id prefix ${ref.prefix} matches ${archived.length} archived sessions; give more characters`);
  return archived[0] ? logFromArchive(dir, settings, archived[0].sessionId) : undefined;
}

/**
 * Catch-up's share: turn logs for archived sessions that have none (the store was deleted, or the transcript is
 * gone), and archives older than the retention removed with their logs.
 */
export async function tidyArchive(dir: string, settings: Settings, matcher?: HostMatcher): Promise<{ rebuilt: number; pruned: number }> {
  if (!settings.archive) return { rebuilt: 0, pruned: 0 };
  const pruned = pruneArchive(settings.archiveDir, settings.archiveDays);
  for (const id of pruned) removeSessionLog(dir, id);
  let rebuilt = 0;
  const m = matcher ?? forbiddenMatcher(await loadHosts(dir));
  for (const a of listArchive(settings.archiveDir)) {
    if (readSessionLog(dir, a.sessionId)) continue;
    if (await logFromArchive(dir, settings, a.sessionId, m)) rebuilt++;
  }
  return { rebuilt, pruned: pruned.length };
}
