/**
 * Contract: the transcript archive of spec/sessions.md, "Archive": each session's transcript, redacted line by
 * line, gzip-compressed, in a folder only the user can read (mode 700, files 600), outside the data repo and
 * outside git, kept for `KB_ARCHIVE_DAYS` after its last change. It is the source of the turn log, and what is left
 * when Claude Code deletes the transcript after its retention window.
 *
 * Incremental: a transcript only grows, so each look appends the complete lines written since the last one as one
 * more gzip member, or several for more than a MB (a gzip file may hold many; reading inflates them all). The meta file records how far the
 * source was read and how many compressed bytes are valid: a writer killed in an append leaves bytes past that
 * mark, which the next writer cuts off before it appends. A transcript whose head changed (rewritten) or whose
 * redaction learned a new secret value is archived again from the start. One writer per session at a time (a lock
 * file); a writer that finds it busy leaves the work to the next look.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fnv1a } from '../../core/text/fnv.js';
import { acquireLock } from './lock.js';
import { lineSplitter, readAt, writeFileAtomic, writeFileAtomicWith } from './fsutil.js';
import { sessionFileBase } from './session-state.js';

const META_VERSION = 1;
/** The bytes of the source's head whose hash tells a rewritten transcript from a grown one. */
const HEAD_BYTES = 4096;
/** Redacted text compressed into one gzip member at a time (a look of hundreds of MB is never compressed whole). */
const MEMBER_CHARS = 1 << 20;

/** What the archive knows of one session's transcript. */
export interface ArchiveMeta {
  v: number;
  sessionId: string;
  /** The transcript's path when last archived. */
  transcript: string;
  /** Bytes of the source archived (up to the end of its last complete line). */
  bytes: number;
  /** The source's size and mtime when last looked at. */
  size: number;
  mtimeMs: number;
  /** Valid compressed bytes of the archive file. */
  gzBytes: number;
  /** Hash of the source's first bytes. */
  head: string;
  /** How many secret-file values the redaction knew: more means the earlier lines must be redacted again. */
  secretValues: number;
}

function files(root: string, sessionId: string) {
  const base = path.join(root, sessionFileBase(sessionId));
  return { gz: `${base}.jsonl.gz`, meta: `${base}.json`, lock: `${base}.lock` };
}

/** The archive folder, made with mode 700 (and set to it if it was made otherwise). */
function ensureRoot(root: string): void {
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  const st = fs.statSync(root);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(root, 0o700);
}

export function readArchiveMeta(root: string, sessionId: string): ArchiveMeta | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(files(root, sessionId).meta, 'utf8')) as ArchiveMeta;
    return m && m.v === META_VERSION && m.sessionId === sessionId ? m : undefined;
  } catch {
    return undefined;
  }
}

/** True when the archive holds the transcript as it is now (same size and mtime). */
export function archiveIsCurrent(meta: ArchiveMeta | undefined, st: { size: number; mtimeMs: number }): boolean {
  return !!meta && meta.size === st.size && meta.mtimeMs === st.mtimeMs;
}

/**
 * The archived (redacted) transcript text line by line (the inflated text split at `\n`), inflated as it is read;
 * false when there is no archive or it does not inflate (then `line` may have had some lines: the caller drops what
 * it made of them).
 */
export async function readArchiveLines(root: string, sessionId: string, line: (text: string) => void): Promise<boolean> {
  const meta = readArchiveMeta(root, sessionId);
  if (!meta) return false;
  if (meta.gzBytes === 0) return true;
  const { pipeline } = await import('node:stream/promises');
  const lines = lineSplitter(line);
  try {
    await pipeline(fs.createReadStream(files(root, sessionId).gz, { start: 0, end: meta.gzBytes - 1 }), zlib.createGunzip(), async (source: AsyncIterable<Buffer>) => {
      for await (const chunk of source) lines.push(chunk);
    });
  } catch {
    return false;
  }
  lines.end();
  return true;
}

export interface ArchiveInput {
  sessionId: string;
  /** The transcript (its first bytes are hashed) and its stat when read. */
  transcript: string;
  st: { size: number; mtimeMs: number };
  /** The end of the transcript's last complete line as read now (the last may still be being written). */
  end: number;
  /** How many secret-file values the redaction knows now. */
  secretValues: number;
  /**
   * Gives `put` the redacted text of the transcript's complete lines from byte `from` to `end`, in pieces of whole
   * lines, each newline-terminated.
   */
  redact: (from: number, put: (text: string) => void) => void;
}

