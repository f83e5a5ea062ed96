/**
 * Contract: a cross-process lock that a killed holder cannot wedge (a lock file holding the holder's pid, host and
 * time; one whose holder process is gone, or that is older than any write takes, is broken by the next writer),
 * and the data repo's write lock, `.git/git-kb/write.lock`, with the one answer to "is a writer busy right now".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { processAlive } from '../system/pid.js';
import { stateDir } from './layout.js';

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
    let fd: number | undefined;
    try {
      fd = fs.openSync(lockFile, 'wx');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      try {
        fs.writeSync(fd, `${process.pid}\n${os.hostname()}\n${Date.now()}\n`);
      } catch (err) {
        // A full disk: the lock was made but its holder could not be written. It goes, or every later writer
        // would find an empty lock to break (spec/errors.md).
        fs.closeSync(fd);
        fs.rmSync(lockFile, { force: true });
        throw err;
      }
      fs.closeSync(fd);
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
    }
    if (isStale(lockFile)) {
      breakStale(lockFile);
      // NOTE: taken at once only when the break worked. One that did not (a break lock that cannot be removed, a
      // full disk) waits and times out like a live holder: before, the loop went round with no pause and no
      // deadline, and every writer, the hooks' too, spun for ever.
      if (!fs.existsSync(lockFile)) {
        recovered = true;
        continue;
      }
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

/** The data repo's write lock file. */
function writeLockFile(dir: string): string {
  return path.join(stateDir(dir), 'write.lock');
}

/** Takes the data repo's write lock. */
export function lockDataRepo(dir: string, timeoutMs?: number): Promise<Lock> {
  return acquireLock(writeLockFile(dir), { timeoutMs, what: `the data repo ${dir}` });
}

/**
 * True when another writer holds the data repo's write lock and is working: the lock is younger than `maxAgeMs`
 * (default one minute) and not stale (its holder is alive), so a caller that must not wait leaves its write for
 * later. Never takes or breaks the lock.
 */
export function writeLockBusy(dir: string, options: { maxAgeMs?: number } = {}): boolean {
  const file = writeLockFile(dir);
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st || Date.now() - st.mtimeMs >= (options.maxAgeMs ?? 60_000)) return false;
  return !isStale(file);
}
