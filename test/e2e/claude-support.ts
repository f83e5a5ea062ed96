/**
 * Shared by the real-client suite (test/e2e/claude-*.test.ts): the real Claude Code CLI (the pinned devDependency,
 * node_modules/.bin/claude) in print mode against the stand-in model API (test/helpers/model-api.ts), a throwaway
 * HOME per sandbox, a data repo seeded through `git-kb add`, and the plugin published as a marketplace over git
 * smart HTTP (test/helpers/git-server.ts) and installed the way users install it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { addKernel, pathWith } from '../gate/support.js';
import { git, kb, makeSandbox, ROOT, run, type RunResult, type Sandbox } from '../helpers/cli.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { startModelApi, systemText, textsOf, type ModelApi, type ModelRequest, type Reply } from '../helpers/model-api.js';

export const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude');
/** The marketplace and plugin names of .claude-plugin/marketplace.json. */
export const MARKETPLACE = 'git-kb';
export const PLUGIN = `git-kb@${MARKETPLACE}`;
export const HOOK_CONTEXT = 'UserPromptSubmit hook additional context:';

/** A sandbox for the real CLI: its HOME is Claude Code's throwaway home, `project` a working directory. */
export interface ClaudeSandbox extends Sandbox {
  project: string;
  /** The env for `claude` (and so for every hook it runs): stand-in API, no telemetry, no `claude` on PATH. */
  claudeEnv(extra?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

export function makeClaudeSandbox(api: ModelApi, prefix = 'gkb-cc-'): ClaudeSandbox {
  const sb = makeSandbox(prefix);
  const project = path.join(sb.root, 'project');
  fs.mkdirSync(project, { recursive: true });
  // NOTE: no `claude` on PATH (npm test puts node_modules/.bin there), so the prose gate's model judge runs only
  // where a test asks for it.
  const base = { ...sb.env, PATH: pathWith(undefined, sb) };
  return {
    ...sb,
    project,
    claudeEnv: (extra = {}) => ({
      ...base,
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-ant-api03-stand-in-key',
      DISABLE_TELEMETRY: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      GIT_KB_DATA: sb.data,
      ...extra,
    }),
  };
}

/** What `claude -p --output-format json` printed, parsed. */
export interface ClaudeResult extends RunResult {
  json: { result?: string; session_id?: string; is_error?: boolean; permission_denials?: unknown[]; [k: string]: unknown };
}

/** Runs the real CLI with `args` (closing stdin), bounded by `timeoutMs`. */
export function claude(sb: ClaudeSandbox, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return run(CLAUDE, args, { env: sb.claudeEnv(options.env), cwd: options.cwd ?? sb.project, timeoutMs: options.timeoutMs ?? 60_000 });
}

/** `claude -p PROMPT --output-format json ...extra`; fails the test unless it exits 0 with a JSON result. */
export async function prompt(sb: ClaudeSandbox, text: string, extra: string[] = [], options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {}): Promise<ClaudeResult> {
  const r = await claude(sb, ['-p', text, '--output-format', 'json', ...extra], options);
  expect(r.code, `claude exited ${r.code}: ${r.stderr}\n${r.stdout}`).toBe(0);
  const json = JSON.parse(r.stdout) as ClaudeResult['json'];
  expect(json.is_error, r.stdout).toBe(false);
  return { ...r, json };
}

/** A request from the prose gate's judge child (its system prompt, or the stdin prompt of an older child). */
export function isJudgeRequest(req: ModelRequest): boolean {
  return systemText(req).includes('You are a copy editor') || (textsOf(req)[0] ?? '').startsWith('You are a copy editor');
}

/** A request from git-kb's reflection child (its system prompt, or the opening of its stdin prompt). */
export function isReflectRequest(req: ModelRequest): boolean {
  return systemText(req).includes('You distil durable, non-obvious knowledge') || (textsOf(req)[0] ?? '').startsWith('You review a finished coding session');
}

/**
 * Scripts a conversation: the main requests get `steps` in order (then "Done."), judge-child requests get
 * `judge(req)` (default a pass), reflection-child requests no proposals (where `claude` is on PATH, a session's
 * end starts one), side calls a short text.
 */
export function converse(api: ModelApi, steps: Reply[], judge?: (req: ModelRequest) => Reply): void {
  const queue = [...steps];
  api.script((req) => {
    if (isJudgeRequest(req)) return judge ? judge(req) : verdictReply(req, { pass: true });
    if (isReflectRequest(req)) return verdictReply(req, { proposals: [] });
    if (!req.main) return 'OK.';
    return queue.shift() ?? 'Done.';
  });
}

/** A model child's answer (a judge verdict, reflection proposals) in the form it asked for: a StructuredOutput call under --json-schema, else text. */
export function verdictReply(req: ModelRequest, verdict: unknown): Reply {
  const structured = ((req.body?.tools ?? []) as Array<{ name: string }>).some((t) => t.name === 'StructuredOutput');
  return structured ? { tool: 'StructuredOutput', input: verdict } : JSON.stringify(verdict);
}

// ---- the data repo ----

export interface Seeded {
  kernel: { id: string; path: string };
  /** Note ids by topic word. */
  notes: Record<string, string>;
}

/** The kernel entry's rule: "leverage" is banned. */
export const BANNED = { pattern: '\\bleverage\\b', message: 'Say "use" instead of "leverage".' };
export const KERNEL_BODY = 'House style: write plain English and say what a thing does. Never write "leverage".';

const NOTES: Array<[string, string, string]> = [
  ['postgres', 'Postgres autovacuum tuning for large tables', 'Lower autovacuum_vacuum_scale_factor to 0.01 on tables over ten million rows; raise the cost limit.'],
  ['kubernetes', 'Kubernetes ingress timeouts', 'The nginx ingress proxy-read-timeout annotation defaults to 60 seconds; long uploads need more.'],
  ['redis', 'Redis eviction policy for caches', 'Use allkeys-lru for pure caches; volatile-lru only evicts keys that carry a TTL.'],
  ['terraform', 'Terraform state locking', 'The S3 backend locks state through a DynamoDB table keyed on LockID.'],
  ['flamegraph', 'Flamegraph profiling with perf', 'perf record -F 99 -g, then stackcollapse-perf and flamegraph.pl to draw it.'],
];

/** Creates the data repo through the CLI: one kernel entry banning "leverage", and five notes on different topics. */
export async function seedDataRepo(sb: Sandbox): Promise<Seeded> {
  const init = await kb(sb, ['--data', sb.data, 'init']);
  expect(init.code, init.stderr).toBe(0);
  const kernel = await addKernel(sb, { title: 'House style', body: KERNEL_BODY, rules: [BANNED] });
  const notes: Record<string, string> = {};
  for (const [word, title, body] of NOTES) {
    const r = await kb(sb, ['--data', sb.data, 'add', '--type', 'lesson_learned', '--title', title, '--tags', word, '--', body]);
    expect(r.code, r.stderr).toBe(0);
    notes[word] = r.stdout.trim();
  }
  return { kernel, notes };
}

/** The prompt that matches the postgres note. */
export const POSTGRES_PROMPT = 'How should I tune postgres autovacuum for a table with large row counts?';

// ---- the plugin as a marketplace ----

/** This checkout's files as git would commit them (tracked plus new unignored ones), dist/ included. */
export async function checkoutFiles(): Promise<string[]> {
  const out = await git(ROOT, ['ls-files', '-z', '--cached', '--others', '--exclude-standard']);
  return [...new Set(out.split('\0').filter(Boolean))].filter((f) => fs.existsSync(path.join(ROOT, f)) && fs.statSync(path.join(ROOT, f)).isFile()).sort();
}

/** A git work tree holding a copy of this checkout's files, committed once. */
export async function snapshotRepo(dir: string, env: NodeJS.ProcessEnv): Promise<string> {
  fs.mkdirSync(dir, { recursive: true });
  for (const f of await checkoutFiles()) {
    const to = path.join(dir, f);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), to);
    fs.chmodSync(to, fs.statSync(path.join(ROOT, f)).mode);
  }
  await git(dir, ['init', '-q', '-b', 'main'], env);
  await git(dir, ['add', '-A'], env);
  await git(dir, ['commit', '-q', '-m', 'git-kb snapshot'], env);
  return dir;
}

