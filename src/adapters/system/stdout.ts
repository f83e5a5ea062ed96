/**
 * Contract: a process's output written to fd 1 with plain writes, for the CLI (to a pipe or a file) and the hook.
 * process.stdout on a pipe or socket is a net.Socket, and loading net and the stream modules costs about 3 ms of
 * a short command. A stdout that would block (EAGAIN: a non-blocking pipe that is full) gets the rest through
 * process.stdout, which waits for the reader. A reader that went away (EPIPE), or any other failure, ends the
 * output there, quietly: the process keeps its exit code, as nothing more can be shown anyway.
 */
import fs from 'node:fs';

/** Writes `text` to fd 1 (see the contract). */
export function writeToFd1(text: string | Buffer): void {
  const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let off = 0;
  try {
    while (off < buf.length) off += fs.writeSync(1, buf, off, buf.length - off);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'EAGAIN' && code !== 'EWOULDBLOCK') return;
    if (process.stdout.listenerCount('error') === 0) process.stdout.on('error', () => undefined);
    process.stdout.write(buf.subarray(off));
  }
}