export type ArchiveOutcome = 'current' | 'appended' | 'rewritten' | 'busy';

/** Archives what is new in a transcript (see the module contract). */
export async function archiveTranscript(root: string, input: ArchiveInput): Promise<ArchiveOutcome> {
  const { sessionId, end } = input;
  ensureRoot(root);
  const f = files(root, sessionId);
  let lock;
  try {
    lock = await acquireLock(f.lock, { timeoutMs: 1500, what: 'the transcript archive' });
  } catch {
    return 'busy';
  }
  try {
    const meta = readArchiveMeta(root, sessionId);
    const fd0 = fs.openSync(input.transcript, 'r');
    let first: Buffer;
    try {
      first = readAt(fd0, 0, Math.min(HEAD_BYTES, end));
    } finally {
      fs.closeSync(fd0);
    }
    const headOf = (n: number): string => fnv1a(first.subarray(0, Math.min(HEAD_BYTES, n)).toString('latin1')).toString(36);
    const head = headOf(end);
    const same = !!meta && meta.bytes <= end && meta.head === headOf(meta.bytes) && meta.secretValues === input.secretValues && fs.existsSync(f.gz);
    const from = same ? meta!.bytes : 0;
    const next = (gzBytes: number): ArchiveMeta => ({ v: META_VERSION, sessionId, transcript: input.transcript, bytes: end, size: input.st.size, mtimeMs: input.st.mtimeMs, gzBytes, head, secretValues: input.secretValues });
    if (same && from === end) {
      writeFileAtomic(f.meta, JSON.stringify(next(meta!.gzBytes)), { mode: 0o600, fsync: false });
      return 'current';
    }
    /** Writes the redacted lines from `from` as gzip members at `at` in `fd`; returns the bytes written. */
    const members = (fd: number, at: number): number => {
      let pos = at;
      let pieces: string[] = [];
      let chars = 0;
      const flush = (last = false): void => {
        if (pieces.length === 0 && (!last || pos > at)) return; // a look with no line still writes its (empty) member
        const member = zlib.gzipSync(Buffer.from(pieces.join(''), 'utf8'));
        pieces = [];
        chars = 0;
        for (let done = 0; done < member.length; ) done += fs.writeSync(fd, member, done, member.length - done, pos + done);
        pos += member.length;
      };
      input.redact(from, (text) => {
        pieces.push(text);
        chars += text.length;
        if (chars >= MEMBER_CHARS) flush();
      });
      flush(true);
      return pos - at;
    };
    if (same) {
      const fd = fs.openSync(f.gz, 'r+', 0o600);
      let written: number;
      try {
        fs.ftruncateSync(fd, meta!.gzBytes); // bytes past the mark are a killed writer's half member
        written = members(fd, meta!.gzBytes);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      writeFileAtomic(f.meta, JSON.stringify(next(meta!.gzBytes + written)), { mode: 0o600 });
      return 'appended';
    }
    let written = 0;
    writeFileAtomicWith(f.gz, (fd) => (written = members(fd, 0)), { mode: 0o600 });
    writeFileAtomic(f.meta, JSON.stringify(next(written)), { mode: 0o600 });
    return 'rewritten';
  } finally {
    lock.release();
  }
}

/** Removes a session's archive (a transcript that turned out to name a forbidden host). */
export function removeArchive(root: string, sessionId: string): void {
  const f = files(root, sessionId);
  fs.rmSync(f.meta, { force: true });
  fs.rmSync(f.gz, { force: true });
}

/** Session ids in the archive, with when each was last archived. */
export function listArchive(root: string): { sessionId: string; mtimeMs: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  const out: { sessionId: string; mtimeMs: number }[] = [];
  for (const n of names) {
    if (!n.endsWith('.json')) continue;
    try {
      const m = JSON.parse(fs.readFileSync(path.join(root, n), 'utf8')) as ArchiveMeta;
      if (m?.v === META_VERSION && typeof m.sessionId === 'string') out.push({ sessionId: m.sessionId, mtimeMs: fs.statSync(path.join(root, n)).mtimeMs });
    } catch {
      /* not ours */
    }
  }
  return out;
}

/** Removes archives unchanged for more than `days` days (0: keep for ever); returns how many went. */
export function pruneArchive(root: string, days: number, now = Date.now()): string[] {
  if (!(days > 0)) return [];
  const gone: string[] = [];
  for (const a of listArchive(root)) {
    if (now - a.mtimeMs <= days * 86_400_000) continue;
    removeArchive(root, a.sessionId);
    gone.push(a.sessionId);
  }
  return gone;
}