/** Publishes this checkout as bare repo `name` of `server`; returns the work tree and the URL. */
export async function publishPlugin(server: GitServer, sb: Sandbox, name = 'git-kb'): Promise<{ work: string; url: string }> {
  server.createBare(name);
  const work = await snapshotRepo(path.join(sb.root, `${name}-work`), sb.env);
  const url = server.repoUrl(name);
  await git(work, ['push', '-q', url, 'main'], sb.env);
  return { work, url };
}

/** `claude plugin marketplace add URL`, then `claude plugin install git-kb@git-kb`. */
export async function installPlugin(sb: ClaudeSandbox, url: string): Promise<void> {
  const add = await claude(sb, ['plugin', 'marketplace', 'add', url]);
  expect(add.code, add.stdout + add.stderr).toBe(0);
  const install = await claude(sb, ['plugin', 'install', PLUGIN]);
  expect(install.code, install.stdout + install.stderr).toBe(0);
}

/** The installed copy's record in installed_plugins.json. */
export function installed(sb: Sandbox): { installPath: string; version: string; gitCommitSha?: string } {
  const file = path.join(sb.home, '.claude', 'plugins', 'installed_plugins.json');
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { plugins: Record<string, Array<{ installPath: string; version: string; gitCommitSha?: string }>> };
  return data.plugins[PLUGIN]![0]!;
}

