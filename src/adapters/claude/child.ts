/**
 * Contract: running a model child of git-kb (the prose gate's judge, the reflection child): a `claude` executable
 * in print mode with every hook disabled (`--settings {"disableAllHooks":true}`), no tools, no MCP servers, no saved
 * session, its own system prompt and a JSON Schema for its answer (childArgs), git-kb's own model calls switched
 * off in its environment (KB_PROSE_LINT=0, KB_REFLECT=0), the prompt on stdin, the OS temp dir as working
 * directory. A `claude` too old for those flags (it exits naming an unknown option) is asked again with the
 * first four only. The child runs in its own process group (adapters/system/group-run.ts), which is killed at the
 * timeout, on more than 1 MB of output, once the child has exited, and when this process exits; its stderr is kept
 * to 16 KB. Never throws. Loaded only when a model call is due.
 */
import os from 'node:os';
import type { ModelRun } from '../../core/text/model-json.js';
import { runInGroup } from '../system/group-run.js';

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
const MAX_STDERR = 16_384;

/** Runs the child (see the module contract): its exit and output, or why it did not finish. */
export async function runClaudeChild(o: ChildOptions): Promise<ModelRun> {
  const started = Date.now();
  const run = await runOnce(o);
  if (o.legacy || run.kind !== 'exit' || run.code === 0 || !UNKNOWN_OPTION.test(run.stderr)) return run;
  const left = o.timeoutMs - (Date.now() - started);
  return left < 1_000 ? run : runOnce({ ...o, legacy: true, timeoutMs: left });
}

async function runOnce(o: ChildOptions): Promise<ModelRun> {
  const r = await runInGroup({
    file: o.claude,
    args: childArgs(o, o.legacy),
    cwd: os.tmpdir(),
    env: { ...o.env, KB_PROSE_LINT: '0', KB_REFLECT: '0' },
    input: o.prompt,
    timeoutMs: o.timeoutMs,
    stdout: { max: MAX_STDOUT, past: 'fail', reason: `${o.what} output over 1 MB` },
    stderr: { max: MAX_STDERR, past: 'truncate' },
  });
  switch (r.kind) {
    case 'unstarted':
      return { kind: 'error', reason: `${r.threw ? 'cannot start' : 'cannot run'} ${o.claude}: ${r.message}` };
    case 'failed':
      return { kind: 'error', reason: r.reason };
    case 'exit':
      if (r.timedOut) return { kind: 'error', reason: `timeout after ${o.timeoutMs} ms` };
      return { kind: 'exit', code: r.code, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
  }
}
