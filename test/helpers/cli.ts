/**
 * Test helpers that touch real things: a temporary HOME per test (so nothing reads or writes the real one),
 * the CLI and the hook entry run as processes from dist/, and the real git CLI.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const CLI = path.join(ROOT, 'bin', 'git-kb');
export const HOOK = path.join(ROOT, 'bin', 'git-kb-hook');

/** A sandbox: a temp HOME with XDG and plugin dirs inside it, and the env to run processes in. */
export interface Sandbox {
  root: string;
  home: string;
  /** A data repo path inside the sandbox (not created). */
  data: string;
  env: NodeJS.ProcessEnv;
  cleanup(): void;
}

/** Creates a sandbox; the env drops every variable that could point git-kb or git elsewhere. */
export function makeSandbox(prefix = 'gkb-'): Sandbox {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(root, 'home');
  fs.mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(GIT_|KB_|CLAUDE_|XDG_)/.test(k) || k === 'NO_COLOR' || k === 'FORCE_COLOR') continue;
    env[k] = v;
  }
  Object.assign(env, {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    TMPDIR: path.join(root, 'tmp'),
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test Author',
    GIT_COMMITTER_EMAIL: 'test@example.com',
    GIT_CONFIG_NOSYSTEM: '1',
  });
  fs.mkdirSync(env.TMPDIR!, { recursive: true });
  return { root, home, data: path.join(root, 'data'), env, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs a command as a process with optional stdin (always closed, so nothing waits on it). */
export function run(cmd: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string | Buffer; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(cmd, args, { env: options.env ?? process.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), ms: Date.now() - started });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Runs `git-kb ARGS` as a process in the sandbox. */
export function kb(sb: Sandbox, args: string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return run(process.execPath, [CLI, ...args], { env: { ...sb.env, ...options.env }, input: options.input, cwd: options.cwd ?? sb.root });
}

/** Runs `git-kb --data <sandbox data> ARGS --json` and parses stdout (throws with stderr on failure). */
export async function kbJson<T = any>(sb: Sandbox, args: string[], options: { input?: string } = {}): Promise<T> {
  const r = await kb(sb, ['--data', sb.data, ...args, '--json'], options);
  if (r.code !== 0) throw new Error(`git-kb ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Runs the hook entry for EVENT with a JSON payload on stdin, as Claude Code does. */
export function hook(sb: Sandbox, event: string, payload: unknown, options: { env?: NodeJS.ProcessEnv; raw?: string | Buffer } = {}): Promise<RunResult> {
  const input = options.raw !== undefined ? options.raw : JSON.stringify(payload);
  return run(process.execPath, [HOOK, event], { env: { ...sb.env, ...options.env }, input });
}

/** Runs the real git CLI and returns stdout (throws on a non-zero exit). */
export function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, env: env ?? { ...process.env, GIT_CONFIG_NOSYSTEM: '1' }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

/**
 * Asserts-by-throwing that the repo is clean: `git fsck --strict` passes with nothing on stderr either (a "bad
 * sha1 file" is only a warning there, exit 0), and `git status --porcelain` is empty.
 */
export async function expectCleanRepo(dir: string): Promise<void> {
  const fsck = await new Promise<string>((resolve, reject) => {
    execFile('git', ['fsck', '--strict', '--no-progress', '--no-dangling'], { cwd: dir, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git fsck --strict failed in ${dir}: ${stderr || error.message}`));
      else resolve(`${stdout}${stderr}`.trim());
    });
  });
  if (/bad sha1 file|error|warning/i.test(fsck)) throw new Error(`git fsck --strict in ${dir} reported:\n${fsck}`);
  const status = await git(dir, ['status', '--porcelain']);
  if (status.trim()) throw new Error(`git status not clean in ${dir}:\n${status}`);
}

/**
 * True when `pid` is a live process. A zombie (killed, its parent dead, not yet reaped, which a container's first
 * process may never do) runs nothing, so it is not.
 */
export function processRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ...", where comm may hold spaces and parentheses
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}
