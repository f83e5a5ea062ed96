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
import { archiveTranscript, listArchive, pruneArchive, readArchive, removeArchive, type ArchiveOutcome } from '../adapters/store/archive.js';
import { loadHosts } from '../adapters/store/hosts-file.js';
import { readAt } from '../adapters/store/fsutil.js';
import { readSessionState, writeSessionState } from '../adapters/store/session-state.js';
import { transcriptSessionId } from '../adapters/store/transcript-id.js';
import { findSessionLogs, readSessionLog, removeSessionLog, writeSessionLog } from '../adapters/index/turns.js';
import { KbError } from '../core/errors.js';
import { forbiddenMatch, forbiddenMatcher, type ForbiddenHit, type HostMatcher } from '../core/hosts/hosts.js';
import { isOwnChildSession, sessionScrubber } from '../core/sessions/summary.js';
import { allTranscriptText, parseTranscript, redactTranscriptLine, type TranscriptFacts } from '../core/sessions/transcript.js';
import { sessionLog, type SessionLog } from '../core/sessions/turns.js';

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

/** A transcript's bytes (its first MAX_TRANSCRIPT_BYTES when bigger). */
export function readTranscriptBytes(file: string, size: number): Buffer {
  if (size <= MAX_TRANSCRIPT_BYTES) return fs.readFileSync(file);
  const fd = fs.openSync(file, 'r');
  try {
    return readAt(fd, 0, MAX_TRANSCRIPT_BYTES);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The forbidden host or global pattern a session touched, if any. NOTE: the whole transcript is checked, tool output
 * and subagent text included, plus its path (a project folder can carry a host's name): a session that touched a
 * forbidden host leaves no summary, no turn log, no archive and no reflection at all.
 */
export function sessionForbidden(matcher: HostMatcher, file: string, sessionId: string | undefined, facts: TranscriptFacts): ForbiddenHit | undefined {
  return forbiddenMatch(matcher, `${file}\n${sessionId ?? ''}\n${allTranscriptText(facts)}`);
}

/** Every line of a transcript text through the session's redaction (blank lines kept as they are). */
function redactLines(text: string, scrub: (s: string) => string): string {
  return text
    .split('\n')
    .map((l) => (l.trim() ? redactTranscriptLine(l, scrub) : l))
    .join('\n');
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
  const source = readTranscriptBytes(file, st.size);
  const facts = parseTranscript(source.toString('utf8'));
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
  let archive: LogResult['archive'] = 'off';
  let redacted: string | undefined;
  if (settings.archive) {
    archive = await archiveTranscript(settings.archiveDir, {
      sessionId,
      transcript: file,
      source,
      st,
      secretValues: scrubber.values,
      redact: (lines) => redactLines(lines, scrubber.scrub),
    });
    if (archive !== 'busy') redacted = readArchive(settings.archiveDir, sessionId);
  }
  redacted ??= redactLines(source.toString('utf8'), scrubber.scrub);
  const log = sessionLog(parseTranscript(redacted), sessionId);
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
  const text = readArchive(settings.archiveDir, sessionId);
  if (text === undefined) return undefined;
  const facts = parseTranscript(text);
  const m = matcher ?? forbiddenMatcher(await loadHosts(dir));
  if (forbiddenMatch(m, `${sessionId}\n${allTranscriptText(facts)}`)) return undefined;
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
