/**
 * An id held by a second file whose name carries no id (`cp entries/<id>-use-pnpm.md entries/copy.md`, as an
 * Obsidian "duplicate note" or a shell copy makes it) is a duplicate like any other: the file claims the id of its
 * front matter (spec/entry-format.md, "Ids"). lint reports id-duplicate on both files (and file-name on the copy),
 * get and edit refuse with CONFLICT (4), status counts the problems; the caches made before the copy (id map,
 * summary, lint state) do not hide it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, expectUnchanged, initRepo, jsonError, kbd, kbj, snapshot, type Added } from './support.js';

let sb: Sandbox;
let e: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  e = await addEntry(sb, { type: 'decision', title: 'Use pnpm', body: 'We use pnpm.' });
  // Every cache made while the id had one file: the id map (get), the summary (status), the lint state.
  expect((await kbd(sb, ['get', e.id])).code).toBe(0);
  expect((await kbj(sb, ['status'])).problems).toBe(0);
  expect((await kbd(sb, ['lint'])).code).toBe(0);
});
afterAll(() => sb.cleanup());

interface Problem {
  rule: string;
  file: string;
  line: number;
  id?: string;
}

describe('a copy named without its id', () => {
  it('is an id duplicate for lint, get, edit and status, whatever the copy is called', async () => {
    for (const name of ['copy.md', 'Use pnpm.md']) {
      const copy = `entries/${name}`;
      fs.copyFileSync(path.join(sb.data, e.path), path.join(sb.data, copy));
      for (const all of [[], ['--all']]) {
        const r = await kbd(sb, ['lint', '--json', ...all]);
        expect(r.code).toBe(5);
        const problems = JSON.parse(r.stdout).problems as Problem[];
        expect(problems).toContainEqual(expect.objectContaining({ rule: 'file-name', file: copy }));
        expect(problems.filter((p) => p.rule === 'id-duplicate').map((p) => [p.file, p.id]).sort()).toEqual([[copy, e.id], [e.path, e.id]].sort());
      }
      const text = await kbd(sb, ['lint']);
      expect(text.stdout).toContain(`${e.path}:2: id ${e.id} is claimed by 2 files: ${[copy, e.path].sort().join(', ')} [id-duplicate]`);
      const before = await snapshot(sb);
      for (const args of [['get', e.id], ['edit', e.id, '--append', 'more']]) {
        const g = await kbd(sb, ['--json', ...args]);
        expect(g.code, args.join(' ')).toBe(4);
        expect(jsonError(g)).toMatchObject({ code: 'CONFLICT' });
        expect(jsonError(g).message).toContain(`id ${e.id} is claimed by 2 files`);
      }
      await expectUnchanged(sb, before);
      expect((await kbj(sb, ['status'])).problems).toBeGreaterThanOrEqual(3);
      fs.rmSync(path.join(sb.data, copy));
      expect((await kbd(sb, ['lint'])).code).toBe(0);
      expect((await kbd(sb, ['get', e.id])).code).toBe(0);
    }
  });

  it('a copy whose front matter quotes the id, or holds another id, claims that id', async () => {
    const text = fs.readFileSync(path.join(sb.data, e.path), 'utf8');
    fs.writeFileSync(path.join(sb.data, 'entries/quoted.md'), text.replace(`id: ${e.id}`, `id: "${e.id}"`));
    expect((await kbd(sb, ['get', e.id])).code).toBe(4);
    fs.writeFileSync(path.join(sb.data, 'entries/quoted.md'), text.replace(`id: ${e.id}`, 'id: kb-0042'));
    expect((await kbd(sb, ['get', e.id])).code).toBe(0);
    const problems = JSON.parse((await kbd(sb, ['lint', '--json'])).stdout).problems as Problem[];
    expect(problems.map((p) => p.rule)).toEqual(['file-name']);
    fs.rmSync(path.join(sb.data, 'entries/quoted.md'));
  });
});
