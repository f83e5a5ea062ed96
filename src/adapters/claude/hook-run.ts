/**
 * Contract: runs one hook command the way Claude Code runs it (spec/cli.md, `doctor`, "hook-run"): the command
 * string through `sh -c`, the payload as JSON on stdin, in a working directory and an environment the caller
 * chooses, in its own process group (adapters/system/group-run.ts), which is killed at the timeout, once the
 * command is done and when this process exits. Collects the exit, the signal and at most 64 KB of stdout and
 * stderr each (more is cut off). A command that exits while something it started holds its output open is taken
 * as done shortly after its exit. Never throws: a command that cannot start is an outcome like any other.
 */
import { runInGroup } from '../system/group-run.js';

export interface HookRun {
  /** The exit code, or undefined when it died of a signal or never started. */
  code?: number;
  signal?: string;
  timedOut: boolean;
  /** Why it could not start (spawn error), when it did not. */
  error?: string;
  stdout: string;
  stderr: string;
}

const MAX_OUTPUT = 64 * 1024;

/** Runs `command` with `payload` on stdin. */
export async function runHookCommand(command: string, payload: object, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<HookRun> {
  const r = await runInGroup({
    file: '/bin/sh',
    args: ['-c', command],
    cwd: options.cwd,
    env: options.env,
    input: JSON.stringify(payload),
    timeoutMs: options.timeoutMs,
    stdout: { max: MAX_OUTPUT, past: 'truncate' },
    stderr: { max: MAX_OUTPUT, past: 'truncate' },
  });
  if (r.kind !== 'exit') return { timedOut: false, error: r.kind === 'unstarted' ? r.message : r.reason, stdout: '', stderr: '' };
  return {
    ...(r.code !== null ? { code: r.code } : {}),
    ...(r.signal ? { signal: r.signal } : {}),
    timedOut: r.timedOut,
    stdout: r.stdout,
    stderr: r.stderr,
  };
}
