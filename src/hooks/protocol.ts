/**
 * Contract: the hook protocol of spec/hooks.md. Read one JSON object from stdin, hand it to the handler of the
 * event, write at most one JSON object (never more than HOOK_OUTPUT_MAX characters) to stdout, exit 0 always.
 * Fail-open: bad stdin, a missing data repo, a thrown error or a deadline passed all end in exit 0 and no
 * output (a note goes to the debug log when KB_HOOK_DEBUG is on). Nothing here imports isomorphic-git or commander.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HOOK_OUTPUT_MAX } from '../core/budget.js';
import type { Settings } from '../adapters/config/settings.js';
import { writeToFd1 } from '../adapters/system/stdout.js';
import { nodeBinding } from '../adapters/system/node-binding.js';

/** The fields every Claude Code hook payload carries (all optional here: nothing is trusted). */
export interface HookInput {
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  [key: string]: unknown;
}

/** A handler returns the JSON object to print, or undefined for no output. */
export type HookHandler = (input: HookInput, ctx: HookContext) => Promise<object | undefined> | object | undefined;

export interface HookContext {
  /** Milliseconds left before the hook gives up and exits silently. */
  deadline: number;
  /** The environment, parsed once by the hook entry (child processes get `settings.env`). */
  settings: Settings;
}

/** Largest stdin accepted; a bigger payload is read no further and the hook stays silent. */
const MAX_STDIN = 8 * 1024 * 1024;

import { debugLog } from '../adapters/system/debug-log.js';

export { debugEnabled, debugLog, type DebugSettings } from '../adapters/system/debug-log.js';

/**
 * Reads stdin to its end without blocking the event loop, so the deadline timer keeps running while it waits: a
 * stdin that never closes ends with the deadline, and an empty non-blocking one is polled (no busy retry).
 * Undefined for a payload over MAX_STDIN or a read error.
 */
/** The chunks read so far under MAX_STDIN: `add` says false once the cap is passed. */
function stdinCollector(): { add: (chunk: Buffer) => boolean; text: () => string } {
  const chunks: Buffer[] = [];
  let total = 0;
  return {
    add: (chunk) => {
      total += chunk.length;
      if (total > MAX_STDIN) return false;
      chunks.push(chunk);
      return true;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}

function readStdin(): Promise<string | undefined> {
  // NOTE: a pipe, a file or a terminal is opened again non-blocking (/dev/stdin gives a new open file
  // description), read while data is there and polled every 2 ms when it is not: no stream machinery to load
  // (process.stdin costs about 3.5 ms a process), and a stdin that never closes ends with the deadline. A socket
  // (what Node's spawn, and so Claude Code, hands a child) cannot be opened that way: it is made non-blocking in
  // place (nonBlockingSocket) and polled the same way; if that fails, process.stdin reads it, also without
  // blocking. Never a blocking read of fd 0, never an fs.read on the thread pool (process.exit waits for it).
  try {
    return pollRead(fs.openSync('/dev/stdin', fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), true);
  } catch {
    return nonBlockingSocket() ? pollRead(0, false) : readStdinStream();
  }
}

/** Keeps the handle of nonBlockingSocket alive for the life of the process (closing it would close fd 0). */
let socketHandle: unknown;

/**
 * Sets O_NONBLOCK on fd 0 when it is a socket, as process.stdin would (libuv's pipe open does it), but without
 * loading net and the stream modules: the pipe binding alone, about 0.1 ms against 3.5 ms (reached through
 * adapters/system/node-binding.ts). Any failure (another Node, not a socket) answers false and process.stdin reads
 * instead; test/node-internals.test.ts proves both ways on each Node CI runs.
 */
function nonBlockingSocket(): boolean {
  try {
    const binding = nodeBinding<{ Pipe: new (type: number) => { open: (fd: number) => number }; constants: { SOCKET: number } }>('pipe_wrap');
    if (!binding) return false;
    const handle = new binding.Pipe(binding.constants.SOCKET);
    if (handle.open(0) !== 0) return false;
    socketHandle = handle;
    return true;
  } catch {
    return false;
  }
}

/** Reads a non-blocking fd to its end, polling every 2 ms while it is empty; closes it after when `close`. */
function pollRead(fd: number, close: boolean): Promise<string | undefined> {
  const read = stdinCollector();
  const buf = Buffer.alloc(65536);
  return new Promise((resolve) => {
    const done = (text: string | undefined): void => {
      if (close) {
        try {
          fs.closeSync(fd);
        } catch {
          /* closed already */
        }
      }
      resolve(text);
    };
    const step = (): void => {
      for (;;) {
        let n: number;
        try {
          n = fs.readSync(fd, buf, 0, buf.length, null);
        } catch (err) {
          const code = (err as NodeJS.ErrnoException).code;
          if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return void setTimeout(step, 2);
          return done(code === 'EOF' ? read.text() : undefined);
        }
        if (n === 0) return done(read.text());
        if (!read.add(Buffer.from(buf.subarray(0, n)))) return done(undefined);
      }
    };
    step();
  });
}

/** Reads stdin through process.stdin's stream events (for a socket), under the same cap. */
function readStdinStream(): Promise<string | undefined> {
  return new Promise((resolve) => {
    const read = stdinCollector();
    const stdin = process.stdin;
    stdin.on('data', (c: Buffer) => {
      if (!read.add(c)) {
        stdin.destroy();
        resolve(undefined);
      }
    });
    stdin.on('end', () => resolve(read.text()));
    stdin.on('error', () => resolve(undefined));
  });
}

/** Parses the stdin payload; undefined unless it is one JSON object. */
export function parseInput(text: string | undefined): HookInput | undefined {
  if (!text || !text.trim()) return undefined;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as HookInput) : undefined;
  } catch {
    return undefined;
  }
}

/** Serialises a hook result, or undefined when it would exceed the output cap (never a blind cut). */
export function serialiseOutput(result: object | undefined): string | undefined {
  if (!result) return undefined;
  const text = JSON.stringify(result);
  return text.length <= HOOK_OUTPUT_MAX ? text : undefined;
}

/** Runs one hook event end to end with the fail-open guarantees above. */
export async function runHook(event: string, handlers: Record<string, () => Promise<HookHandler>>, options: { timeoutMs?: number; settings: Settings }): Promise<void> {
  const started = Date.now();
  const { settings } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  // NOTE: the deadline timer is unref'd: it never keeps the process alive, and when it fires it ends the
  // process silently, exit 0, whatever the handler was doing.
  const timer = setTimeout(() => {
    debugLog({ event, error: 'deadline passed', ms: Date.now() - started }, settings);
    process.exit(0);
  }, timeoutMs);
  timer.unref();
  try {
    const load = handlers[event];
    if (!load) return;
    const input = parseInput(await readStdin());
    if (!input) {
      debugLog({ event, skipped: 'stdin is not one JSON object' }, settings);
      return;
    }
    const handler = await load();
    const result = await handler(input, { deadline: started + timeoutMs, settings });
    const text = serialiseOutput(result);
    if (text) writeToFd1(text);
    else if (result) debugLog({ event, error: 'output over the cap, dropped' }, settings);
  } catch (err) {
    debugLog({ event, error: String((err as Error)?.stack ?? err).slice(0, 2000) }, settings);
  } finally {
    clearTimeout(timer);
    process.exitCode = 0;
  }
}
