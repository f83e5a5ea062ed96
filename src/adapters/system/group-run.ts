/**
 * Contract: runs one child process in a process group of its own (`detached: true`), for callers that start a
 * program they do not trust to clean up after itself (doctor's hook probe, the model children). The child gets
 * `file` with `args` (no shell unless `file` is one), a working directory, an environment and `input` on stdin.
 * Each of stdout and stderr has a limit in bytes and what happens past it: `truncate` keeps the first `max`
 * bytes (cut back to a whole UTF-8 character), `fail` stops the run with the limit's reason. The whole group is
 * killed (SIGKILL) at the timeout, on a `fail` limit, once the run is decided (so a grandchild the child left
 * behind goes too), and when this process exits (one 'exit' hook over a registry of the groups still running).
 * The run is decided when the child's pipes close, or GRACE_MS after the child exited (or was killed at the
 * timeout) without them closing: a grandchild holding the pipes open cannot keep the caller waiting. Never
 * throws: a child that cannot start is an outcome (`unstarted`: spawn threw, or reported an error).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

/** What one output stream may hold: at most `max` bytes, and what happens past them. */
export type OutputLimit = { max: number; past: 'truncate' } | { max: number; past: 'fail'; reason: string };

export interface GroupRunOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Written to the child's stdin, which is then closed. */
  input: string;
  timeoutMs: number;
  stdout: OutputLimit;
  stderr: OutputLimit;
}

export type GroupRun =
  /** The child exited, or was killed at the timeout (`timedOut`); code and signal are null when not known. */
  | { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null; timedOut: boolean; stdout: string; stderr: string }
  /** It could not start: `spawn` threw (`threw`), or the child reported an error (Node's 'error' event). */
  | { kind: 'unstarted'; message: string; threw: boolean }
  /** A stream went past a `fail` limit: that limit's reason. */
  | { kind: 'failed'; reason: string };

/** How long after the child's exit (or its kill at the timeout) the run is decided if its pipes are still open. */
export const GRACE_MS = 200;

/** The groups still running, killed when this process exits. */
const running = new Set<number>();
let exitHook = false;

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/** Collects one stream under its limit; `add` answers false when a `fail` limit was passed. */
function collector(limit: OutputLimit): { add(chunk: Buffer): boolean; text(): string } {
  const chunks: Buffer[] = [];
  let seen = 0;
  let kept = 0;
  return {
    add(chunk) {
      seen += chunk.length;
      if (seen > limit.max && limit.past === 'fail') return false;
      if (kept < limit.max) {
        const part = chunk.subarray(0, limit.max - kept);
        chunks.push(part);
        kept += part.length;
      }
      return true;
    },
    text() {
      const all = Buffer.concat(chunks);
      // StringDecoder holds back an incomplete character at the end, where a truncation may have cut one.
      return seen > kept ? new StringDecoder('utf8').write(all) : all.toString('utf8');
    },
  };
}

/** Runs the child (see the module contract). */
export function runInGroup(o: GroupRunOptions): Promise<GroupRun> {
  return new Promise((resolve) => {
    let child: ChildProcess | undefined;
    let settled = false;
    let timedOut = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const out = collector(o.stdout);
    const err = collector(o.stderr);
    const finish = (run: GroupRun): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      killGroup(child?.pid);
      if (child?.pid) running.delete(child.pid);
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      child?.stdin?.destroy();
      child?.unref();
      resolve(run);
    };
    const decide = (): void => finish({ kind: 'exit', code: exited?.code ?? null, signal: exited?.signal ?? null, timedOut, stdout: out.text(), stderr: err.text() });
    const decideSoon = (): void => {
      setTimeout(decide, GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child?.pid);
      decideSoon();
    }, o.timeoutMs);
    try {
      child = spawn(o.file, [...o.args], { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (e) {
      finish({ kind: 'unstarted', message: (e as Error).message, threw: true });
      return;
    }
    if (child.pid) running.add(child.pid);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const pid of running) killGroup(pid);
      });
    }
    child.on('error', (e) => finish({ kind: 'unstarted', message: e.message, threw: false }));
    const take = (collect: ReturnType<typeof collector>, limit: OutputLimit) => (chunk: Buffer) => {
      // After the timeout the run is a timed-out one, whatever the killed child still had in its pipes.
      if (!collect.add(chunk) && !timedOut && limit.past === 'fail') finish({ kind: 'failed', reason: limit.reason });
    };
    child.stdout!.on('data', take(out, o.stdout));
    child.stderr!.on('data', take(err, o.stderr));
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(o.input);
    child.on('close', (code, signal) => {
      exited = { code, signal };
      decide();
    });
    // A grandchild holding the pipes open must not keep the caller waiting once the child itself has exited.
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      decideSoon();
    });
  });
}
