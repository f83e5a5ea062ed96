/**
 * Node's internals, proved on the Node that runs this file (CI runs the suite on Node 20 and on Node 24): the two
 * uses of `process.binding` (adapters/system/node-binding.ts) take their fast path where Node has it, their
 * fallback gives the same answers, and neither prints Node's DEP0111 warning, even with `--pending-deprecation`
 * (or `--throw-deprecation`) in a user's NODE_OPTIONS: a hook prints nothing it did not mean to.
 * - the stat sweep (store/layout.ts): fileStat through the binding against fs.statSync;
 * - a hook's stdin on a socket (hooks/protocol.ts, what Node's spawn and so Claude Code hand a hook): read through
 *   the pipe binding, without loading Node's net module, and read the same through process.stdin when the binding
 *   is refused.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HOOK, kb, makeSandbox, run, type RunResult, type Sandbox } from './helpers/cli.js';
import { hookCommand, makeRepo, payload, tid, type TestEntry } from './hooks/prompt-support.js';

type Layout = typeof import('../src/adapters/store/layout.js');

/** A fresh copy of layout.ts (its probe runs again), with `process.binding` as given while it loads and runs. */
async function freshLayout(): Promise<Layout> {
  vi.resetModules();
  return import('../src/adapters/store/layout.js');
}

/** Runs `fn` with `process.binding` taken away. */
async function withoutBinding<T>(fn: () => Promise<T>): Promise<T> {
  const p = process as unknown as { binding: unknown };
  const binding = p.binding;
  p.binding = undefined;
  try {
    return await fn();
  } finally {
    p.binding = binding;
  }
}

/** What fileStat answers for `file`: its stat data, undefined, or the error's message. */
function answer(layout: Layout, file: string): unknown {
  try {
    return layout.fileStat(file) ?? 'not a regular file';
  } catch (err) {
    return `throws ${(err as Error).message}`;
  }
}

