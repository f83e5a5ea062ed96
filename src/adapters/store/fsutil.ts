/**
 * Contract: file writes that are all-or-nothing (write a temporary file, fsync, rename): readers see the old
 * content or the new, never a part, and the temporary files a killed writer leaves are found by their name. A
 * file inside a repository's `.git` (objects, refs, the index, git-kb's state) gets its temporary file in one
 * folder, `.git/git-kb/.tmp/`, named by the writer's pid, never beside it: git reads every name under
 * `.git/objects` as an object ("bad sha1 file"), and the lock holder sweeps the ones whose writer is dead.
 */
import fs from 'node:fs';
import path from 'node:path';
import { processAlive } from '../system/pid.js';

const GIT_SEGMENT = `${path.sep}.git${path.sep}`;

/** The one folder for temporary files of writes into a repo's `.git` (the repo is the folder holding `.git`). */
export function gitTempDir(repo: string): string {
  return path.join(repo, '.git', 'git-kb', '.tmp');
}

function tempFor(file: string): string {
  // NOTE: not node:crypto: loading it costs a read command milliseconds, and the pid already keeps writers apart.
  const tag = `${process.pid}.${Math.floor(Math.random() * 2 ** 32).toString(16).padStart(8, '0')}.tmp`;
  const at = file.lastIndexOf(GIT_SEGMENT);
  if (at >= 0) {
    const dir = gitTempDir(file.slice(0, at));
    fs.mkdirSync(dir, { recursive: true });
    return path.join(dir, `${path.basename(file)}.${tag}`);
  }
  return path.join(path.dirname(file), `.${path.basename(file)}.${tag}`);
}

/**
 * Removes the temporary files under `.git/git-kb/.tmp/` whose writer process is gone (killed between creating and
 * renaming one). Live writers' files are left: caches are written without the write lock.
 */
export function sweepDeadTemps(repo: string): void {
  const dir = gitTempDir(repo);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const m = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(n);
    if (!m || !processAlive(Number(m[1]))) fs.rmSync(path.join(dir, n), { force: true, recursive: true });
  }
}

/** Writes a file atomically: readers see the old content or the new, never a part. */
export function writeFileAtomic(file: string, data: string | Uint8Array | Uint8Array[], options: { mode?: number; fsync?: boolean } = {}): void {
  writeFileAtomicWith(file, (fd) => (Array.isArray(data) ? writeAllv(fd, data) : fs.writeFileSync(fd, data)), options);
}

/** writeFileAtomic of what `write` writes to the open temporary file (a file made piece by piece, never whole in memory). */
export function writeFileAtomicWith(file: string, write: (fd: number) => void, options: { mode?: number; fsync?: boolean } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempFor(file);
  const fd = fs.openSync(tmp, 'w', options.mode ?? 0o644);
  try {
    write(fd);
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

/** Writes `parts` one after the other at the file's position (a file of many parts is never joined in memory first). */
function writeAllv(fd: number, parts: Uint8Array[]): void {
  const rest = parts.filter((p) => p.length > 0);
  let i = 0;
  while (i < rest.length) {
    let n = fs.writevSync(fd, rest.slice(i, i + 1024)); // IOV_MAX is 1024 on Linux
    while (i < rest.length && n >= rest[i]!.length) n -= rest[i++]!.length;
    if (n > 0) rest[i] = rest[i]!.subarray(n);
  }
}

/** The promise form of writeFileAtomic, with fs.promises.writeFile's signature (for isomorphic-git). */
export async function writeFileAtomicAsync(file: string, data: string | Uint8Array, options?: unknown): Promise<void> {
  const mode = typeof options === 'object' && options !== null ? (options as { mode?: number }).mode : undefined;
  const tmp = tempFor(file);
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

/**
 * Removes the `.<name>.<pid>.<random>.tmp` files that writeFileAtomic leaves beside `file` when killed between
 * creating and renaming one. Call it only when no other writer can be mid-write (under the write lock).
 */
export function removeTempSiblings(file: string): void {
  const prefix = `.${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file));
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith(prefix) && n.endsWith('.tmp')) fs.rmSync(path.join(path.dirname(file), n), { force: true });
}

/** Up to `len` bytes of an open file from `pos` (fewer at its end), read to the full length asked. */
export function readAt(fd: number, pos: number, len: number): Buffer {
  // NOTE: not zero-filled first (megabytes for the caches of a big repo); what a short read leaves unread is.
  const buf = Buffer.allocUnsafe(len);
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, buf, got, len - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  if (got < len) buf.fill(0, got);
  return buf.subarray(0, got);
}

/** The block forEachLine reads at a time. */
const LINE_BLOCK = 1 << 20;

/**
 * Lines of bytes given chunk by chunk, decoded as UTF-8 without their `\n`: the same strings as decoding the bytes
 * whole and splitting them at `\n` (a `\n` byte is never part of a multi-byte character, so a line decodes alone as
 * it does in the whole). `push` gives `line` each line a chunk completes and returns the bytes of the chunk up to
 * and including its last `\n` (0: none); `end` gives the text after the last `\n`, when there is any. The chunk may
 * be reused once `push` returns (what it holds of an unfinished line is copied).
 */
export function lineSplitter(line: (text: string) => void): { push(chunk: Buffer): number; end(): void } {
  let carry: Buffer[] = [];
  return {
    push(chunk) {
      let s = 0;
      for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, s)) {
        const text = carry.length ? Buffer.concat([...carry, chunk.subarray(s, i)]).toString('utf8') : chunk.toString('utf8', s, i);
        carry = [];
        s = i + 1;
        line(text);
      }
      if (s < chunk.length) carry.push(Buffer.from(chunk.subarray(s)));
      return s;
    },
    end() {
      if (carry.length) line(Buffer.concat(carry).toString('utf8'));
      carry = [];
    },
  };
}

/**
 * Calls `line` with each line of a file's bytes from `from` up to `to` (or its end), decoded as UTF-8, without its
 * `\n`; then with the text after the last `\n` when there is any (lineSplitter), read a MB at a time: a file of
 * hundreds of MB is never held whole. Returns the bytes read and the end of the last complete line (`from` when
 * none).
 */
export function forEachLine(file: string, from: number, to: number, line: (text: string) => void): { bytes: number; end: number } {
  const fd = fs.openSync(file, 'r');
  const block = Buffer.allocUnsafe(LINE_BLOCK);
  const lines = lineSplitter(line);
  let pos = from;
  let end = from;
  try {
    while (pos < to) {
      const n = fs.readSync(fd, block, 0, Math.min(LINE_BLOCK, to - pos), pos);
      if (n === 0) break;
      const upTo = lines.push(block.subarray(0, n));
      if (upTo > 0) end = pos + upTo;
      pos += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  lines.end();
  return { bytes: pos - from, end };
}
