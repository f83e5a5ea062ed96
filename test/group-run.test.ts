/**
 * The runner of a child in its own process group (src/adapters/system/group-run.ts): output and exit, the limits
 * of each stream, the timeout that takes the child's grandchildren with it, a grandchild holding the pipes open
 * after the child exited, and a child that cannot start. Nothing here times anything: a wait that never ends
 * fails at the test's own timeout.
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { runInGroup, type GroupRunOptions } from '../src/adapters/system/group-run.js';
import { processRunning } from './helpers/cli.js';

const sh = (script: string, more: Partial<GroupRunOptions> = {}): GroupRunOptions => ({
  file: '/bin/sh',
  args: ['-c', script],
  cwd: os.tmpdir(),
  env: process.env,
  input: '',
  timeoutMs: 30_000,
  stdout: { max: 64 * 1024, past: 'truncate' },
  stderr: { max: 64 * 1024, past: 'truncate' },
  ...more,
});

/** Waits until `pid` is gone (a zombie counts as gone); a pid that stays fails the test at its own timeout. */
async function gone(pid: number): Promise<void> {
  while (processRunning(pid)) await new Promise((r) => setTimeout(r, 20));
}

describe('runInGroup', () => {
  it('gives the output, stdin echoed, and the exit of a command that prints and exits', async () => {
    const r = await runInGroup(sh('cat; echo to-err >&2; exit 3', { input: 'hello\n' }));
    expect(r).toEqual({ kind: 'exit', code: 3, signal: null, timedOut: false, stdout: 'hello\n', stderr: 'to-err\n' });
  });

  it('past a truncate limit keeps the first bytes, whole characters only; past a fail limit gives its reason', async () => {
    const big = "head -c 5000 /dev/zero | tr '\\0' x";
    const cut = await runInGroup(sh(big, { stdout: { max: 1000, past: 'truncate' } }));
    expect(cut).toMatchObject({ kind: 'exit', code: 0, timedOut: false });
    expect(cut.kind === 'exit' && cut.stdout).toBe('x'.repeat(1000));

    // "é" is two bytes: a cut in its middle drops the half character
    const accents = await runInGroup(sh("printf 'aéé'", { stdout: { max: 4, past: 'truncate' } }));
    expect(accents.kind === 'exit' && accents.stdout).toBe('aé');

    expect(await runInGroup(sh(big, { stdout: { max: 1000, past: 'fail', reason: 'too much output' } }))).toEqual({ kind: 'failed', reason: 'too much output' });
    expect(await runInGroup(sh(`${big} >&2`, { stderr: { max: 1000, past: 'fail', reason: 'too much on stderr' } }))).toEqual({ kind: 'failed', reason: 'too much on stderr' });
    // at the limit exactly is not past it
    const exact = await runInGroup(sh("head -c 1000 /dev/zero | tr '\\0' x", { stdout: { max: 1000, past: 'fail', reason: 'too much' } }));
    expect(exact).toMatchObject({ kind: 'exit', code: 0 });
  });

  it('at the timeout kills the command and its grandchild', async () => {
    const r = await runInGroup(sh('sleep 30 & echo $!; sleep 30', { timeoutMs: 300 }));
    expect(r).toMatchObject({ kind: 'exit', code: null, timedOut: true });
    const grandchild = Number(r.kind === 'exit' && r.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    await gone(grandchild);
  });

  it('returns once the command exited though a grandchild holds its stdout open, and kills the grandchild', async () => {
    const r = await runInGroup(sh('sleep 30 & echo $!; exit 0'));
    expect(r).toMatchObject({ kind: 'exit', code: 0, signal: null, timedOut: false });
    const grandchild = Number(r.kind === 'exit' && r.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    await gone(grandchild);
  });

  it('a command that cannot start is an outcome, not a throw', async () => {
    const missing = await runInGroup({ ...sh(''), file: '/nonexistent/no-such-program', args: [] });
    expect(missing).toMatchObject({ kind: 'unstarted', threw: false });
    expect(missing.kind === 'unstarted' && missing.message).toMatch(/ENOENT/);

    const badCwd = await runInGroup(sh('true', { cwd: '/nonexistent/no-such-dir' }));
    expect(badCwd).toMatchObject({ kind: 'unstarted', threw: false });

    // spawn itself throws on an argument holding a NUL byte
    const thrown = await runInGroup(sh('true', { args: ['-c', 'true\0'] }));
    expect(thrown).toMatchObject({ kind: 'unstarted', threw: true });
  });
});
