/**
 * Shared steps for the CLI tests: create a data repo, add entries, hand-write files and commit them with the
 * real git, and check that a failed command wrote nothing. Everything runs as processes in a sandbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { git, kb, type RunResult, type Sandbox } from '../helpers/cli.js';

/** The result of `add --json`. */
export interface Added {
  id: string;
  path: string;
  commit: string;
}

/** Creates the sandbox's data repo with `git-kb init`. */
export async function initRepo(sb: Sandbox): Promise<void> {
  await kbj(sb, ['init']);
}

/** Adds an entry through the CLI (flags as given; `body` as the positional argument, the title when not given: add needs one). */
export async function addEntry(
  sb: Sandbox,
  o: { type?: string; title: string; body?: string; tags?: string; links?: string[]; url?: string; extra?: string[] },
): Promise<Added> {
  const args = ['add', '--type', o.type ?? 'factual_reference', '--title', o.title];
  if (o.tags) args.push('--tags', o.tags);
  for (const l of o.links ?? []) args.push('--link', l);
  if (o.url) args.push('--url', o.url);
  args.push(...(o.extra ?? []));
  args.push('--', o.body ?? `About ${o.title}.`);
  return kbj<Added>(sb, args);
}

/** The real git in the sandbox's env (identity set, no system config). */
export function sgit(sb: Sandbox, args: string[], cwd = sb.data): Promise<string> {
  return git(cwd, args, sb.env);
}

/** HEAD's commit id, by the real git. */
export async function headOf(sb: Sandbox, dir = sb.data): Promise<string> {
  return (await sgit(sb, ['rev-parse', 'HEAD'], dir)).trim();
}

/** The number of commits reachable from HEAD. */
export async function commitCount(sb: Sandbox, dir = sb.data): Promise<number> {
  return Number((await sgit(sb, ['rev-list', '--count', 'HEAD'], dir)).trim());
}

/** Subjects of the commits from HEAD, newest first. */
export async function subjects(sb: Sandbox, dir = sb.data): Promise<string[]> {
  return (await sgit(sb, ['log', '--format=%s'], dir)).trim().split('\n');
}

/** Paths under entries/ (or another folder) in HEAD, by `git ls-tree`. */
export async function treePaths(sb: Sandbox, folder = 'entries', dir = sb.data): Promise<string[]> {
  const out = (await sgit(sb, ['ls-tree', '-r', '--name-only', 'HEAD', folder], dir)).trim();
  return out ? out.split('\n') : [];
}

/** Formats a front matter block by hand (YAML written out, as a person would), then the body. */
export function entryText(fields: Record<string, string | string[] | undefined>, body = ''): string {
  const lines = ['---'];
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) lines.push(`${k}: [${v.join(', ')}]`);
    else lines.push(`${k}: ${v}`);
  }
  lines.push('---', '', body, '');
  return lines.join('\n');
}

/** Writes a file into the data repo (creating folders). */
/**
 * Puts the data repo's folders' mtimes a minute back, as if the last file was made a while ago: state listed from
 * folders that changed just now is recorded with a key that never matches (fresh.ts, SETTLED_MS), and rewritten
 * by the next command, which a test of "reused while nothing changed" must not race.
 */
export function settleFolders(sb: Sandbox): void {
  const past = new Date(Date.now() - 60_000);
  const walk = (dir: string): void => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!d.isDirectory() || d.name === '.git') continue;
      walk(path.join(dir, d.name));
      fs.utimesSync(path.join(dir, d.name), past, past);
    }
  };
  walk(sb.data);
  fs.utimesSync(sb.data, past, past);
}

export function writeFile(sb: Sandbox, rel: string, content: string | Buffer): string {
  const abs = path.join(sb.data, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
  return abs;
}

/** `git add -A && git commit` with the real git, as a person editing by hand would. */
export async function commitAll(sb: Sandbox, message: string, dir = sb.data): Promise<string> {
  await sgit(sb, ['add', '-A'], dir);
  await sgit(sb, ['commit', '-q', '-m', message], dir);
  return headOf(sb, dir);
}

/** A snapshot of what a failing command must leave alone: HEAD, the work tree status, the entry files. */
export interface Snapshot {
  head: string;
  status: string;
  files: string[];
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${path.relative(root, p)}:${fs.statSync(p).size}`);
    }
  };
  walk(root);
  return out.sort();
}

/** Takes a snapshot of the data repo. */
export async function snapshot(sb: Sandbox, dir = sb.data): Promise<Snapshot> {
  const [head, status] = await Promise.all([headOf(sb, dir), sgit(sb, ['status', '--porcelain'], dir)]);
  return { head, status, files: listFiles(dir) };
}

/** Asserts that nothing was written since `before`: same HEAD, same status, same files. */
export async function expectUnchanged(sb: Sandbox, before: Snapshot, dir = sb.data): Promise<void> {
  const after = await snapshot(sb, dir);
  expect(after.head).toBe(before.head);
  expect(after.status).toBe(before.status);
  expect(after.files).toEqual(before.files);
}

/** The parsed `{"error":{...}}` a --json failure prints on stderr. */
export function jsonError(r: RunResult): { code: string; message: string; data?: Record<string, unknown> } {
  expect(r.stdout).toBe('');
  const parsed = JSON.parse(r.stderr) as { error: { code: string; message: string; data?: Record<string, unknown> } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(typeof parsed.error.code).toBe('string');
  expect(typeof parsed.error.message).toBe('string');
  return parsed.error;
}

/** Runs `git-kb --data <sandbox data> ARGS` (human output). */
export function kbd(sb: Sandbox, args: string[], options: { input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  return kb(sb, ['--data', sb.data, ...args], options);
}

/** Like kbJson, but puts --json before the verb so it never lands after a `--` (where it would be body text). */
export async function kbj<T = any>(sb: Sandbox, args: string[], options: { input?: string; data?: string } = {}): Promise<T> {
  const r = await kb(sb, ['--data', options.data ?? sb.data, '--json', ...args], { input: options.input });
  if (r.code !== 0) throw new Error(`git-kb ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** Runs async work over items with at most `n` at a time, keeping the order of results. */
export async function pool<T, R>(items: T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}