describe('the stat binding (store/layout.ts)', () => {
  let sb: Sandbox;
  let files: string[];
  beforeAll(() => {
    sb = makeSandbox('gkb-internals-');
    const d = (...p: string[]): string => path.join(sb.root, 'f', ...p);
    fs.mkdirSync(d('folder.md'), { recursive: true });
    fs.writeFileSync(d('plain.md'), 'x');
    fs.writeFileSync(d('empty.md'), '');
    fs.writeFileSync(d('name with spaces é ü.md'), 'y');
    fs.writeFileSync(d('nanoseconds.md'), 'z');
    // Times with nanoseconds, and one before 1970: the binding's seconds and nanoseconds must make the very
    // numbers fs.statSync's mtimeMs and ctimeMs are.
    execFileSync('touch', ['-m', '-d', '2026-03-04 05:06:07.123456789', d('nanoseconds.md')]);
    fs.writeFileSync(d('old.md'), 'o');
    execFileSync('touch', ['-m', '-d', '1969-07-20 20:17:40.987654321', d('old.md')]);
    // Sparse, over 4 GiB: a size past 32 bits.
    const big = fs.openSync(d('big.md'), 'w');
    fs.ftruncateSync(big, 5 * 1024 ** 3 + 7);
    fs.closeSync(big);
    fs.symlinkSync(d('plain.md'), d('link.md'));
    fs.symlinkSync(d('gone.md'), d('dangling.md'));
    fs.symlinkSync(d('folder.md'), d('link-to-folder.md'));
    execFileSync('mkfifo', [d('fifo.md')]);
    fs.symlinkSync('loop.md', d('loop.md'));
    files = [
      ...['plain.md', 'empty.md', 'name with spaces é ü.md', 'nanoseconds.md', 'old.md', 'big.md', 'link.md', 'dangling.md', 'link-to-folder.md', 'fifo.md', 'folder.md', 'missing.md'].map((n) => d(n)),
      path.join(d('plain.md'), 'below-a-file.md'),
      d('loop.md'),
      process.execPath,
    ];
  });
  afterAll(() => sb.cleanup());

  it('is the path taken on Linux: one fs.statSync (the probe) for a whole sweep', async () => {
    const hasBinding = typeof (process as unknown as { binding?: unknown }).binding === 'function';
    const spy = vi.spyOn(fs, 'statSync');
    try {
      const layout = await freshLayout();
      for (let i = 0; i < 20; i++) layout.fileStat(files[0]!);
      // On Node 20 and 24 under Linux the binding answers as fs.statSync does, so the sweep leaves it alone.
      if (process.platform === 'linux' && hasBinding) expect(spy.mock.calls.length).toBe(1);
      else expect(spy.mock.calls.length).toBeGreaterThanOrEqual(20);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers every kind of path exactly as the fallback does, and as fs.statSync does', async () => {
    const fast = await freshLayout();
    const viaBinding = files.map((f) => answer(fast, f));
    const viaFs = await withoutBinding(async () => {
      const slow = await freshLayout();
      return files.map((f) => answer(slow, f));
    });
    expect(viaBinding).toEqual(viaFs);
    // And both are fs.statSync's own numbers.
    const plain = fs.statSync(files[0]!);
    expect(viaBinding[0]).toEqual({ mtimeMs: plain.mtimeMs, ctimeMs: plain.ctimeMs, size: plain.size, ino: plain.ino });
    expect((viaBinding[3] as { mtimeMs: number }).mtimeMs).toBe(fs.statSync(files[3]!).mtimeMs);
    expect((viaBinding[3] as { mtimeMs: number }).mtimeMs % 1000).not.toBe(0);
    expect((viaBinding[4] as { mtimeMs: number }).mtimeMs).toBeLessThan(0);
    expect((viaBinding[5] as { size: number }).size).toBe(5 * 1024 ** 3 + 7);
    // A name that is there but no regular file when followed (a dangling link, a FIFO, a link loop) has the stat
    // data of the name itself: it is listed, and its read reports why (store/layout.ts entryStatInto). A folder, a
    // link to one, a missing path and one below a file (Node 20's fs.statSync throws ENOTDIR, Node 24's answers
    // none) are not.
    const own = (f: string): unknown => {
      const l = fs.lstatSync(f);
      return { mtimeMs: l.mtimeMs, ctimeMs: l.ctimeMs, size: l.size, ino: l.ino };
    };
    const none = 'not a regular file';
    expect(viaBinding.slice(7, 14)).toEqual([own(files[7]!), none, own(files[9]!), none, none, none, own(files[13]!)]);
    expect(viaBinding[14]).toEqual({ mtimeMs: fs.statSync(process.execPath).mtimeMs, ctimeMs: fs.statSync(process.execPath).ctimeMs, size: fs.statSync(process.execPath).size, ino: fs.statSync(process.execPath).ino });
  });
});

/** A --require'd script that records, when the process exits, whether Node's net module was ever loaded. */
function probeScript(dir: string): string {
  const file = path.join(dir, 'probe.cjs');
  fs.writeFileSync(
    file,
    [
      "const fs = require('fs');",
      'const socket = fs.fstatSync(0).isSocket();',
      "if (process.env.PROBE_REFUSE_BINDING) process.binding = () => { throw new Error('refused'); };",
      "process.on('exit', () => fs.writeFileSync(process.env.PROBE_OUT, JSON.stringify({ socket, net: process.moduleLoadList.includes('NativeModule net') })));",
      '',
    ].join('\n'),
  );
  return file;
}

/** Runs the hook entry for `event` with Node's spawn (stdin a socket, as Claude Code gives it), under the probe. */
function spawnHook(sb: Sandbox, event: string, input: string, env: NodeJS.ProcessEnv): Promise<RunResult & { probe: { socket: boolean; net: boolean } }> {
  const out = path.join(sb.root, `probe-${Math.random().toString(36).slice(2)}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HOOK, event], { env: { ...sb.env, GIT_KB_DATA: sb.data, PROBE_OUT: out, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const o: Buffer[] = [];
    const e: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => o.push(c));
    child.stderr.on('data', (c: Buffer) => e.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      let probe = { socket: false, net: true };
      try {
        probe = JSON.parse(fs.readFileSync(out, 'utf8')) as typeof probe;
      } catch {
        // no probe record: the test below fails on it
      }
      resolve({ code: code ?? 1, stdout: Buffer.concat(o).toString('utf8'), stderr: Buffer.concat(e).toString('utf8'), ms: 0, probe });
    });
    child.stdin.on('error', () => undefined);
    // In pieces, as a writer that is slower than the reader: the reader must wait for the end, not stop at a gap.
    const half = Math.floor(input.length / 2);
    child.stdin.write(input.slice(0, half));
    setTimeout(() => child.stdin.end(input.slice(half)), 50);
  });
}

const PROMPT = 'git stash pop gave me merge conflicts and now other files are staged, how do I finish the pop?';
const entries: TestEntry[] = [
  { id: tid(1), title: 'Resolve a merge conflict from stash pop', tags: ['git', 'stash'] },
  { id: tid(2), title: 'Create an index without locking the table', tags: ['postgres'] },
];

describe('the pipe binding (hooks/protocol.ts) and DEP0111 in the hooks and the CLI', () => {
  let sb: Sandbox;
  let probe: string;
  beforeAll(async () => {
    sb = makeSandbox('gkb-internals-');
    probe = probeScript(sb.root);
    await makeRepo(sb, entries);
  });
  afterAll(() => sb.cleanup());

  it('reads a socket stdin through the binding without loading net, and the same through process.stdin without it', async () => {
    // Over 64 KiB (several reads), and the prompt found in it.
    const input = JSON.stringify({ ...payload(PROMPT, 'socket-a'), padding: 'p'.repeat(300_000) });
    const fast = await spawnHook(sb, 'prompt', input, { NODE_OPTIONS: `--require ${probe}` });
    const slow = await spawnHook(sb, 'prompt', input.replace('socket-a', 'socket-b'), { NODE_OPTIONS: `--require ${probe}`, PROBE_REFUSE_BINDING: '1' });
    expect(fast.probe.socket).toBe(true);
    expect(slow.probe.socket).toBe(true);
    expect(fast.probe.net).toBe(false);
    expect(slow.probe.net).toBe(true);
    expect(fast.stderr).toBe('');
    expect(slow.stderr).toBe('');
    expect(fast.code).toBe(0);
    expect(slow.code).toBe(0);
    expect(fast.stdout).toContain(tid(1));
    expect(slow.stdout).toBe(fast.stdout);
  });

  it('prints no DEP0111 warning, and the same output, with --pending-deprecation (and --throw-deprecation) in NODE_OPTIONS', async () => {
    for (const options of ['--pending-deprecation', '--pending-deprecation --throw-deprecation']) {
      // A fresh copy of the data repo: no caches, so the stat sweep probes the binding.
      const copy = makeSandbox('gkb-internals-');
      try {
        await makeRepo(copy, entries);
        const env = { NODE_OPTIONS: options, GIT_KB_DATA: copy.data };
        const hookRun = await run('sh', ['-c', hookCommand()], { env: { ...copy.env, ...env }, input: JSON.stringify(payload(PROMPT, `dep-${options.length}`)) });
        expect(hookRun.stderr, options).toBe('');
        expect(hookRun.code).toBe(0);
        expect(hookRun.stdout).toContain(tid(1));
        const socketRun = await spawnHook(copy, 'prompt', JSON.stringify(payload(PROMPT, `dep-socket-${options.length}`)), { NODE_OPTIONS: `${options} --require ${probe}` });
        expect(socketRun.stderr, options).toBe('');
        expect(socketRun.probe.net, options).toBe(false);
        expect(socketRun.stdout).toContain(tid(1));
        for (const args of [['search', 'stash pop conflict'], ['add', '--type', 'lesson_learned', '--title', 'A note under deprecations', '--tags', 'node', 'Body of it.'], ['list']]) {
          const r = await kb(copy, ['--data', copy.data, ...args], { env });
          expect(r.stderr, `${options}: git-kb ${args[0]}`).toBe('');
          expect(r.code, `${options}: git-kb ${args[0]}`).toBe(0);
        }
      } finally {
        copy.cleanup();
      }
    }
  });
});

describe("simple-get's url.parse (build-shims/simple-get-url.cjs)", () => {
  it('gives the fields simple-get reads as url.parse does, without its DEP0169 warning on Node 24', async () => {
    const { createRequire } = await import('node:module');
    const shim = createRequire(import.meta.url)('../build-shims/simple-get-url.cjs') as { parse: (u: string) => Record<string, unknown> };
    const url = await import('node:url');
    const quiet = process.noDeprecation;
    process.noDeprecation = true;
    try {
      for (const u of ['http://127.0.0.1:8123/notes.git/info/refs?service=git-upload-pack', 'https://tok%40en:x-oauth@git.example.com/me/kb.git', 'http://[::1]:9000/a%20b/c', 'HTTPS://Example.COM', '/relative/redirect?x=1']) {
        const legacy = url.parse(u);
        const pick = ({ hostname, port, protocol, auth, path }: Record<string, unknown>) => ({ hostname, port, protocol, auth, path });
        expect(pick(shim.parse(u)), u).toEqual(pick(legacy as unknown as Record<string, unknown>));
      }
    } finally {
      process.noDeprecation = quiet;
    }
  });
});
