/**
 * Contract: the second core of a rebuild. A rebuild of the search index spends most of its time cutting the text
 * of every entry into terms and counting them; `startCounting` starts a worker (count-worker.ts, built as
 * dist/workers/count.js) that counts the batches it is offered while this thread reads and parses the next
 * entries. `offer` declines a batch while the worker is behind (this thread then counts it itself), so neither
 * side waits on the other; `finish` waits for the worker's counts. A worker that fails, ends, or stops
 * answering makes `finish` reject with CountingFailed, and the caller builds without one. Only runs from a build: from the
 * sources there is no worker file, and everything is counted on this thread.
 */
import os from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../system/builtins.js';
import type { Parts } from './term-count.js';

// The shared state: [documents counted, STATE], STATE being RUNNING or FAILED (the worker says so as it stops).
export const DONE = 0;
export const STATE = 1;
export const RUNNING = 0;
export const FAILED = 2;

/** Documents offered and not yet counted past which the worker is behind. */
const BEHIND = 512;
/** How long `finish` waits for a worker that counts nothing more (a batch is 64 entries: seconds at the very most). */
const STALL_MS = 60_000;

/**
 * The worker's counts: its terms in first-seen order (an array: each keeps its own string form, which is how
 * a stored shard writes it), each with the document and rank it was first seen at and its (document, count)
 * pairs (`lists`, from `offsets[i]` to `offsets[i + 1]`), and each document it counted with its field length.
 */
export interface Counted {
  terms: string[];
  first: Uint32Array;
  rank: Uint32Array;
  offsets: Uint32Array;
  lists: Uint32Array;
  docs: Uint32Array;
  lengths: Uint32Array;
}

/** What the worker posts: its counts, or that it failed. */
export type WorkerReply = { counted: Counted } | { failed: string };

export class CountingFailed extends Error {}

export interface Counting {
  /** Hands the worker a batch of documents (short ids ascending, above every earlier batch's); false when it is behind. */
  offer(shorts: number[], parts: Parts[]): boolean;
  /** The worker's counts (null when it was offered nothing); rejects with CountingFailed. Stops the worker. */
  finish(): Promise<Counted | null>;
  /** Stops the worker (idempotent). */
  close(): void;
}

// The worker's first code: a worker file that cannot be loaded says so at once (finish then fails without waiting).
const BOOT = `
const { workerData } = require('node:worker_threads');
try {
  require(workerData.file);
} catch (err) {
  Atomics.store(new Int32Array(workerData.shared), ${STATE}, ${FAILED});
  workerData.port.postMessage({ failed: String(err && err.message) });
  workerData.port.close();
}
`;

/** Starts a counting worker from the built file `file`; undefined when none can be started (or one core). */
export function startCounting(file: string): Counting | undefined {
  if ((os.availableParallelism?.() ?? os.cpus().length) < 2) return undefined;
  const shared = new SharedArrayBuffer(2 * 4);
  const state = new Int32Array(shared);
  let worker: Worker;
  let port: MessagePort;
  const { MessageChannel, Worker } = workerThreads();
  try {
    const channel = new MessageChannel();
    port = channel.port1;
    worker = new Worker(BOOT, { eval: true, workerData: { file, port: channel.port2, shared }, transferList: [channel.port2] });
    worker.unref();
    worker.on('error', () => undefined); // an 'exit' follows
  } catch {
    return undefined;
  }
  let exited = false;
  worker.on('exit', () => {
    exited = true; // before finish, whose own listener would not hear it
    Atomics.store(state, STATE, FAILED); // offer declines from now on
  });
  let offered = 0;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    port.close();
    void worker.terminate();
  };
  return {
    offer(shorts, parts) {
      if (closed || Atomics.load(state, STATE) !== RUNNING || offered - Atomics.load(state, DONE) > BEHIND) return false;
      port.postMessage({ shorts, parts });
      offered += shorts.length;
      return true;
    },
    async finish() {
      try {
        if (offered === 0) return null;
        if (closed) throw new CountingFailed('the counting worker was stopped');
        // The reply, or the worker's end (an exit, a crash, memory run out) or silence, whichever comes first.
        let stall: ReturnType<typeof setInterval> | undefined;
        const reply = await new Promise<WorkerReply>((resolve) => {
          let done = Atomics.load(state, DONE);
          stall = setInterval(() => {
            const now = Atomics.load(state, DONE);
            if (now === done) resolve({ failed: 'the counting worker stopped answering' });
            done = now;
          }, STALL_MS);
          port.once('message', (m: WorkerReply) => resolve(m));
          if (exited) resolve({ failed: 'the counting worker stopped' });
          worker.once('exit', () => resolve({ failed: 'the counting worker stopped' }));
          worker.ref();
          port.postMessage({ end: true });
        }).finally(() => {
          clearInterval(stall);
          worker.unref();
        });
        if ('failed' in reply) throw new CountingFailed(reply.failed);
        if (reply.counted.docs.length !== offered) throw new CountingFailed(`the counting worker counted ${reply.counted.docs.length} of ${offered} documents`);
        return reply.counted;
      } finally {
        close();
      }
    },
    close,
  };
}
