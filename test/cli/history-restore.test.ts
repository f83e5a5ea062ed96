/**
 * `git-kb history ID` lists an entry's commits newest first; `git-kb restore ID [--to REV]` brings an earlier
 * version back as a new commit, rewriting nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitCount, expectUnchanged, headOf, initRepo, jsonError, kbd, kbj, sgit, snapshot, type Added } from './support.js';

let sb: Sandbox;
let e: Added;
const versions: { commit: string; text: string }[] = [];

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  e = await addEntry(sb, { type: 'decision', title: 'Cache policy', body: 'Version one.' });
  const file = path.join(sb.data, e.path);
  versions.push({ commit: e.commit, text: fs.readFileSync(file, 'utf8') });
  await addEntry(sb, { title: 'Unrelated entry' });
  for (const body of ['Version two.', 'Version three.']) {
    const r = await kbj(sb, ['edit', e.id, '--body', body]);
    versions.push({ commit: r.commit, text: fs.readFileSync(file, 'utf8') });
  }
});
afterAll(() => sb.cleanup());

describe('history', () => {
  it("lists only this entry's commits, newest first, with date, author and message", async () => {
    const h = await kbj(sb, ['history', e.id]);
    expect(h.id).toBe(e.id);
    expect(h.path).toBe(e.path);
    expect(h.commits.map((c: { commit: string }) => c.commit)).toEqual(versions.map((v) => v.commit).reverse());
    expect(h.commits[0]).toEqual({ commit: versions[2]!.commit, date: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), author: 'Test Author <test@example.com>', message: `edit ${e.id}: Cache policy` });
    const gitLog = (await sgit(sb, ['log', '--format=%H', '--', e.path])).trim().split('\n');
    expect(h.commits.map((c: { commit: string }) => c.commit)).toEqual(gitLog);
    const text = await kbd(sb, ['history', e.id]);
    expect(text.stdout.split('\n')[0]).toBe(`${e.id} (${e.path})`);
    expect(text.stdout).toMatch(new RegExp(`^${versions[0]!.commit.slice(0, 12)} {2}\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d [+-]\\d{4} {2}add ${e.id}: Cache policy$`, 'm'));
  });
});

describe('restore', () => {
  it('restores the version before the last change as a new commit, rewriting nothing', async () => {
    const oldHead = await headOf(sb);
    const n = await commitCount(sb);
    const r = await kbj(sb, ['restore', e.id]);
    expect(r).toEqual({ id: e.id, path: e.path, from: versions[1]!.commit, commit: expect.stringMatching(/^[0-9a-f]{40}$/), changed: true });
    expect(fs.readFileSync(path.join(sb.data, e.path), 'utf8')).toBe(versions[1]!.text);
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await sgit(sb, ['rev-parse', 'HEAD~1'])).trim()).toBe(oldHead);
    expect((await sgit(sb, ['log', '-1', '--format=%s'])).trim()).toBe(`restore ${e.id} to ${versions[1]!.commit.slice(0, 12)}`);
    await expectCleanRepo(sb.data);
  });

  it('restores any earlier revision with --to (full or short id), and does nothing when it already matches', async () => {
    await kbj(sb, ['restore', e.id, '--to', versions[0]!.commit.slice(0, 8)]);
    expect(fs.readFileSync(path.join(sb.data, e.path), 'utf8')).toBe(versions[0]!.text);
    const before = await snapshot(sb);
    const same = await kbj(sb, ['restore', e.id, '--to', versions[0]!.commit]);
    expect(same).toEqual({ id: e.id, path: e.path, from: versions[0]!.commit, changed: false });
    const text = await kbd(sb, ['restore', e.id, '--to', versions[0]!.commit]);
    expect(text.stdout).toMatch(/already matches/);
    await expectUnchanged(sb, before);
    // The whole story is in history: nothing was rewritten.
    expect((await kbj(sb, ['history', e.id])).commits).toHaveLength(5);
  });

  it('fails clearly, writing nothing: unknown revision (3), revision without the file (3), unknown id (3), no earlier version (3)', async () => {
    const fresh = await addEntry(sb, { title: 'Only one version' });
    const before = await snapshot(sb);
    const cases: [string[], RegExp][] = [
      [['restore', e.id, '--to', 'deadbeef'], /deadbeef/],
      [['restore', e.id, '--to', 'no-such-branch'], /no-such-branch/],
      [['restore', fresh.id, '--to', versions[0]!.commit], /did not exist/],
      [['restore', 'kb-0404'], /kb-0404/],
      [['history', 'kb-0404'], /kb-0404/],
      [['restore', fresh.id], /no earlier version/],
    ];
    for (const [args, message] of cases) {
      const r = await kbd(sb, [...args, '--json']);
      expect(r.code, args.join(' ')).toBe(3);
      expect(jsonError(r).code).toBe('NOT_FOUND');
      expect(jsonError(r).message).toMatch(message);
    }
    await expectUnchanged(sb, before);
  });
});
