/**
 * Atomic writes (readers see old or new, never a part; no temp file left) and the cross-process lock (exclusive,
 * waits, times out clearly, and is broken when its holder died or left it unreadable).
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KbError } from '../src/core/errors.js';
import { atomicFs, writeFileAtomic, writeFileAtomicAsync } from '../src/adapters/store/fsutil.js';
import { acquireLock } from '../src/adapters/store/lock.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-fsutil-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A pid that certainly belongs to no running process. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(r.stdout.toString());
}

describe('writeFileAtomic', () => {
  it('writes a file given in parts, many more than one writev takes, in order', () => {
    const f = path.join(dir, 'parts.bin');
    const parts = Array.from({ length: 5000 }, (_, i) => Buffer.from(i % 7 === 0 ? '' : `part ${i};`));
    writeFileAtomic(f, parts);
    expect(fs.readFileSync(f).equals(Buffer.concat(parts))).toBe(true);
  });

  it('writes, replaces, creates folders, keeps the mode, and leaves no temp file', async () => {
    const f = path.join(dir, 'a', 'b', 'file.txt');
    writeFileAtomic(f, 'one');
    writeFileAtomic(f, Buffer.from('two'));
    expect(fs.readFileSync(f, 'utf8')).toBe('two');
    writeFileAtomic(path.join(dir, 'x.sh'), '#!/bin/sh\n', { mode: 0o755 });
    expect(fs.statSync(path.join(dir, 'x.sh')).mode & 0o777).toBe(0o755 & ~process.umask());
    await writeFileAtomicAsync(f, 'three');
    expect(fs.readFileSync(f, 'utf8')).toBe('three');
    await atomicFs.promises.writeFile(f, 'four');
    expect(fs.readFileSync(f, 'utf8')).toBe('four');
    expect(fs.readdirSync(path.dirname(f))).toEqual(['file.txt']);
  });

  it('replaces by rename: a reader holding the old file still reads all of it', () => {
    const f = path.join(dir, 'f');
    writeFileAtomic(f, 'old'.repeat(1000));
    const fd = fs.openSync(f, 'r');
    writeFileAtomic(f, 'new');
    expect(fs.readFileSync(fd, 'utf8')).toBe('old'.repeat(1000));
    fs.closeSync(fd);
    expect(fs.readFileSync(f, 'utf8')).toBe('new');
  });

  it('cleans up its temp file when the rename fails', () => {
    const target = path.join(dir, 'is-a-dir');
    fs.mkdirSync(path.join(target, 'child'), { recursive: true });
    expect(() => writeFileAtomic(target, 'x')).toThrow();
    expect(fs.readdirSync(dir)).toEqual(['is-a-dir']);
  });
});

describe('acquireLock', () => {
  it('is exclusive: a second taker waits until the first releases', async () => {
    const file = path.join(dir, 'w.lock');
    const a = await acquireLock(file);
    expect(a.recovered).toBe(false);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe(String(process.pid));
    let got = false;
    const b = acquireLock(file).then((l) => {
      got = true;
      return l;
    });
    await new Promise((r) => setTimeout(r, 80));
    expect(got).toBe(false);
    a.release();
    a.release(); // idempotent
    const lb = await b;
    expect(got).toBe(true);
    lb.release();
    expect(fs.existsSync(file)).toBe(false);
  });

  it('times out with LOCK_TIMEOUT naming the lock file', async () => {
    const file = path.join(dir, 'w.lock');
    const a = await acquireLock(file);
    const err = await acquireLock(file, { timeoutMs: 100, what: 'the test repo' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KbError);
    expect((err as KbError).code).toBe('LOCK_TIMEOUT');
    expect((err as KbError).message).toContain(file);
    expect((err as KbError).message).toContain('the test repo');
    a.release();
  });

  it('breaks a lock whose holder process is dead', async () => {
    const file = path.join(dir, 'w.lock');
    fs.writeFileSync(file, `${deadPid()}\n${os.hostname()}\n${Date.now()}\n`);
    // With no time to wait at all: the dead holder's lock is broken on the first look, not waited out.
    const l = await acquireLock(file, { timeoutMs: 0 });
    expect(l.recovered).toBe(true);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe(String(process.pid));
    l.release();
  });

  it('breaks a lock left empty by a holder killed between create and write, after a short grace', async () => {
    const file = path.join(dir, 'w.lock');
    fs.writeFileSync(file, '');
    const old = new Date(Date.now() - 5000);
    fs.utimesSync(file, old, old);
    const l = await acquireLock(file, { timeoutMs: 2000 });
    expect(l.recovered).toBe(true);
    l.release();
  });

  it('a stale lock it cannot break (its break lock a folder) is waited out to LOCK_TIMEOUT, not spun on for ever', async () => {
    const file = path.join(dir, 'w.lock');
    fs.writeFileSync(file, `${deadPid()}\n${os.hostname()}\n${Date.now()}\n`);
    fs.mkdirSync(`${file}.break`);
    fs.writeFileSync(path.join(`${file}.break`, 'x'), 'x');
    // Before: the loop went round with no pause and no deadline (synchronously: this test never ended).
    const err = await acquireLock(file, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect((err as KbError).code).toBe('LOCK_TIMEOUT');
  });

  it('a lock whose holder cannot be written (a full disk) is removed before the error, so no empty lock is left', async () => {
    const file = path.join(dir, 'w.lock');
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const spy = vi.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
      throw full;
    });
    try {
      await expect(acquireLock(file)).rejects.toBe(full);
    } finally {
      spy.mockRestore();
    }
    expect(fs.existsSync(file)).toBe(false);
    (await acquireLock(file, { timeoutMs: 0 })).release();
  });

  it('does not break the lock of a live process', async () => {
    const file = path.join(dir, 'w.lock');
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(file, `${child.pid}\n${os.hostname()}\n${Date.now()}\n`);
      const err = await acquireLock(file, { timeoutMs: 150 }).catch((e: unknown) => e);
      expect((err as KbError).code).toBe('LOCK_TIMEOUT');
      expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe(String(child.pid));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('gives the lock to exactly one of many concurrent takers at a time', async () => {
    const file = path.join(dir, 'w.lock');
    let holders = 0;
    let maxHolders = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const l = await acquireLock(file, { timeoutMs: 10_000 });
        holders++;
        maxHolders = Math.max(maxHolders, holders);
        await new Promise((r) => setTimeout(r, 2));
        holders--;
        l.release();
      }),
    );
    expect(maxHolders).toBe(1);
  });
});
