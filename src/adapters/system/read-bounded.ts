/**
 * Contract: bounded reads, where a file may be anything. `readBounded`: a file a tool call names (`git commit -F`,
 * `gh pr create --body-file`) for the prose gate, never throwing. `readRegularFile` and `readStdin`: input the user
 * names (`--file`, stdin, hosts.yaml, kb.json, an entry reached through a link), refusing what is not a regular
 * file (a FIFO waits for a writer for ever, `/dev/zero` never ends) and anything over a limit, with a clear error.
 * `openRegular` and `readSmall`: the hooks' own state files (a session's ledger, the prompt index, Claude Code's
 * session env file), which must never hold a hook past its deadline whatever was put in their place.
 * Every open is non-blocking, so a FIFO cannot hang the open itself.
 */
import fs from 'node:fs';
import { KbError } from '../../core/errors.js';

/** The largest file read; a bigger one is treated as unreadable. */
export const MAX_READ_BYTES = 2_000_000;
/** The largest input git-kb takes as an entry's text (a body from a file or stdin, an entry file, hosts.yaml). */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;
/** The largest kb.json or config file read. */
export const KB_JSON_MAX = 1024 * 1024;

/** The text of a regular file of at most `maxBytes`, else undefined (missing, a folder, too big); never throws. */
export function readBounded(file: string, maxBytes = MAX_READ_BYTES): string | undefined {
  return readSmall(file, maxBytes)?.toString('utf8');
}

/**
 * Opens `file` for reading without waiting (a FIFO's open would wait for a writer for ever) and stats the open
 * file; with `noFollow`, a symbolic link in the last place fails with ELOOP. Throws the errno error; the caller
 * closes the fd.
 */
function openStat(file: string, noFollow = false): { fd: number; st: fs.Stats } {
  const flags = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (noFollow ? fs.constants.O_NOFOLLOW ?? 0 : 0);
  const fd = fs.openSync(file, flags);
  try {
    return { fd, st: fs.fstatSync(fd) };
  } catch (err) {
    fs.closeSync(fd);
    throw err;
  }
}

/**
 * Opens a regular file for reading without waiting: its descriptor and size, or undefined when it is missing or is
 * not a regular file (a FIFO, a device such as `/dev/zero`, a folder). Never throws; the caller closes the fd.
 */
export function openRegular(file: string): { fd: number; size: number } | undefined {
  let f: { fd: number; st: fs.Stats };
  try {
    f = openStat(file);
  } catch {
    return undefined;
  }
  if (f.st.isFile()) return { fd: f.fd, size: f.st.size };
  fs.closeSync(f.fd);
  return undefined;
}

/** The bytes of a regular file of at most `maxBytes`, else undefined (missing, not a regular file, bigger); never throws. */
export function readSmall(file: string, maxBytes: number): Buffer | undefined {
  const f = openRegular(file);
  if (!f) return undefined;
  try {
    return f.size > maxBytes ? undefined : readAll(f.fd, maxBytes, () => new KbError('USAGE', `${file} grew while it was read`));
  } catch {
    return undefined;
  } finally {
    fs.closeSync(f.fd);
  }
}

function megabytes(n: number): string {
  return `${(n / 2 ** 20).toFixed(n < 2 ** 20 ? 2 : 1)} MB`;
}

/** What a file that is not a regular file is, in words. */
function kindOf(st: fs.Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** An error reading `file`, as the user should see it: what, where, and why. */
export function readError(err: unknown, file: string, what: string): KbError {
  if (err instanceof KbError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new KbError('NOT_FOUND', `${what}: ${file} does not exist`, { file });
  if (code === 'EACCES' || code === 'EPERM') return new KbError('USAGE', `${what}: ${file} cannot be read: permission denied`, { file });
  if (code === 'EISDIR') return new KbError('USAGE', `${what}: ${file} is a folder, not a file`, { file });
  return new KbError('USAGE', `${what}: ${file} cannot be read (${code ?? (err as Error).message})`, { file });
}

/**
 * The bytes of a regular file of at most `maxBytes`: `USAGE` for a FIFO, a device, a folder or a bigger file,
 * `NOT_FOUND` for a missing one. `what` names the input in the message (`--file`, `hosts.yaml`). `noFollow`: a
 * symbolic link is refused too (`USAGE`), never read through (a data repo's own files: store/layout.ts readRootFile).
 */
export function readRegularFile(file: string, what: string, maxBytes = MAX_INPUT_BYTES, noFollow = false): Buffer {
  let f: { fd: number; st: fs.Stats };
  try {
    f = openStat(file, noFollow);
  } catch (err) {
    if (noFollow && (err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new KbError('USAGE', `${what}: ${file} is a symbolic link; git-kb reads it only as a regular file, never through a link`, { file });
    }
    throw readError(err, file, what);
  }
  const { fd, st } = f;
  try {
    if (!st.isFile()) throw new KbError('USAGE', `${what}: ${file} is ${kindOf(st)}, not a regular file`, { file });
    if (st.size > maxBytes) throw new KbError('USAGE', `${what}: ${file} is ${megabytes(st.size)}; the limit is ${megabytes(maxBytes)}`, { file });
    return readAll(fd, maxBytes, () => new KbError('USAGE', `${what}: ${file} grew past ${megabytes(maxBytes)} while it was read`, { file }));
  } catch (err) {
    throw readError(err, file, what);
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads an open file to its end, at most `maxBytes` (more is `tooBig()`); waits briefly when a read would block. */
function readAll(fd: number, maxBytes: number, tooBig: () => KbError): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = fs.readSync(fd, buf, 0, buf.length, null);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10); // a pipe with nothing in it yet
        continue;
      }
      throw err;
    }
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw tooBig();
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks, total);
}

/** Stdin to its end, at most `maxBytes` (`/dev/zero` piped in is refused at the limit, not read for ever). */
export function readStdin(what: string, maxBytes = MAX_INPUT_BYTES): Buffer {
  return readAll(0, maxBytes, () => new KbError('USAGE', `${what} is more than ${megabytes(maxBytes)}; the limit is ${megabytes(maxBytes)}`));
}
