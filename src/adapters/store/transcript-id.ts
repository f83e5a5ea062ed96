/**
 * Contract: which session a transcript file is (spec/sessions.md, "Which session a transcript is"), the ONE answer
 * that `session record`, catch-up, the turn log and the session hooks share: the session id of the LAST line that
 * carries one (read from the file's end, so a resumed session's file that begins with the history it copied is
 * named by its own session, as Claude Code names the file); when no line does, the id the caller was given (a hook's
 * payload, `--session-id`); else, for a `.jsonl` file, its name without the extension. Cheap: the file is read
 * backwards from its end a few kilobytes at a time until a line with an id turns up, so looking at hundreds of
 * transcripts costs a small read each. Light: the session hooks call it before they load anything heavy.
 */
import fs from 'node:fs';
import path from 'node:path';
import { lineSessionId } from '../../core/sessions/transcript.js';
import { readAt } from './fsutil.js';

/** The first read from a transcript's end; each further read doubles, up to READ_MAX. */
const READ_FIRST = 8 * 1024;
const READ_MAX = 1024 * 1024;
/** How far back from the end a transcript is looked through for an id at most. */
const SCAN_MAX = 64 * 1024 * 1024;
/** The most of one line kept for reading its id (a longer line is read from its start, cut here). */
const LINE_KEEP = 1024 * 1024;

/** The name a transcript file gives its session: `<id>.jsonl` without the extension; none for other names. */
export function transcriptStem(file: string): string | undefined {
  const base = path.basename(file);
  return base.endsWith('.jsonl') && base.length > '.jsonl'.length ? base.slice(0, -'.jsonl'.length) : undefined;
}

/** The session id of the last line that carries one, read backwards from `size`; undefined when none does (or the file cannot be read). */
export function lastLineSessionId(file: string, size?: number): string | undefined {
  let fd: number | undefined;
  try {
    // NOTE: non-blocking, and regular files only: a FIFO given as a transcript must not hold a hook.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return undefined;
    return scanBack(fd, Math.min(size ?? st.size, st.size));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

function scanBack(fd: number, size: number): string | undefined {
  let pos = size;
  // The bytes after `pos` of the line being read backwards (its first LINE_KEEP bytes once it is longer: `cut`).
  let tail = Buffer.alloc(0);
  let cut = false;
  let want = READ_FIRST;
  while (pos > 0 && size - pos < SCAN_MAX) {
    const len = Math.min(want, pos);
    want = Math.min(want * 2, READ_MAX);
    pos -= len;
    const chunk = readAt(fd, pos, len);
    let end = chunk.length;
    for (;;) {
      const nl = end > 0 ? chunk.lastIndexOf(10, end - 1) : -1;
      if (nl < 0) break;
      const id = lineSessionId(Buffer.concat([chunk.subarray(nl + 1, end), tail]).toString('utf8'), !cut);
      if (id) return id;
      tail = Buffer.alloc(0);
      cut = false;
      end = nl;
    }
    tail = Buffer.concat([chunk.subarray(0, end), tail]);
    if (tail.length > LINE_KEEP) {
      tail = tail.subarray(0, LINE_KEEP);
      cut = true;
    }
  }
  return pos === 0 ? lineSessionId(tail.toString('utf8'), !cut) : undefined;
}

/**
 * Which session a transcript is (see the module contract): the last id its lines carry, else `given`, else its
 * file name's stem (`.jsonl` files only); undefined when none of these is known.
 */
export function transcriptSessionId(file: string, options: { given?: string; size?: number } = {}): string | undefined {
  const given = options.given?.trim() ? options.given : undefined;
  return lastLineSessionId(file, options.size) ?? given ?? transcriptStem(file);
}
