/**
 * Contract: file writes that are all-or-nothing (write a temporary sibling, fsync, rename) and a cross-process
 * lock that a killed holder cannot wedge: a lock whose holder process is gone is broken by the next writer.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { processAlive } from '../system/pid.js';

function tempSibling(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
}

/** Writes a file atomically: readers see the old content or the new, never a part. */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: { mode?: number; fsync?: boolean } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempSibling(file);
  const fd = fs.openSync(tmp, 'w', options.mode ?? 0o644);
  try {
    fs.writeFileSync(fd, data);
    if (options.fsync !== false) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** The promise form of writeFileAtomic, with fs.promises.writeFile's signature (for isomorphic-git). */
export async function writeFileAtomicAsync(file: string, data: string | Uint8Array, options?: unknown): Promise<void> {
  const mode = typeof options === 'object' && options !== null ? (options as { mode?: number }).mode : undefined;
  const tmp = tempSibling(file);
  const handle = await fs.promises.open(tmp, 'w', mode ?? 0o644);
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
  try {
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
}

/**
 * An `fs` for isomorphic-git whose writeFile is atomic, so a process killed while git writes the index, a ref
 * or an object leaves the old file or the new one, never a torn one.
 */
export const atomicFs = {
  promises: { ...fs.promises, writeFile: writeFileAtomicAsync },
};

interface LockInfo {
  pid: number;
  host: string;
  time: number;
}

function parseLock(text: string): LockInfo | undefined {
  const [pid, host, time] = text.split('\n');
  const info = { pid: Number(pid), host: host ?? '', time: Number(time) };
  return Number.isInteger(info.pid) && info.pid > 0 && Number.isFinite(info.time) ? info : undefined;
}

/** Locks older than this are broken whatever their holder, since no write takes so long. */
const MAX_LOCK_AGE_MS = 10 * 60_000;
/** A lock file with no readable holder (its writer died between create and write) is stale after this. */
const UNREADABLE_LOCK_GRACE_MS = 2_000;

function isStale(lockFile: string): boolean {
  let text: string;
  let mtime: number;
  try {
    text = fs.readFileSync(lockFile, 'utf8');
    mtime = fs.statSync(lockFile).mtimeMs;
  } catch {
    return false; // gone already: the next attempt will take it
  }
  const info = parseLock(text);
  if (!info) return Date.now() - mtime > UNREADABLE_LOCK_GRACE_MS;
  if (Date.now() - info.time > MAX_LOCK_AGE_MS) return true;
  return info.host === os.hostname() && !processAlive(info.pid);
}

/**
 * Breaks a stale lock. A second lock (`<lock>.break`, created exclusively) makes sure two waiters never break a
 * lock that a third has meanwhile taken; a break lock is itself only held for microseconds, so an old one is dead.
 */
function breakStale(lockFile: string): void {
  const breaker = `${lockFile}.break`;
  try {
    fs.writeFileSync(breaker, String(process.pid), { flag: 'wx' });
  } catch {
    try {
      if (Date.now() - fs.statSync(breaker).mtimeMs > UNREADABLE_LOCK_GRACE_MS) fs.rmSync(breaker, { force: true });
    } catch {
      /* someone else removed it */
    }
    return;
  }
  try {
    if (isStale(lockFile)) fs.rmSync(lockFile, { force: true });
  } finally {
    fs.rmSync(breaker, { force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A held lock; `release` is idempotent. */
export interface Lock {
  file: string;
  /** True when acquiring it meant breaking a lock left by a dead process. */
  recovered: boolean;
  release(): void;
}

/** Takes the lock file exclusively, waiting up to `timeoutMs`, breaking it if its holder died. */
export async function acquireLock(lockFile: string, options: { timeoutMs?: number; what?: string } = {}): Promise<Lock> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  let recovered = false;
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = fs.openSync(lockFile, 'wx');
      try {
        fs.writeSync(fd, `${process.pid}\n${os.hostname()}\n${Date.now()}\n`);
      } finally {
        fs.closeSync(fd);
      }
      let released = false;
      return {
        file: lockFile,
        recovered,
        release() {
          if (released) return;
          released = true;
          fs.rmSync(lockFile, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (isStale(lockFile)) {
      breakStale(lockFile);
      recovered = true;
      continue;
    }
    if (Date.now() > deadline) {
      throw new KbError(
        'LOCK_TIMEOUT',
        `${options.what ?? 'the data repo'} is locked by another git-kb process (${lockFile}); try again, or remove that file if no git-kb is running`,
        { file: lockFile },
      );
    }
    await sleep(5 + Math.min(50, attempt * 2) * Math.random());
  }
}
