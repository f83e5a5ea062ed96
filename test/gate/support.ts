/**
 * Shared by the prose-gate tests: the exact PreToolUse command of hooks/hooks.json run as Claude Code runs it
 * (`sh -c`, JSON on stdin, ${CLAUDE_PLUGIN_ROOT} set), a data repo whose kernel entry carries `rules:` (made
 * with `git-kb add --kernel`, the rules hand-written into the front matter and committed with the real git),
 * and a bin directory holding one stand-in `claude`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { git, kb, ROOT, run, type RunResult, type Sandbox } from '../helpers/cli.js';

export const STUBS = path.join(ROOT, 'test', 'fixtures', 'claude-stubs');

/** The PreToolUse entry of hooks/hooks.json. */
export function preToolUseEntry(): { matcher: string; hooks: Array<{ type: string; command: string; timeout: number }> } {
  const hooks = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, unknown[]> };
  return hooks.hooks.PreToolUse![0] as ReturnType<typeof preToolUseEntry>;
}

/** The command Claude Code runs, with the plugin root substituted. */
export function gateCommand(): string {
  return preToolUseEntry().hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
}

/** Runs the gate once with `payload` (an object, or raw stdin text) in the sandbox. */
export function runGate(sb: Sandbox, payload: unknown, env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const input = typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload);
  return run('sh', ['-c', gateCommand()], { env: { ...sb.env, CLAUDE_PLUGIN_ROOT: ROOT, GIT_KB_DATA: sb.data, ...env }, input, cwd: sb.root });
}

/** A PreToolUse payload as Claude Code sends it. */
export function payload(tool: string, input: unknown, cwd = '/work/project'): Record<string, unknown> {
  return { session_id: 's-1', transcript_path: '/tmp/none.jsonl', cwd, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input };
}

export interface DenyOutput {
  hookSpecificOutput: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string };
}

/** Parses a deny and checks its shape; throws when stdout is not one. */
export function parseDeny(r: RunResult): DenyOutput {
  const out = JSON.parse(r.stdout) as DenyOutput;
  if (Object.keys(out).join() !== 'hookSpecificOutput') throw new Error(`unexpected keys: ${r.stdout}`);
  const h = out.hookSpecificOutput;
  if (h.hookEventName !== 'PreToolUse' || h.permissionDecision !== 'deny' || typeof h.permissionDecisionReason !== 'string') {
    throw new Error(`not a deny: ${r.stdout}`);
  }
  return out;
}

export interface RuleSpec {
  pattern: string;
  message: string;
  flags?: string;
}

function yamlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

/** Writes `rules:` into an entry file's front matter (replacing any there) and commits it with the real git. */
export async function setRules(sb: Sandbox, rel: string, rules: RuleSpec[], message = 'rules'): Promise<void> {
  const file = path.join(sb.data, rel);
  let text = fs.readFileSync(file, 'utf8');
  text = text.replace(/^rules:\n(?: {2}.*\n)*/m, '');
  const yaml = rules.length === 0 ? '' : `rules:\n${rules.map((r) => `  - pattern: ${yamlString(r.pattern)}\n    message: ${yamlString(r.message)}\n${r.flags !== undefined ? `    flags: ${yamlString(r.flags)}\n` : ''}`).join('')}`;
  text = text.replace(/^kernel: true\n/m, () => `kernel: true\n${yaml}`);
  fs.writeFileSync(file, text);
  await git(sb.data, ['add', '-A'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', message], sb.env);
}

/** Adds a kernel entry through the CLI and gives it `rules`; returns its id and path. */
export async function addKernel(sb: Sandbox, o: { title: string; body: string; rules?: RuleSpec[] }): Promise<{ id: string; path: string }> {
  const r = await kb(sb, ['--data', sb.data, 'add', '--kernel', '--type', 'pattern_convention', '--title', o.title, '--json', '--', o.body]);
  if (r.code !== 0) throw new Error(`add failed: ${r.stderr}`);
  const added = JSON.parse(r.stdout) as { id: string; path: string };
  if (o.rules) await setRules(sb, added.path, o.rules);
  return added;
}

/** A bin directory in the sandbox whose `claude` is the stand-in `stub` (a symlink, so its imports resolve). */
export function stubBin(sb: Sandbox, stub: string): string {
  const dir = path.join(sb.root, `bin-${stub.replace(/\W/g, '-')}`);
  fs.mkdirSync(dir, { recursive: true });
  const link = path.join(dir, 'claude');
  fs.rmSync(link, { force: true });
  fs.symlinkSync(path.join(STUBS, stub), link);
  return dir;
}

/** PATH with the stand-in's directory first and no other `claude`. */
export function pathWith(binDir: string | undefined, sb: Sandbox): string {
  const base = (sb.env.PATH ?? '').split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, 'claude')));
  return [...(binDir ? [binDir] : []), ...base].join(path.delimiter);
}

/** The JSON lines a stand-in appended to its log. */
export function stubCalls(log: string): Array<Record<string, any>> {
  if (!fs.existsSync(log)) return [];
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, any>);
}
