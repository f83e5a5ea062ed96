/**
 * An entry whose `type` a hand edit broke (`type: lesson`, `type: Decision`) is served as factual_reference, but
 * every output that shows its type shows it as written and marked (spec/cli.md, "Entries of an unknown type"):
 * `list` (text, --json and the stderr warning, also under `--type`), `get`, `search --json`, the MCP `list` tool;
 * `lint` names the file and line and the nearest known type, and `edit --type` fixes it. Real data repos, the
 * real CLI, caches warm and cold.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitAll, entryText, initRepo, kbd, kbj, writeFile } from './support.js';

let sb: Sandbox;
let lessonId: string;
let lessonPath: string;
const DECISION = 'entries/kb-0002-use-pnpm.md';

/** Replaces the `type:` line of a file in the data repo, by hand (no git-kb involved). */
function setType(rel: string, type: string): void {
  const file = path.join(sb.data, rel);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^type: .*$/m, `type: ${type}`));
}

beforeAll(async () => {
  sb = makeSandbox('gkb-type-');
  await initRepo(sb);
  const added = await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'Retry flaky tests once', '--tags', 'ci', 'A flaky integration test gets one retry, never more.']);
  lessonId = added.id;
  lessonPath = added.path;
  writeFile(sb, DECISION, entryText({ id: 'kb-0002', title: 'Use pnpm', type: 'decision', created: '2021-01-01', updated: '2021-01-01' }, 'We use pnpm for every package.'));
  await commitAll(sb, 'a decision by hand');
  await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'Pin node in CI', 'Pin the node version in CI.']);
  // Warm every cache with the types still right, so the hand edits below are seen through them.
  expect((await kbj(sb, ['list'])).entries).toHaveLength(3);
  await kbj(sb, ['search', 'flaky']);
  setType(lessonPath, 'lesson');
  setType(DECISION, 'Decision');
});
afterAll(() => sb.cleanup());

