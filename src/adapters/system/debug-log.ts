/**
 * Contract: the debug log of the hooks and their workers (spec/hooks.md, "Debug log"): one JSONL record per event
 * appended to KB_HOOK_DEBUG_FILE when KB_HOOK_DEBUG is on; records carry counts, ids and reasons, never prompt text
 * or secrets. Bounded and never throws. The default file lies in the shared temp folder, so it is written only
 * into a folder of the user's own that nobody else may write, and never through a link another user planted.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * What the debug log needs of the Settings: whether it is on (KB_HOOK_DEBUG), its file (KB_HOOK_DEBUG_FILE), and
 * whether that is the default file in the shared temp folder (whose folder must then be the user's alone).
 */
export interface DebugSettings {
  hookDebug: boolean;
  hookDebugFile: string;
  hookDebugShared: boolean;
}

/** True when KB_HOOK_DEBUG is on. */
export function debugEnabled(settings: DebugSettings): boolean {
  return settings.hookDebug;
}

/** Largest debug record written, in characters; a longer one has its long fields shortened (it stays one JSON line). */
const MAX_DEBUG_RECORD = 16 * 1024;
/** In a record over MAX_DEBUG_RECORD: the most characters kept of a string, and of items kept of a list. */
const MAX_FIELD = 256;
const MAX_ITEMS = 50;

/** One record as one line of JSON of at most about MAX_DEBUG_RECORD characters: shortened, never cut mid-JSON. */
function debugLine(record: object): string {
  const rec = { time: new Date().toISOString(), ...record };
  const line = JSON.stringify(rec);
  if (line.length <= MAX_DEBUG_RECORD) return line;
  const short = JSON.stringify(rec, (_key, v: unknown) => {
    if (typeof v === 'string' && v.length > MAX_FIELD) return `${v.slice(0, MAX_FIELD)}… (${v.length} characters)`;
    if (Array.isArray(v) && v.length > MAX_ITEMS) return [...v.slice(0, MAX_ITEMS), `… (${v.length} items)`];
    return v;
  });
  if (short.length <= MAX_DEBUG_RECORD) return short;
  const event = (record as { event?: unknown }).event;
  return JSON.stringify({ time: rec.time, event: typeof event === 'string' ? event.slice(0, MAX_FIELD) : undefined, cut: `a record of ${line.length} characters` });
}

/** True when `folder` is a real folder (not a link) of this user's that nobody else may write. */
function ownFolder(folder: string): boolean {
  const st = fs.lstatSync(folder);
  return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o022) === 0;
}

/**
 * Appends one JSONL record to the debug log when debugging is on. Bounded: one open (the file created with mode
 * 600, its folder with mode 700, made at most once, never recursively), one write, no retry loop, and any error
 * (a folder under /proc, a full disk) drops the record. The file must be a regular file of this user's with one
 * link, opened without following a link; in the default folder, the folder must be this user's alone. Never throws.
 */
export function debugLog(record: object, settings: DebugSettings): void {
  if (!debugEnabled(settings)) return;
  const file = settings.hookDebugFile;
  const folder = path.dirname(file);
  const shared = settings.hookDebugShared && process.getuid !== undefined;
  const { O_WRONLY, O_APPEND, O_CREAT, O_NONBLOCK, O_NOFOLLOW } = fs.constants;
  const open = (): number => fs.openSync(file, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | (O_NOFOLLOW ?? 0), 0o600);
  let fd: number | undefined;
  try {
    try {
      if (shared && !ownFolder(folder)) return;
      fd = open();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
      fs.mkdirSync(folder, { mode: 0o700 });
      if (shared && !ownFolder(folder)) return;
      fd = open();
    }
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.nlink !== 1 || (process.getuid !== undefined && st.uid !== process.getuid())) return;
    fs.writeSync(fd, `${debugLine(record)}\n`);
  } catch {
    /* debugging must never break a hook */
  } finally {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        /* nothing to do */
      }
    }
  }
}
