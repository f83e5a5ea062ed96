/**
 * Contract: the counting worker of a rebuild (dist/workers/count.js; count-thread.ts starts it and is the only
 * code that talks to it). It counts the documents it is sent with the main thread's own counter (term-count.ts)
 * and, when told the last batch was sent, posts its terms and postings in one message. An error is posted as a
 * failure (and set in the shared state, so no batch is offered after it): the main thread then builds without
 * it. Nothing here reads a file.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { processTerm, termCounter, type Parts } from './term-count.js';
import { DONE, FAILED, STATE, type Counted, type WorkerReply } from './count-thread.js';

const { port, shared } = workerData as { port: MessagePort; shared: SharedArrayBuffer };
const state = new Int32Array(shared);
const counter = termCounter(processTerm);
const docs: number[] = [];
const lengths: number[] = [];

function reply(r: WorkerReply, transfer: ArrayBuffer[] = []): void {
  port.postMessage(r, transfer);
  port.close();
}

port.on('message', (m: { shorts: number[]; parts: Parts[] } | { end: true }) => {
  try {
    if ('end' in m) {
      const terms: string[] = [];
      const first = new Uint32Array(counter.postings.size);
      const rank = new Uint32Array(counter.postings.size);
      const offsets = new Uint32Array(counter.postings.size + 1);
      let size = 0;
      for (const p of counter.postings.values()) size += p.list.length;
      const lists = new Uint32Array(size);
      let i = 0;
      for (const p of counter.postings.values()) {
        terms.push(p.term);
        first[i] = p.first;
        rank[i] = p.rank;
        lists.set(p.list, offsets[i]!);
        offsets[i + 1] = offsets[i]! + p.list.length;
        i++;
      }
      const counted: Counted = { terms, first, rank, offsets, lists, docs: new Uint32Array(docs), lengths: new Uint32Array(lengths) };
      reply({ counted }, [first, rank, offsets, lists, counted.docs, counted.lengths].map((a) => a.buffer as ArrayBuffer));
      return;
    }
    for (let k = 0; k < m.shorts.length; k++) {
      docs.push(m.shorts[k]!);
      lengths.push(counter.add(m.shorts[k]!, m.parts[k]!));
    }
    Atomics.add(state, DONE, m.shorts.length);
  } catch (err) {
    Atomics.store(state, STATE, FAILED); // offer declines from now on
    reply({ failed: String((err as Error)?.message) });
  }
});