/** A stand-in model API with an empty script. */
export async function startStandIn(): Promise<ModelApi> {
  return startModelApi([]);
}

/** A stand-in model API, a sandbox with seeded data and the plugin installed from a marketplace over git HTTP. */
export interface Rig {
  api: ModelApi;
  server: GitServer;
  sb: ClaudeSandbox;
  seeded: Seeded;
  repo: { work: string; url: string };
  stop(): Promise<void>;
}

export async function installedRig(prefix: string): Promise<Rig> {
  const api = await startStandIn();
  const server = await startGitServer();
  const sb = makeClaudeSandbox(api, prefix);
  const seeded = await seedDataRepo(sb);
  const repo = await publishPlugin(server, sb);
  await installPlugin(sb, repo.url);
  return {
    api,
    server,
    sb,
    seeded,
    repo,
    stop: async () => {
      await api.stop();
      await server.stop();
      await removeSandbox(sb);
    },
  };
}

/**
 * The UserPromptSubmit hook contexts a request shows the model, oldest first: each from its
 * "UserPromptSubmit hook additional context:" to the next one or the end of its text block (Claude Code 2.1.328
 * puts it in a system message, after the environment facts and before the date).
 */
export function contextsOf(req: ModelRequest): string[] {
  return textsOf(req).flatMap((t) => t.split(HOOK_CONTEXT).slice(1).map((part) => `${HOOK_CONTEXT}${part}`));
}

/** Processes (other than this one) whose command line names `dir`: hooks and their detached workers. */
export function processesIn(dir: string): string[] {
  const out: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(dir)) out.push(`${pid} ${cmd}`);
    } catch {
      /* gone */
    }
  }
  return out;
}

/**
 * Removes a sandbox once nothing runs in it: SessionEnd hands its last write to a detached worker, which may
 * still be at work when `claude` has exited. Fails the test if something is still running after `ms`.
 */
export async function removeSandbox(sb: Sandbox | undefined, ms = 15_000): Promise<void> {
  if (!sb) return;
  const left = await waitFor(() => (processesIn(sb.root).length === 0 ? true : undefined), ms);
  const stragglers = processesIn(sb.root);
  fs.rmSync(sb.root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  expect(left && stragglers, `still running in ${sb.root}`).toEqual([]);
}

/** Polls `check` every 100 ms until it returns a value other than undefined, or `ms` pass. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, ms = 10_000): Promise<T | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { makeSandbox };
