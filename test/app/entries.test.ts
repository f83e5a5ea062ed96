/**
 * The entry use cases called in process (no build, no child process): options and Settings in, plain data out.
 * Each runs against a temp data repo that the settings point at, and the real git CLI checks what they committed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings, type Settings } from '../../src/adapters/config/settings.js';
import { addEntry } from '../../src/app/add.js';
import { editEntry } from '../../src/app/edit.js';
import { getEntries } from '../../src/app/get.js';
import { lintRepo } from '../../src/app/lint.js';
import { listEntries } from '../../src/app/list.js';
import { repoStatus } from '../../src/app/status.js';
import { isKbError } from '../../src/core/errors.js';
import { expectCleanRepo, git, makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
let settings: Settings;
const NOW = new Date('2026-03-02T09:14:07Z');

beforeEach(() => {
  sb = makeSandbox('gkb-app-');
  // The data repo comes from the settings (as GIT_KB_DATA would name it), never from this process's env.
  settings = readSettings({ ...sb.env, GIT_KB_DATA: sb.data });
});
afterEach(() => sb.cleanup());

const log = async (): Promise<string[]> => (await git(sb.data, ['log', '--format=%s'], sb.env)).trim().split('\n');

describe('add, edit, get, list', () => {
  it('add creates the data repo the settings name and commits one entry; get and list read it back', async () => {
    const a = await addEntry({ settings, type: 'decision', title: 'Squash merge only', body: 'Keep main linear.', tags: 'git, merge', now: NOW });
    expect(a).toEqual({ id: expect.stringMatching(/^kb-/), path: `entries/${a.id}-squash-merge-only.md`, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    await expectCleanRepo(sb.data);
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(a.commit);
    expect((await log())[0]).toBe(`add ${a.id}: Squash merge only`);
    const [got] = await getEntries({ settings, ids: [a.id] });
    expect(got!.text).toBe(fs.readFileSync(path.join(sb.data, a.path), 'utf8'));
    expect(got!.text).toContain('tags: [git, merge]\n');
    expect(await listEntries({ settings })).toEqual({ unreadable: [], unknownTypes: [], entries: [{ id: a.id, title: 'Squash merge only', type: 'decision', tags: ['git', 'merge'], path: a.path, created: '2026-03-02T09:14:07Z', updated: '2026-03-02T09:14:07Z' }] });
    expect((await repoStatus({ settings })).source).toBe('env');
  });

  it('edit commits a change with its diff, and makes no commit when nothing changes', async () => {
    const a = await addEntry({ settings, type: 'lesson_learned', title: 'Flaky tests', body: 'Retry once.', now: NOW });
    const e = await editEntry({ settings, id: a.id, append: 'Then fix the cause.', addTags: 'ci', now: new Date('2026-03-03T00:00:00Z') });
    expect(e).toMatchObject({ id: a.id, path: a.path, changed: true, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(e.diff).toContain('+Then fix the cause.');
    expect(e.diff).toContain("+updated: 2026-03-03T00:00:00Z");
    await expectCleanRepo(sb.data);
    expect(await log()).toEqual([`edit ${a.id}: Flaky tests`, `add ${a.id}: Flaky tests`, expect.stringMatching(/^git-kb: create data repo/)]);
    const same = await editEntry({ settings, id: a.id, addTags: 'ci' });
    expect(same).toEqual({ id: a.id, path: a.path, changed: false, diff: '' });
    expect((await log()).length).toBe(3);
  });

  it('a refused write leaves no commit and no file', async () => {
    const a = await addEntry({ settings, type: 'decision', title: 'Anchor', body: 'x', now: NOW });
    const err = await addEntry({ settings, type: 'decision', title: 'Dangling', body: 'y', links: ['relates_to:kb-nothere'] }).catch((e: unknown) => e);
    expect(isKbError(err, 'INVALID_ENTRY'), String(err)).toBe(true);
    expect(String((err as Error).message)).toContain('[link-dangling]');
    expect(fs.readdirSync(path.join(sb.data, 'entries'))).toEqual([path.basename(a.path)]);
    expect((await log()).length).toBe(2);
    await expectCleanRepo(sb.data);
  });
});

describe('lint', () => {
  it('returns its findings as data and names LINT_FAILED only when there are any', async () => {
    await addEntry({ settings, type: 'decision', title: 'Fine', body: 'ok', now: NOW });
    const clean = await lintRepo({ settings });
    expect(clean).toEqual({ files: 1, problems: [], hints: [] });
    fs.writeFileSync(path.join(sb.data, 'entries', 'kb-0001-bad.md'), '---\nid: kb-0001\ntitle: Bad\ntype: nope\n---\n');
    fs.writeFileSync(path.join(sb.data, 'entries', 'notes.txt'), 'stray');
    const r = await lintRepo({ settings });
    expect(r.exit).toBe('LINT_FAILED');
    expect(r.files).toBe(3);
    expect(r.problems.map((p) => [p.file, p.line, p.rule])).toEqual([
      ['entries/kb-0001-bad.md', 4, 'type-unknown'],
      ['entries/notes.txt', 1, 'stray-file'],
    ]);
  });
});
