/**
 * A deleted entry (by `delete --force` or `prune --yes`) is found in git history: `history ID` lists its commits
 * up to and including the deletion and says which commit deleted it; `restore ID` brings back its last version
 * before the deletion, byte for byte as `git show` gives it, as a new commit through the write transaction;
 * `restore ID --to REV` brings back that version. An id no commit ever had stays NOT_FOUND (3), and a path taken
 * again by a live entry makes that entry the one history and restore act on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, commitCount, entryText, expectUnchanged, headOf, initRepo, jsonError, kbd, kbj, sgit, snapshot, writeFile, type Added } from './support.js';

let sb: Sandbox;
let e: Added;
let other: Added;
const versions: string[] = [];

const gitLog = async (p: string): Promise<string[]> => (await sgit(sb, ['log', '--format=%H', '--', p])).trim().split('\n');
const show = (rev: string, p: string): Promise<string> => sgit(sb, ['show', `${rev}:${p}`]);

beforeEach(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  versions.length = 0;
  e = await addEntry(sb, { type: 'decision', title: 'Cache policy', body: 'Version one.' });
  versions.push(e.commit);
  other = await addEntry(sb, { title: 'Unrelated entry', links: [`relates_to:${e.id}`] });
  versions.push((await kbj(sb, ['edit', e.id, '--body', 'Version two.'])).commit);
});
afterEach(() => sb.cleanup());

describe('a deleted entry', () => {
  it('history lists its commits up to and including the deletion, and says which commit deleted it', async () => {
    const del = await kbj(sb, ['delete', e.id, '--force']);
    expect(fs.existsSync(path.join(sb.data, e.path))).toBe(false);
    const h = await kbj(sb, ['history', e.id]);
    expect(h.id).toBe(e.id);
    expect(h.path).toBe(e.path);
    expect(h.deleted).toBe(del.commit);
    expect(h.commits.map((c: { commit: string }) => c.commit)).toEqual([del.commit, ...[...versions].reverse()]);
    expect(h.commits.map((c: { commit: string }) => c.commit)).toEqual(await gitLog(e.path));
    expect(h.commits[0].message).toBe((await sgit(sb, ['log', '-1', '--format=%B', del.commit])).trim());
    const text = await kbd(sb, ['history', e.id]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(`${e.id} (${e.path}), deleted in ${del.commit.slice(0, 12)}`);
    expect(text.stdout.trim().split('\n')).toHaveLength(4);
  });

  it('restore brings back the last version before the deletion, byte for byte, as a new commit', async () => {
    const last = await headOf(sb);
    const bytes = await show(last, e.path);
    const del = await kbj(sb, ['delete', e.id, '--force']);
    const n = await commitCount(sb);
    const r = await kbj(sb, ['restore', e.id]);
    expect(r).toEqual({ id: e.id, path: e.path, from: last, commit: expect.stringMatching(/^[0-9a-f]{40}$/), changed: true, deleted: del.commit });
    expect(fs.readFileSync(path.join(sb.data, e.path), 'utf8')).toBe(bytes);
    expect(await show('HEAD', e.path)).toBe(bytes);
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await sgit(sb, ['rev-parse', 'HEAD~1'])).trim()).toBe(del.commit);
    expect((await sgit(sb, ['log', '-1', '--format=%s'])).trim()).toBe(`restore deleted ${e.id} to ${last.slice(0, 12)}`);
    await expectCleanRepo(sb.data);
    // It is a live entry again: get finds it, and its history runs on through the restore.
    expect((await kbj(sb, ['get', e.id])).entries[0].id).toBe(e.id);
    const h = await kbj(sb, ['history', e.id]);
    expect(h.deleted).toBeUndefined();
    expect(h.commits.map((c: { commit: string }) => c.commit)).toEqual(await gitLog(e.path));
    expect(h.commits).toHaveLength(4);
    const text = await kbd(sb, ['restore', e.id, '--to', versions[0]!]);
    expect(text.code).toBe(0);
  });

  it('restore --to REV brings back that version (HEAD~2 too); the text output says it was deleted', async () => {
    await kbj(sb, ['delete', e.id, '--force']);
    const want = (await sgit(sb, ['rev-parse', 'HEAD~3'])).trim();
    expect(want).toBe(versions[0]);
    const bytes = await show(want, e.path);
    const r = await kbd(sb, ['restore', e.id, '--to', 'HEAD~3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(new RegExp(`^restored deleted ${e.id} from ${want.slice(0, 12)} \\(deleted in [0-9a-f]{12}; commit [0-9a-f]{12}\\)$`));
    expect(fs.readFileSync(path.join(sb.data, e.path), 'utf8')).toBe(bytes);
    expect(fs.readFileSync(path.join(sb.data, e.path), 'utf8')).toMatch(/Version one\./);
    await expectCleanRepo(sb.data);
  });

  it('fails cleanly, writing nothing: a revision without the file (3), an id never seen (3)', async () => {
    await kbj(sb, ['delete', e.id, '--force']);
    const before = await snapshot(sb);
    const first = (await sgit(sb, ['rev-list', '--max-parents=0', 'HEAD'])).trim();
    const cases: [string[], number, string, RegExp][] = [
      [['restore', e.id, '--to', first], 3, 'NOT_FOUND', /did not exist/],
      [['restore', 'kb-0404'], 3, 'NOT_FOUND', /kb-0404/],
      [['history', 'kb-0404'], 3, 'NOT_FOUND', /kb-0404/],
    ];
    for (const [args, code, name, message] of cases) {
      const r = await kbd(sb, [...args, '--json']);
      expect(r.code, args.join(' ')).toBe(code);
      expect(jsonError(r).code).toBe(name);
      expect(jsonError(r).message).toMatch(message);
    }
    await expectUnchanged(sb, before);
    await expectUnchanged(sb, before);
  });

  it('an id claimed again by a live entry is that entry: restore works on it, not on the deleted one', async () => {
    await kbj(sb, ['delete', e.id, '--force']);
    // A new file claims the id under another name: it is the live entry now.
    const p = `entries/${e.id}-again.md`;
    writeFile(sb, p, entryText({ id: e.id, title: 'Again', type: 'decision', created: '2026-01-01T00:00:00Z' }, 'A new one.'));
    await commitAll(sb, 'again');
    const h = await kbj(sb, ['history', e.id]);
    expect(h.path).toBe(p);
    expect(h.deleted).toBeUndefined();
    const r = await kbd(sb, ['restore', e.id, '--json']);
    expect(r.code).toBe(3);
    expect(jsonError(r).message).toMatch(/no earlier version/);
    expect(fs.existsSync(path.join(sb.data, e.path))).toBe(false);
    void other;
  });
});

describe('an entry deleted by prune --yes', () => {
  it('history shows the prune commit; restore brings it back byte for byte', async () => {
    const ago = new Date(Date.now() - 400 * 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const stale = 'entries/kb-00000001.md';
    writeFile(sb, stale, entryText({ id: 'kb-00000001', title: 'Old bookmark', type: 'bookmark', url: 'https://example.com/a', created: ago }, 'A page about nothing much.'));
    const seeded = await commitAll(sb, 'seed');
    const bytes = await show(seeded, stale);
    const pr = await kbj(sb, ['prune', '--yes']);
    expect(pr.deleted).toEqual(['kb-00000001']);
    const h = await kbj(sb, ['history', 'kb-00000001']);
    expect(h).toMatchObject({ id: 'kb-00000001', path: stale, deleted: pr.commit });
    expect(h.commits.map((c: { commit: string }) => c.commit)).toEqual([pr.commit, seeded]);
    expect(h.commits[0].message).toMatch(/^prune: delete 1 entr/);
    const r = await kbj(sb, ['restore', 'kb-00000001']);
    expect(r).toMatchObject({ id: 'kb-00000001', path: stale, from: seeded, changed: true, deleted: pr.commit });
    expect(fs.readFileSync(path.join(sb.data, stale), 'utf8')).toBe(bytes);
    expect(await show('HEAD', stale)).toBe(bytes);
    await expectCleanRepo(sb.data);
  });
});
