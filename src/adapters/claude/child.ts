/**
 * Contract: running a model child of git-kb (the prose gate's judge, the reflection child): a `claude` executable
 * in print mode with every hook disabled (`--settings {"disableAllHooks":true}`), no tools, no MCP servers, no saved
 * session, its own system prompt and a JSON Schema for its answer (childArgs), git-kb's own model calls switched
 * off in its environment (KB_PROSE_LINT=0, KB_REFLECT=0), the prompt on stdin, the OS temp dir as working
 * directory. A `claude` too old for those flags (it exits naming an unknown option) is asked again with the
 * first four only. The child runs in its own process group, which is killed at the timeout, on more than 1 MB of
 * output, once the child has exited, and when this process exits. Never throws. Loaded only when a model call is due.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import type { ModelRun } from '../../core/text/model-json.js';

/** Settings handed to the child so no hook (git-kb's included) runs inside it. */
export const CHILD_SETTINGS = '{"disableAllHooks":true}';

/** What a child is asked: its model, system prompt and the JSON Schema of its answer. */
export interface ChildSpec {
  model: string;
  system: string;
  schema: string;
}

/** The child's arguments; `legacy` gives only those every print-mode `claude` takes. */
export function childArgs(spec: ChildSpec, legacy = false): string[] {
  const base = ['-p', '--model', spec.model, '--output-format', 'json', '--settings', CHILD_SETTINGS];
  if (legacy) return base;
  return [...base, '--tools', '', '--strict-mcp-config', '--no-session-persistence', '--system-prompt', spec.system, '--json-schema', spec.schema];
}

export interface ChildOptions extends ChildSpec {
  claude: string;
  prompt: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** What the child is, for messages ("judge", "reflection"). */
  what: string;
  /** Only the flags every print-mode `claude` takes (see childArgs). */
  legacy?: boolean;
}

/** A `claude` that refused an argument (commander's wording): it predates one of the newer flags. */
const UNKNOWN_OPTION = /\b(?:unknown|unrecognized) option\b/i;
const MAX_STDOUT = 1_000_000;

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

/** Runs the child (see the module contract): its exit and output, or why it did not finish. */
export async function runClaudeChild(o: ChildOptions): Promise<ModelRun> {
  const started = Date.now();
  const run = await runOnce(o);
  if (o.legacy || run.kind !== 'exit' || run.code === 0 || !UNKNOWN_OPTION.test(run.stderr)) return run;
  const left = o.timeoutMs - (Date.now() - started);
  return left < 1_000 ? run : runOnce({ ...o, legacy: true, timeoutMs: left });
}

function runOnce(o: ChildOptions): Promise<ModelRun> {
  return new Promise((resolve) => {
    let settled = false;
    let child: ReturnType<typeof spawn>;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    const finish = (outcome: ModelRun): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // NOTE: the whole group goes, so a grandchild the child left behind cannot outlive this process.
      killGroup(child?.pid);
      if (child?.pid) running.delete(child.pid);
      child?.stdout?.destroy();
      child?.stderr?.destroy();
      child?.stdin?.destroy();
      child?.unref();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'error', reason: `timeout after ${o.timeoutMs} ms` }), o.timeoutMs);
    try {
      child = spawn(o.claude, childArgs(o, o.legacy), {
        cwd: os.tmpdir(),
        env: { ...o.env, KB_PROSE_LINT: '0', KB_REFLECT: '0' },
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true,
      });
    } catch (e) {
      finish({ kind: 'error', reason: `cannot start ${o.claude}: ${(e as Error).message}` });
      return;
    }
    if (child.pid) running.add(child.pid);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const pid of running) killGroup(pid);
      });
    }
    child.on('error', (e) => finish({ kind: 'error', reason: `cannot run ${o.claude}: ${e.message}` }));
    child.stdout!.on('data', (c: Buffer) => {
      outBytes += c.length;
      if (outBytes > MAX_STDOUT) finish({ kind: 'error', reason: `${o.what} output over 1 MB` });
      else out.push(c);
    });
    child.stderr!.on('data', (c: Buffer) => {
      errBytes += c.length;
      if (errBytes <= 16_384) err.push(c);
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(o.prompt);
    const decide = (code: number | null, signal: NodeJS.Signals | null): void => {
      finish({ kind: 'exit', code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    };
    let closed = false;
    child.on('close', (code, signal) => {
      closed = true;
      decide(code, signal);
    });
    // A grandchild holding the pipes open must not keep the caller waiting once the child itself has exited.
    child.on('exit', (code, signal) => {
      setTimeout(() => {
        if (!closed) decide(code, signal);
      }, 200).unref();
    });
  });
}
