/**
 * A data repo whose cache folder cannot be written (spec/hooks.md, "Rebuilds": an index that cannot be saved
 * answers from memory). The hooks run as Claude Code runs them (the exact commands of hooks/hooks.json). Tests
 * run as root, whom no permission stops, so the cache is made unwritable by its shape: `.git/git-kb` a regular
 * file (every write under it fails with ENOTDIR, as a read-only repo's fail with EACCES or EROFS), or the index
 * file's path a folder (the side file and the temporary file are written, the index is not). The repo holds a
 * session summary, whose side file is the first write of a rebuild: a failing one used to throw, and the gate
 * then allowed everything. The gate still denies, the prompt hook still points, and nothing is left behind.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addKernel, parseDeny, pathWith, payload as gatePayload, runGate } from '../gate/support.js';
import { contextOf, payload as promptPayload, runPromptHook } from './prompt-support.js';

let sb: Sandbox;
let kernelId: string;
let noteId: string;
let project: string;
let env: NodeJS.ProcessEnv;

const SUMMARY = (cwd: string): string =>
  `---\nid: kb-s00001\ntitle: "Session on the cache"\ntype: session_summary\ntags: []\ncreated: 2026-05-01T09:00:00.000Z\nupdated: 2026-05-01T09:20:00.000Z\nsession_id: sess-1\ncwd: ${cwd}\nstarted: 2026-05-01T09:00:00.000Z\nended: 2026-05-01T09:20:00.000Z\nturns: 3\n---\n\nWorked on the cache.\n`;

beforeAll(async () => {
  sb = makeSandbox('gkb-unwritable-');
  project = path.join(sb.root, 'project');
  fs.mkdirSync(project, { recursive: true });
  kernelId = (await addKernel(sb, { title: 'House style', body: 'Plain words only.', rules: [{ pattern: '\\bleverag(e|es|ed|ing)\\b', message: 'Say "use", not "leverage".' }] })).id;
  const r = await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Redis eviction policy', '--json', '--', 'Use allkeys-lru for the redis cache eviction.']);
  expect(r.code, r.stderr).toBe(0);
  noteId = (JSON.parse(r.stdout) as { id: string }).id;
  fs.mkdirSync(path.join(sb.data, 'sessions', '2026', '05'), { recursive: true });
  fs.writeFileSync(path.join(sb.data, 'sessions', '2026', '05', 'kb-s00001-session-on-the-cache.md'), SUMMARY(project));
  await git(sb.data, ['add', '-A'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', 'a session summary'], sb.env);
  env = { PATH: pathWith(undefined, sb) }; // no claude: layer 1 only
});
afterAll(() => sb.cleanup());

const cacheDir = (): string => path.join(sb.data, '.git', 'git-kb');

/** Every path under the data repo (its .git included) with its size: what a hook run may not change. */
function snapshot(): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const d of fs.readdirSync(path.join(sb.data, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        out.push(`${p}/`);
        walk(p);
      } else out.push(`${p} ${fs.statSync(path.join(sb.data, p)).size}`);
    }
  };
  walk('');
  return out.sort();
}

async function expectDeny(): Promise<void> {
  const write = await runGate(sb, gatePayload('Write', { file_path: path.join(project, 'README.md'), content: '# Tool\n\nWe leverage a small cache.\n' }, project), env);
  expect(write.code).toBe(0);
  expect(write.stderr).toBe('');
  expect(parseDeny(write).hookSpecificOutput.permissionDecisionReason).toContain(`"leverage" breaks rule 1 of ${kernelId} (House style)`);
  const commit = await runGate(sb, gatePayload('Bash', { command: 'git commit -m "Leveraging the cache"' }, project), env);
  expect(parseDeny(commit).hookSpecificOutput.permissionDecisionReason).toContain('"Leveraging" breaks rule 1');
}

async function expectPointers(): Promise<void> {
  const context = contextOf(await runPromptHook(sb, promptPayload('how should the redis cache eviction be configured?', 'session-ro', { cwd: project })));
  expect(context).toContain(`Kernel entry ${kernelId} — House style`);
  expect(context).toContain(`- ${noteId} — Redis eviction policy`);
}

describe('a cache folder that cannot be written', () => {
  it('is a regular file: the gate still denies by the kernel rules, the prompt hook still points, nothing is written', async () => {
    fs.rmSync(cacheDir(), { recursive: true, force: true });
    fs.writeFileSync(cacheDir(), 'not a folder\n');
    const before = snapshot();
    await expectDeny();
    await expectPointers();
    expect(snapshot()).toEqual(before);
    expect(fs.readFileSync(cacheDir(), 'utf8')).toBe('not a folder\n');
    fs.rmSync(cacheDir());
  });

  it('holds a folder where the index file goes: the gate still denies, and no side file or temporary file is left', async () => {
    fs.rmSync(cacheDir(), { recursive: true, force: true });
    const prompt = path.join(cacheDir(), 'prompt');
    fs.mkdirSync(path.join(prompt, 'index.v1'), { recursive: true });
    await expectDeny();
    await expectPointers();
    // NOTE: the side file of the recent sessions was written before the index failed to be: it goes with it.
    expect(fs.readdirSync(prompt).filter((f) => f !== 'ledger')).toEqual(['index.v1']);
    expect(fs.readdirSync(path.join(prompt, 'index.v1'))).toEqual([]);
    fs.rmSync(cacheDir(), { recursive: true, force: true });
  });

  it('once writable again, the index is saved with its side file (the control)', async () => {
    fs.rmSync(cacheDir(), { recursive: true, force: true });
    await expectDeny();
    const names = fs.readdirSync(path.join(cacheDir(), 'prompt'));
    expect(names).toContain('index.v1');
    expect(names.filter((f) => /^recent-[0-9a-f]+\.bin$/.test(f))).toHaveLength(1);
  });
});
