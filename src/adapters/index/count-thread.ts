/**
 * Contract: the second core of a rebuild. A rebuild of the search index spends most of its time cutting the text
 * of every entry into terms and counting them; `startCounting` starts a worker (count-worker.ts, built as
 * dist/workers/count.js) that counts the batches it is offered while this thread reads and parses the next
 * entries. `offer` declines a batch while the worker is behind (this thread then counts it itself), so neither
 * side waits on the other; `finish` waits for the worker's counts. A worker that fails, or stops answering,
 * makes `finish` throw CountingFailed, and the caller builds without one. Only runs from a build: from the
 * sources there is no worker file, and everything is counted on this thread.
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import { workerThreads } from '../system/builtins.js';
import type { Parts } from './term-count.js';

// The shared state: [documents counted, STATE], STATE being RUNNING, POSTED (the counts are on the port) or FAILED.
export const DONE = 0;
export const STATE = 1;
export const RUNNING = 0;
export const POSTED = 1;
export const FAILED = 2;

/** Documents offered and not yet counted past which the worker is behind. */
const BEHIND = 512;
/** How long `finish` waits for a worker that counts nothing more. */
const STALL_MS = 10_000;

/**
 * The worker's counts: its terms in first-seen order (an array: each keeps its own string form, which is how
 * a stored shard writes it), each with the
 * document and rank it was first seen at and its (document, count) pairs (`lists`, from `offsets[i]` to
 * `offsets[i + 1]`), and each document it counted with its field length.
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

export class CountingFailed extends Error {}

export interface Counting {
  /** Hands the worker a batch of documents (short ids ascending, above every earlier batch's); false when it is behind. */
  offer(shorts: number[], parts: Parts[]): boolean;
  /** Waits for the worker's counts (null when it was offered nothing); throws CountingFailed. Stops the worker. */
  finish(): Counted | null;
  /** Stops the worker (idempotent). */
  close(): void;
}

// The worker's first code: a worker file that cannot be loaded sets the state to FAILED (finish then throws at
// once instead of waiting for a count that never comes).
const BOOT = `
const { workerData } = require('node:worker_threads');
try {
  require(workerData.file);
} catch {
  const state = new Int32Array(workerData.shared);
  Atomics.store(state, ${STATE}, ${FAILED});
  Atomics.notify(state, ${STATE});
  workerData.port.close();
}
`;

/** Starts a counting worker from the built file `file`; undefined when none can be started. */
export function startCounting(file: string): Counting | undefined {
  const shared = new SharedArrayBuffer(2 * 4);
  const state = new Int32Array(shared);
  let worker: Worker;
  let port: MessagePort;
  const { MessageChannel, receiveMessageOnPort, Worker } = workerThreads();
  try {
    const channel = new MessageChannel();
    port = channel.port1;
    worker = new Worker(BOOT, { eval: true, workerData: { file, port: channel.port2, shared }, transferList: [channel.port2] });
    worker.unref();
    worker.on('error', () => undefined); // noticed by finish: the state never reaches POSTED
  } catch {
    return undefined;
  }
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
    finish() {
      try {
        if (offered === 0) return null;
        if (closed) throw new CountingFailed('the counting worker was stopped');
        port.postMessage({ end: true });
        let done = Atomics.load(state, DONE);
        let deadline = Date.now() + STALL_MS;
        while (Atomics.load(state, STATE) === RUNNING) {
          Atomics.wait(state, STATE, RUNNING, 50);
          const now = Atomics.load(state, DONE);
          if (now !== done) {
            done = now;
            deadline = Date.now() + STALL_MS;
          } else if (Date.now() > deadline) throw new CountingFailed('the counting worker stopped answering');
        }
        const msg = Atomics.load(state, STATE) === POSTED ? receiveMessageOnPort(port) : undefined;
        if (!msg) throw new CountingFailed('the counting worker failed');
        const counted = msg.message as Counted;
        if (counted.docs.length !== offered) throw new CountingFailed(`the counting worker counted ${counted.docs.length} of ${offered} documents`);
        return counted;
      } finally {
        close();
      }
    },
    close,
  };
}
