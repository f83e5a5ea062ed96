/**
 * Contract: Node's heavier built-in modules (crypto, child_process, tty, zlib, worker_threads, v8), loaded on first
 * use instead of when a module that may need them is loaded. Together they pull in Node's streams and sockets,
 * about 4 ms of every process; a `get` or a prompt that never hashes, spawns or asks for a terminal does not pay.
 */
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

function lazy<T>(name: string): () => T {
  let mod: T | undefined;
  return () => (mod ??= load(name) as T);
}

export const crypto = lazy<typeof import('node:crypto')>('node:crypto');
export const childProcess = lazy<typeof import('node:child_process')>('node:child_process');
export const tty = lazy<typeof import('node:tty')>('node:tty');
export const zlib = lazy<typeof import('node:zlib')>('node:zlib');
export const workerThreads = lazy<typeof import('node:worker_threads')>('node:worker_threads');
export const v8 = lazy<typeof import('node:v8')>('node:v8');
