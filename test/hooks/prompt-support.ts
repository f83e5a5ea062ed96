/**
 * Shared steps for the prompt-hook tests: the exact command of hooks/hooks.json run through `sh -c` with JSON on
 * stdin (as Claude Code runs it), data repos written as plain files and committed with the real git (fast), and
 * readers for the hook's output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { git, ROOT, run, type RunResult, type Sandbox } from '../helpers/cli.js';

/** The command hooks/hooks.json wires for an event, with ${CLAUDE_PLUGIN_ROOT} replaced by this checkout. */
export function hookCommand(event = 'UserPromptSubmit'): string {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  return config.hooks[event]![0]!.hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
}

/** Runs the UserPromptSubmit command as Claude Code does: `sh -c COMMAND`, the payload as JSON on stdin. */
export function runPromptHook(sb: Sandbox, payload: unknown, options: { raw?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  const input = options.raw !== undefined ? options.raw : JSON.stringify(payload);
  return run('sh', ['-c', hookCommand()], { env: { ...sb.env, GIT_KB_DATA: sb.data, ...options.env }, input, timeoutMs: 20_000 });
}

/** A UserPromptSubmit payload. */
export function payload(prompt: unknown, session: unknown = 'session-a', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { session_id: session, transcript_path: '/nonexistent/transcript.jsonl', cwd: '/tmp', hook_event_name: 'UserPromptSubmit', prompt, ...extra };
}

/** The additionalContext of a hook's stdout (undefined for no output); fails on anything but the contract. */
export function contextOf(r: RunResult): string | undefined {
  expect(r.code).toBe(0);
  if (r.stdout === '') return undefined;
  expect(r.stdout.length).toBeLessThanOrEqual(9000);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  expect(Object.keys(out)).toEqual(['hookSpecificOutput']);
  expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
  expect(typeof out.hookSpecificOutput.additionalContext).toBe('string');
  return out.hookSpecificOutput.additionalContext;
}

/** The ids on pointer lines (`- <id> — <title>`) of a context. */
export function pointerIds(context: string | undefined): string[] {
  return [...(context ?? '').matchAll(/^- (kb-[0-9a-z]+) — /gm)].map((m) => m[1]!);
}

/** An entry to write by hand. */
export interface TestEntry {
  id: string;
  title: string;
  tags?: string[];
  body?: string;
  kernel?: boolean;
  appliesTo?: string[];
  aliases?: string[];
  type?: string;
  host?: string;
  created?: string;
}

/** The text of an entry file. */
export function entryText(e: TestEntry): string {
  const lines = ['---', `id: ${e.id}`, `title: ${JSON.stringify(e.title)}`, `type: ${e.type ?? 'factual_reference'}`, 'tags:'];
  for (const t of e.tags ?? []) lines.push(`  - ${t}`);
  if (e.aliases?.length) lines.push('aliases:', ...e.aliases.map((a) => `  - ${JSON.stringify(a)}`));
  if (e.host) lines.push(`host: ${e.host}`);
  if (e.appliesTo?.length) lines.push('applies_to:', ...e.appliesTo.map((a) => `  - ${a}`));
  if (e.kernel) lines.push('kernel: true');
  const stamp = e.created ?? '2026-01-01T00:00:00Z';
  lines.push(`created: ${stamp}`, `updated: ${stamp}`, '---', '', e.body ?? `Body of ${e.title}.`, '');
  return lines.join('\n');
}

/** The path of an entry file relative to the data repo. */
export function entryRel(e: TestEntry): string {
  const slug = e.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 40) || 'entry';
  return e.host ? `hosts/${e.host}/${e.id}-${slug}.md` : `entries/${e.id}-${slug}.md`;
}

/** Writes entry files (no commit). */
export function writeEntries(dir: string, entries: TestEntry[]): string[] {
  return entries.map((e) => {
    const rel = entryRel(e);
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), entryText(e));
    return rel;
  });
}

/** Commits everything in the work tree with the real git. */
export async function commitAll(sb: Sandbox, message = 'test data'): Promise<void> {
  await git(sb.data, ['add', '-A'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', message], sb.env);
}

/** Creates a data repo with the given entries in one commit, by plain git. */
export async function makeRepo(sb: Sandbox, entries: TestEntry[]): Promise<void> {
  fs.mkdirSync(sb.data, { recursive: true });
  await git(sb.data, ['init', '-q', '-b', 'main'], sb.env);
  fs.writeFileSync(path.join(sb.data, 'kb.json'), '{\n  "schema_version": 2\n}\n');
  writeEntries(sb.data, entries);
  await commitAll(sb, 'initial data');
}

/** An id for test entry number `n` (valid, distinct, stable). */
export function tid(n: number): string {
  return `kb-t${n.toString(36).padStart(5, '0')}`;
}