describe('an entry of an unknown type', () => {
  it('list --json keeps type as served (factual_reference) and adds type_written; type_unknown names each', async () => {
    const j = await kbj(sb, ['list']);
    const lesson = j.entries.find((e: { id: string }) => e.id === lessonId);
    expect(lesson).toMatchObject({ id: lessonId, type: 'factual_reference', type_written: 'lesson', path: lessonPath });
    expect(j.entries.find((e: { id: string }) => e.id === 'kb-0002')).toMatchObject({ type: 'factual_reference', type_written: 'Decision' });
    const known = j.entries.find((e: { title: string }) => e.title === 'Pin node in CI');
    expect(known.type).toBe('lesson_learned');
    expect(known).not.toHaveProperty('type_written');
    expect(j.type_unknown).toEqual([
      { id: 'kb-0002', path: DECISION, type_written: 'Decision' },
      { id: lessonId, path: lessonPath, type_written: 'lesson' },
    ].sort((a, b) => (a.path < b.path ? -1 : 1)));
    const quiet = await kbd(sb, ['--json', 'list']);
    expect(quiet.stderr).toBe('');
  });

  it('list shows the type as written, marked, and warns on stderr with the nearest known type', async () => {
    const r = await kbd(sb, ['list']);
    expect(r.code).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.startsWith(lessonId))!;
    expect(line).toMatch(/ {2}lesson \(unknown type\) +Retry flaky tests once$/);
    expect(r.stdout).not.toContain('factual_reference');
    expect(r.stderr).toContain('2 entries have a type git-kb does not know');
    expect(r.stderr).toContain(`${lessonId} ("lesson": lesson_learned?)`);
    expect(r.stderr).toContain('kb-0002 ("Decision": decision?)');
    expect(r.stderr).toContain('git-kb lint');
  });

  it('list --type lesson_learned leaves it out (it is served as factual_reference) but says so', async () => {
    const r = await kbd(sb, ['list', '--type', 'lesson_learned']);
    expect(r.stdout).toMatch(/Pin node in CI/);
    expect(r.stdout).not.toContain(lessonId);
    expect(r.stderr).toContain(`${lessonId} ("lesson": lesson_learned?)`);
    const j = await kbj(sb, ['list', '--type', 'lesson_learned']);
    expect(j.entries.map((e: { title: string }) => e.title)).toEqual(['Pin node in CI']);
    expect(j.type_unknown.map((u: { id: string }) => u.id)).toContain(lessonId);
    const asServed = await kbj(sb, ['list', '--type', 'factual_reference']);
    expect(asServed.entries.map((e: { id: string }) => e.id).sort()).toEqual(['kb-0002', lessonId].sort());
  });

  it('get prints the file as written and warns; get --json carries type_written', async () => {
    const r = await kbd(sb, ['get', lessonId]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('type: lesson\n');
    expect(r.stderr).toContain(`${lessonPath}: type "lesson" is not a type git-kb knows`);
    expect(r.stderr).toContain(`git-kb edit ${lessonId} --type lesson_learned`);
    const j = await kbj(sb, ['get', lessonId, 'kb-0002']);
    expect(j.entries[0]).toMatchObject({ id: lessonId, type_written: 'lesson' });
    expect(j.entries[1]).toMatchObject({ id: 'kb-0002', type_written: 'Decision' });
  });

  it('search --json hits carry type_written', async () => {
    const j = await kbj(sb, ['search', 'flaky']);
    expect(j.results[0]).toMatchObject({ id: lessonId, type: 'factual_reference', type_written: 'lesson' });
  });

  it('lint names file:line and the nearest known type with the edit that sets it', async () => {
    const r = await kbd(sb, ['lint']);
    expect(r.code).toBe(5);
    expect(r.stdout).toContain(`${lessonPath}:4: unknown type "lesson"`);
    expect(r.stdout).toContain(`did you mean lesson_learned? "git-kb edit ${lessonId} --type lesson_learned" sets it`);
    expect(r.stdout).toMatch(/entries\/kb-0002-use-pnpm\.md:4: unknown type "Decision".*did you mean decision\?/);
  });

  it('the MCP list tool carries type_written and type_unknown', async () => {
    const env = Object.fromEntries(Object.entries(sb.env).filter((e): e is [string, string] => typeof e[1] === 'string'));
    const client = new Client({ name: 'git-kb-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--data', sb.data], env, stderr: 'pipe' }));
    try {
      const r = (await client.callTool({ name: 'list', arguments: { type: 'lesson_learned' } })) as { isError?: boolean; structuredContent?: Record<string, any> };
      expect(r.isError, JSON.stringify(r)).toBeFalsy();
      expect(r.structuredContent!.entries.map((e: { id: string }) => e.id)).not.toContain(lessonId);
      expect(r.structuredContent!.type_unknown.map((u: { id: string }) => u.id)).toContain(lessonId);
      const all = (await client.callTool({ name: 'list', arguments: {} })) as { structuredContent?: Record<string, any> };
      expect(all.structuredContent!.entries.find((e: { id: string }) => e.id === lessonId)).toMatchObject({ type: 'factual_reference', type_written: 'lesson' });
    } finally {
      await client.close();
    }
  }, 30_000);

  it('edit --type sets a known type, and every output is plain again', async () => {
    await kbj(sb, ['edit', lessonId, '--type', 'lesson_learned']);
    await kbj(sb, ['edit', 'kb-0002', '--type', 'decision']);
    const j = await kbj(sb, ['list']);
    expect(j).not.toHaveProperty('type_unknown');
    expect(j.entries.find((e: { id: string }) => e.id === lessonId)).toMatchObject({ type: 'lesson_learned' });
    expect(j.entries.some((e: { type_written?: string }) => 'type_written' in e)).toBe(false);
    const r = await kbd(sb, ['list', '--type', 'lesson_learned']);
    expect(r.stdout).toContain(lessonId);
    expect(r.stderr).toBe('');
    expect((await kbd(sb, ['lint'])).code).toBe(0);
    expect((await kbj(sb, ['search', 'flaky'])).results[0]).not.toHaveProperty('type_written');
  });
});
