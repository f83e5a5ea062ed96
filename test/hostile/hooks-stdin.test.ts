/**
 * Hostile battery (issue 16), a hook's own deadline (F15, F16): a hook whose stdin never closes, or is an empty
 * non-blocking pipe, or whose debug log sits under /proc, must still give up silently (exit 0) by its deadline
 * (src/hooks/entry.ts: session-end 1.5 s, prompt 8 s), and never spin the CPU while it waits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { cpuMsOf, HOOK_ENTRY } from './support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-hstdin-');
});
afterEach(() => sb.cleanup());


interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  ms: number;
  /** CPU time (user + system) of the child, sampled just before it ended or was killed. */
  cpuMs: number;
}

/** Watches a spawned hook: kills it after `capMs`, sampling its CPU time from /proc every 100 ms. */
function watch(child: ChildProcess, pid: number, capMs: number): Promise<Ended> {
  const started = Date.now();
  let cpu = 0;
  return new Promise((resolve, reject) => {
    const sample = setInterval(() => {
      const c = cpuMsOf(pid);
      if (c !== undefined) cpu = c;
    }, 100);
    const cap = setTimeout(() => {
      const c = cpuMsOf(pid);
      if (c !== undefined) cpu = c;
      child.kill('SIGKILL');
    }, capMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearInterval(sample);
      clearTimeout(cap);
      resolve({ code, signal, ms: Date.now() - started, cpuMs: cpu });
    });
  });
}

describe('F15: a hook whose stdin never closes', () => {
  it('F15: session-end with an open, silent stdin pipe ends by itself (its deadline), exit 0', async () => {
    const child = spawn(process.execPath, [HOOK_ENTRY, 'session-end'], { env: { ...sb.env, GIT_KB_DATA: sb.data }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin!.on('error', () => undefined); // never written, never closed
    const end = await watch(child, child.pid!, 30_000);
    child.stdin!.destroy();
    expect(end.signal, `still running after ${end.ms} ms (killed by the test)`).toBeNull();
    expect(end.code).toBe(0);
  });

  it('F15: prompt with an open, silent stdin pipe ends by itself (its deadline), exit 0', async () => {
    const child = spawn(process.execPath, [HOOK_ENTRY, 'prompt'], { env: { ...sb.env, GIT_KB_DATA: sb.data }, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin!.on('error', () => undefined);
    const end = await watch(child, child.pid!, 30_000);
    child.stdin!.destroy();
    expect(end.signal, `still running after ${end.ms} ms (killed by the test)`).toBeNull();
    expect(end.code).toBe(0);
  });

  it('F15: session-end with an empty non-blocking stdin exits 0 by its deadline and does not spin the CPU', async () => {
    // A FIFO held open for writing by the test (so no EOF ever) and set O_NONBLOCK on the hook's side: every
    // read says EAGAIN. perl sets the flag and then execs node, so the pid is the hook's own.
    const fifo = path.join(sb.root, 'stdin.fifo');
    await new Promise<void>((resolve, reject) => spawn('mkfifo', [fifo]).on('exit', (c) => (c === 0 ? resolve() : reject(new Error('mkfifo failed')))));
    const script = 'use Fcntl; sysopen(my $f, shift, O_RDWR) or die "open: $!"; open(STDIN, "<&", $f) or die "dup: $!"; my $fl = fcntl(STDIN, F_GETFL, 0); fcntl(STDIN, F_SETFL, $fl | O_NONBLOCK) or die "fcntl: $!"; exec @ARGV or die "exec: $!"';
    const child = spawn('perl', ['-e', script, fifo, process.execPath, HOOK_ENTRY, 'session-end'], { env: { ...sb.env, GIT_KB_DATA: sb.data }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const end = await watch(child, child.pid!, 30_000);
    expect(stderr, 'the perl wrapper failed').not.toMatch(/open:|dup:|fcntl:|exec:/);
    const label = `ran ${end.ms} ms, used ${end.cpuMs} ms of CPU, ended by ${end.signal ?? `exit ${end.code}`}`;
    expect(end.cpuMs, `${label}: spins on EAGAIN`).toBeLessThan(Math.max(300, end.ms * 0.3));
    expect(end.signal, label).toBeNull();
    expect(end.code, label).toBe(0);
  });
});

describe('F16: the debug log under /proc', () => {
  const cases: { name: string; env: NodeJS.ProcessEnv }[] = [
    { name: 'KB_HOOK_DEBUG_FILE under /proc', env: { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: '/proc/git-kb-hooks/debug.jsonl' } },
    { name: 'TMPDIR=/proc', env: { KB_HOOK_DEBUG: '1', TMPDIR: '/proc' } },
  ];
  // A payload that is not JSON makes every event write one debug line ("stdin is not one JSON object").
  for (const ev of ['session-end', 'stop', 'prompt'] as const) {
    it(`F16: ${ev} ends by itself, exit 0, with KB_HOOK_DEBUG=1 and the debug log under /proc`, async () => {
      const failures: string[] = [];
      await Promise.all(
        cases.map(async (c) => {
          const child = spawn(process.execPath, [HOOK_ENTRY, ev], { env: { ...sb.env, GIT_KB_DATA: sb.data, ...c.env }, stdio: ['pipe', 'pipe', 'pipe'] });
          child.stdin!.on('error', () => undefined);
          child.stdin!.end('this is not json');
          // The hang guard times nothing: a hook wedged on the log (a write that never returns holds the event loop,
          // so its own deadline cannot fire) is killed here; one that ends, at whatever speed the machine allows, passes.
          const end = await watch(child, child.pid!, 60_000);
          if (end.signal || end.code !== 0) failures.push(`${c.name}: ${end.signal ? `killed by the test after ${end.ms} ms` : `exit ${end.code} after ${end.ms} ms`} (CPU ${end.cpuMs} ms)`);
        }),
      );
      expect(failures).toEqual([]);
    });
  }
});

