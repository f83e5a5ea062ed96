/**
 * Contract: the bytes of many files, read ahead on a worker thread and handed over in the order asked, without
 * leaving the caller's synchronous loop. A cold rebuild reads 50,000 entry files; their opens and reads (about
 * 0.7 s of system calls) then run on the second core while this thread parses and indexes. The caller gives
 * only paths in folders with no link on the way (layout.ts readAheadPath; undefined for the others), and each is
 * opened refusing a link (O_NOFOLLOW) and without waiting (O_NONBLOCK: a FIFO does not hang it), as a regular
 * file; a file the worker cannot read that way (a link, an error, not a regular file, over MAX_BYTES) comes back
 * as undefined and the caller reads it itself, with every check of its own. The worker stays at most AHEAD batches ahead (shared counters, no unbounded buffering); if it stops
 * answering, the rest come back undefined. Nothing here decides what a file means.
 */
import fs from 'node:fs';
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../system/builtins.js';

/** Files a batch holds, batches the worker may be ahead, the largest file it reads, how long to wait for a batch. */
const BATCH = 256;
const AHEAD = 8;
const MAX_BYTES = 16 * 1024 * 1024;
const WAIT_MS = 10_000;

// Shared counters: [batches posted, batches taken, 1 once the worker has stopped].
const POSTED = 0;
const TAKEN = 1;
const DONE = 2;

const WORKER = `
const fs = require('node:fs');
const { workerData } = require('node:worker_threads');
const { paths, flags, port, shared, batch, ahead, maxBytes } = workerData;
const state = new Int32Array(shared);
try {
  for (let start = 0; start < paths.length; start += batch) {
    const end = Math.min(paths.length, start + batch);
    const sizes = new Int32Array(end - start).fill(-1);
    const parts = [];
    let total = 0;
    for (let i = start; i < end; i++) {
      if (!paths[i]) continue;
      let fd;
      try {
        fd = fs.openSync(paths[i], flags);
        const st = fs.fstatSync(fd);
        if (!st.isFile() || st.size > maxBytes) continue;
        const size = st.size;
        const buf = Buffer.allocUnsafe(size);
        let got = 0;
        while (got < size) {
          const n = fs.readSync(fd, buf, got, size - got, got);
          if (n === 0) break;
          got += n;
        }
        if (got !== size || fs.readSync(fd, Buffer.alloc(1), 0, 1, size) !== 0) continue; // changed while read
        parts.push(buf);
        sizes[i - start] = size;
        total += size;
      } catch {
        // left to the caller
      } finally {
        if (fd !== undefined) fs.closeSync(fd);
      }
    }
    const bytes = Buffer.concat(parts, total);
    while (Atomics.load(state, 0) - Atomics.load(state, 1) >= ahead) Atomics.wait(state, 1, Atomics.load(state, 1), 50);
    const whole = bytes.byteOffset === 0 && bytes.length === bytes.buffer.byteLength;
    const ab = whole ? bytes.buffer : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length);
    port.postMessage({ sizes, bytes: ab }, [ab, sizes.buffer]);
    Atomics.add(state, 0, 1);
    Atomics.notify(state, 0);
  }
} finally {
  Atomics.store(state, 2, 1);
  Atomics.notify(state, 0);
}
`;

export interface ReadAhead {
  /** The bytes of the next file of the list given, or undefined when the caller must read it itself. */
  next(): Buffer | undefined;
  /** Stops the worker (idempotent; call it when done, or on an error). */
  close(): void;
}

/**
 * Starts reading `paths` (absolute; undefined for a file the caller reads itself) ahead; undefined when no worker
 * can be started (the caller reads them all).
 */
export function readAhead(paths: (string | undefined)[]): ReadAhead | undefined {
  const noFollow = fs.constants.O_NOFOLLOW;
  if (noFollow === undefined || paths.length === 0) return undefined;
  const shared = new SharedArrayBuffer(3 * 4);
  const state = new Int32Array(shared);
  let worker: Worker;
  let port: MessagePort;
  const { MessageChannel, receiveMessageOnPort, Worker } = workerThreads();
  try {
    const channel = new MessageChannel();
    port = channel.port1;
    worker = new Worker(WORKER, {
      eval: true,
      workerData: { paths: paths.map((p) => p ?? ''), flags: fs.constants.O_RDONLY | noFollow | fs.constants.O_NONBLOCK, port: channel.port2, shared, batch: BATCH, ahead: AHEAD, maxBytes: MAX_BYTES },
      transferList: [channel.port2],
    });
    worker.unref();
    worker.on('error', () => undefined); // a worker that fails just stops answering: the caller reads the rest
  } catch {
    return undefined;
  }
  let taken = 0; // files handed out
  let current: { sizes: Int32Array; bytes: Buffer; at: number; i: number } | undefined;
  let stopped = false;
  const close = (): void => {
    if (stopped) return;
    stopped = true;
    port.close();
    void worker.terminate();
  };
  /** The next batch, waiting for the worker; undefined once it stopped or went silent. */
  const nextBatch = (): typeof current => {
    const batchNo = Atomics.load(state, TAKEN);
    const deadline = Date.now() + WAIT_MS;
    while (Atomics.load(state, POSTED) <= batchNo) {
      if (Atomics.load(state, DONE) === 1 && Atomics.load(state, POSTED) <= batchNo) return undefined;
      if (Date.now() > deadline) return undefined;
      Atomics.wait(state, POSTED, batchNo, 100);
    }
    const msg = receiveMessageOnPort(port);
    if (!msg) return undefined;
    Atomics.add(state, TAKEN, 1);
    Atomics.notify(state, TAKEN);
    const { sizes, bytes } = msg.message as { sizes: Int32Array; bytes: ArrayBuffer };
    return { sizes, bytes: Buffer.from(bytes), at: 0, i: 0 };
  };
  return {
    next() {
      if (stopped || taken >= paths.length) return undefined;
      taken++;
      if (!current || current.i >= current.sizes.length) {
        current = nextBatch();
        if (!current) {
          close();
          return undefined;
        }
      }
      const size = current.sizes[current.i++]!;
      if (size < 0) return undefined;
      const buf = current.bytes.subarray(current.at, current.at + size);
      current.at += size;
      if (taken >= paths.length) close();
      return buf;
    },
    close,
  };
}
