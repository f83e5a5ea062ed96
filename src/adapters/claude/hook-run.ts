/**
 * Contract: runs one hook command the way Claude Code runs it (spec/cli.md, `doctor`, "hook-run"): the command
 * string through `sh -c`, the payload as JSON on stdin, in a working directory and an environment the caller
 * chooses, in its own process group, which is killed at the timeout. Collects the exit, the signal and at most
 * 64 KB of stdout and stderr each. Never throws: a command that cannot start is an outcome like any other.
 */
import { spawn } from 'node:child_process';

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
export function runHookCommand(command: string, payload: object, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<HookRun> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn('/bin/sh', ['-c', command], { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (err) {
      resolve({ timedOut: false, error: (err as Error).message, stdout: '', stderr: '' });
      return;
    }
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let timedOut = false;
    const killGroup = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      if (outBytes < MAX_OUTPUT) out.push(c);
      outBytes += c.length;
    });
    child.stderr!.on('data', (c: Buffer) => {
      if (errBytes < MAX_OUTPUT) err.push(c);
      errBytes += c.length;
    });
    let spawnError: string | undefined;
    child.on('error', (e) => {
      spawnError = e.message;
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      killGroup(); // a straggler the hook left holding nothing of ours; its group goes with it
      resolve({
        ...(code !== null ? { code } : {}),
        ...(signal ? { signal } : {}),
        timedOut,
        ...(spawnError ? { error: spawnError } : {}),
        stdout: Buffer.concat(out).toString('utf8').slice(0, MAX_OUTPUT),
        stderr: Buffer.concat(err).toString('utf8').slice(0, MAX_OUTPUT),
      });
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(JSON.stringify(payload));
  });
}
