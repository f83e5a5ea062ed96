/**
 * Contract: the debug log of the hooks and their workers (spec/hooks.md, "Debug log"): one JSONL record per event
 * appended to KB_HOOK_DEBUG_FILE when KB_HOOK_DEBUG is on; records carry counts, ids and reasons, never prompt text
 * or secrets. Bounded and never throws.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What the debug log needs of the Settings: whether it is on (KB_HOOK_DEBUG) and its file (KB_HOOK_DEBUG_FILE). */
export interface DebugSettings {
  hookDebug: boolean;
  hookDebugFile: string;
}

/** True when KB_HOOK_DEBUG is on. */
export function debugEnabled(settings: DebugSettings): boolean {
  return settings.hookDebug;
}

/** Largest debug record written; a longer one is cut (the log is for counts and ids, never for prompt text). */
const MAX_DEBUG_RECORD = 16 * 1024;

/**
 * Appends one JSONL record to the debug log when debugging is on. Bounded: one open (the file created with mode
 * 600, its folder with mode 700, made at most once, never recursively), one write, no retry loop, and any error
 * (a folder under /proc, a full disk) drops the record. Never throws.
 */
export function debugLog(record: object, settings: DebugSettings): void {
  if (!debugEnabled(settings)) return;
  const file = settings.hookDebugFile;
  const line = `${JSON.stringify({ time: new Date().toISOString(), ...record }).slice(0, MAX_DEBUG_RECORD)}\n`;
  const open = (): number => fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NONBLOCK, 0o600);
  let fd: number | undefined;
  try {
    try {
      fd = open();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
      fs.mkdirSync(path.dirname(file), { mode: 0o700 });
      fd = open();
    }
    if (!fs.fstatSync(fd).isFile()) return;
    fs.writeSync(fd, line);
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

