/**
 * `git-kb edit`: changes in place, prints the diff, bumps `updated`, keeps what a person wrote (unknown fields,
 * comments, key order), commits once per change and not at all when nothing changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, commitCount, expectUnchanged, initRepo, jsonError, kbd, kbj, snapshot, subjects, writeFile } from './support.js';

let sb: Sandbox;
let target: string;
const HAND = 'entries/kb-0042-hand-written-entry.md';
const handText = [
  '---',
  'id: kb-0042',
  '# a comment the author wrote',
  'title: Hand written entry',
  'type: lesson_learned',
  'tags: [alpha, beta]',
  'custom_field: keep me',
  'created: 2024-01-02',
  'updated: 2024-01-03',
  '---',
  '',
  'First paragraph.',
  '',
].join('\n');

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  target = (await addEntry(sb, { type: 'decision', title: 'Link target' })).id;
  writeFile(sb, HAND, handText);
  await commitAll(sb, 'hand-written entry');
});
afterAll(() => sb.cleanup());

const read = (): string => fs.readFileSync(path.join(sb.data, HAND), 'utf8');

describe('edit', () => {
  it('prints a unified diff of the change and commits it, keeping comments, unknown fields and key order', async () => {
    const r = await kbd(sb, ['edit', 'kb-0042', '--title', 'Renamed entry', '--add-tag', 'gamma']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`--- a/${HAND}`);
    expect(r.stdout).toContain(`+++ b/${HAND}`);
    expect(r.stdout).toMatch(/^-title: Hand written entry$/m);
    expect(r.stdout).toMatch(/^\+title: Renamed entry$/m);
    expect(r.stdout).toMatch(/^-updated: 2024-01-03$/m);
    expect(r.stdout).toMatch(/^edited kb-0042 \(commit [0-9a-f]{12}\)$/m);
    const text = read();
    expect(text).toContain('# a comment the author wrote');
    expect(text).toContain('custom_field: keep me');
    expect(text).toContain('created: 2024-01-02');
    expect(text).toMatch(/updated: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
    expect(text.split('\n').slice(1, 5)).toEqual(['id: kb-0042', '# a comment the author wrote', 'title: Renamed entry', 'type: lesson_learned']);
    expect(text).toMatch(/tags: \[ alpha, beta, gamma \]|tags:\n {2}- alpha\n {2}- beta\n {2}- gamma|tags: \[alpha, beta, gamma\]/);
    expect((await subjects(sb))[0]).toBe('edit kb-0042: Renamed entry');
    await expectCleanRepo(sb.data);
  });

  it('appends to, replaces, or reads the body from a file; links and unlinks; --json returns the diff', async () => {
    const appended = await kbj(sb, ['edit', 'kb-0042', '--append', 'Second paragraph.']);
    expect(Object.keys(appended).sort()).toEqual(['changed', 'commit', 'diff', 'id', 'path']);
    expect(appended).toMatchObject({ id: 'kb-0042', path: HAND, changed: true });
    expect(appended.diff).toContain('+Second paragraph.');
    // git's headers: no line of '=' before them, no tab after the paths.
    expect(appended.diff.split('\n').slice(0, 2)).toEqual([`--- a/${HAND}`, `+++ b/${HAND}`]);
    expect(read()).toMatch(/First paragraph\.\n\nSecond paragraph\.\n$/);

    await kbj(sb, ['edit', 'kb-0042', '--body', 'Replaced body.']);
    expect(read()).toMatch(/---\n\nReplaced body\.\n$/);

    const file = path.join(sb.root, 'new-body.md');
    fs.writeFileSync(file, 'Body from a file.\n');
    await kbj(sb, ['edit', 'kb-0042', '--file', file]);
    expect(read()).toMatch(/---\n\nBody from a file\.\n$/);

    await kbj(sb, ['edit', 'kb-0042', '--link', `relates_to:${target}`, '--remove-tag', 'alpha']);
    expect(read()).toContain(`to: ${target}`);
    expect(read()).not.toMatch(/\balpha\b/);
    await kbj(sb, ['edit', 'kb-0042', '--unlink', target]);
    expect(read()).not.toContain(target);
    await expectCleanRepo(sb.data);
  });

  it('makes no commit when nothing changes', async () => {
    const before = await snapshot(sb);
    const n = await commitCount(sb);
    const r = await kbd(sb, ['edit', 'kb-0042', '--body', 'Body from a file.']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('kb-0042: no change');
    const j = await kbj(sb, ['edit', 'kb-0042', '--tags', read().includes('gamma') ? 'beta,gamma' : 'beta']);
    expect(j).toEqual({ id: 'kb-0042', path: HAND, changed: false, diff: '' });
    // A field given the value it has is no change either (it bumped `updated` and committed before).
    const title = /^title: (.*)$/m.exec(read())![1]!;
    const same = await kbj(sb, ['edit', 'kb-0042', '--title', title, '--type', 'lesson_learned']);
    expect(same).toEqual({ id: 'kb-0042', path: HAND, changed: false, diff: '' });
    expect(await commitCount(sb)).toBe(n);
    await expectUnchanged(sb, before);
  });

  it('refuses conflicting body flags (2), unknown ids (3) and unlinking a link that is not there (3), writing nothing', async () => {
    const before = await snapshot(sb);
    const both = await kbd(sb, ['edit', 'kb-0042', '--body', 'a', '--append', 'b', '--json']);
    expect(both.code).toBe(2);
    expect(jsonError(both).message).toMatch(/--body and --append/);
    const missing = await kbd(sb, ['edit', 'kb-9999', '--title', 'x', '--json']);
    expect(missing.code).toBe(3);
    expect(jsonError(missing)).toMatchObject({ code: 'NOT_FOUND' });
    expect(jsonError(missing).message).toContain('kb-9999');
    const unlink = await kbd(sb, ['edit', 'kb-0042', '--unlink', 'kb-0001', '--json']);
    expect(unlink.code).toBe(3);
    expect(jsonError(unlink).message).toContain('kb-0001');
    const badLink = await kbd(sb, ['edit', 'kb-0042', '--link', 'relates_to:kb-0001', '--json']);
    expect(badLink.code).toBe(5);
    expect(jsonError(badLink).message).toMatch(new RegExp(`${HAND.replace('.', '\\.')}:\\d+: link to missing entry kb-0001`));
    // A body replaced by nothing (or white space) would lose what the entry records: refused like add's (5).
    for (const blank of ['', '  \n\n']) {
      const empty = await kbd(sb, ['edit', 'kb-0042', '--body', blank, '--json']);
      expect(empty.code).toBe(5);
      expect(jsonError(empty)).toMatchObject({ code: 'INVALID_ENTRY' });
      expect(jsonError(empty).message).toMatch(/new body is empty: kb-0042 .*nothing written/);
    }
    await expectUnchanged(sb, before);
  });

  it('edits an entry whose link target was deleted with --force (lint still reports it); a new link to a missing entry is refused', async () => {
    const gone = await addEntry(sb, { type: 'decision', title: 'Soon deleted' });
    const linker = await addEntry(sb, { type: 'decision', title: 'Links to the deleted one', links: [`relates_to:${gone.id}`], body: `See [[${gone.id}]].` });
    expect((await kbd(sb, ['delete', gone.id, '--force'])).code).toBe(0);
    const append = await kbd(sb, ['edit', linker.id, '--append', 'Still true.']);
    expect(append.code, append.stderr).toBe(0);
    expect(fs.readFileSync(path.join(sb.data, linker.path), 'utf8')).toContain('Still true.');
    const lint = await kbd(sb, ['lint', '--json']);
    expect(lint.code).toBe(5);
    expect((JSON.parse(lint.stdout) as { problems: { rule: string; file: string }[] }).problems).toContainEqual(expect.objectContaining({ rule: 'link-dangling', file: linker.path }));
    const before = await snapshot(sb);
    const fresh = await kbd(sb, ['edit', linker.id, '--link', 'relates_to:kb-zzzzzzzzzz', '--json']);
    expect(fresh.code).toBe(5);
    expect(jsonError(fresh).message).toContain('link to missing entry kb-zzzzzzzzzz');
    await expectUnchanged(sb, before);
    await expectCleanRepo(sb.data);
  });
});
