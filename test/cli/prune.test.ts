/**
 * `prune` through the CLI (spec/memory.md, "Prune"): stale candidates (decaying types, four half-lives old, never
 * seen again, not linked to) and duplicates (same type, identical normalised body or the same pattern key), each
 * with its reason; nothing written without --yes; with --yes, exactly the listed entries deleted in ONE commit,
 * the repo clean by the real git CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitAll, commitCount, entryText, headOf, initRepo, kbd, kbj, sgit, snapshot, expectUnchanged, subjects, treePaths, writeFile } from './support.js';

let sb: Sandbox;
const DAY = 86_400_000;
// NOTE: days counted from one instant, taken when the file loads: a date written into an entry and the same date
// expected later in its text stay equal when a run crosses midnight.
const NOW = Date.now();
const ago = (days: number): string => new Date(NOW - days * DAY).toISOString().replace(/\.\d+Z$/, 'Z');
const put = (id: string, fields: Record<string, string | string[]>, body: string): string =>
  writeFile(sb, `entries/${id}.md`, entryText({ id, ...fields }, body)) && `entries/${id}.md`;

beforeEach(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  // stale: a lesson 200 days old (4 half-lives are 120 days), a bookmark 400 days old
  put('kb-00000001', { title: 'Old flaky test lesson', type: 'lesson_learned', created: ago(300), updated: ago(200) }, 'The flaky test was a race in the fixture teardown.');
  put('kb-00000002', { title: 'Old bookmark', type: 'bookmark', url: 'https://example.com/a', created: ago(400) }, 'A page about nothing much.');
  // not stale: young; evergreen types; marked evergreen; recurring; linked to (front matter); linked to (body)
  put('kb-00000003', { title: 'Young lesson', type: 'lesson_learned', created: ago(20) }, 'Fresh.');
  put('kb-00000004', { title: 'Old decision', type: 'decision', created: ago(900) }, 'We use one database.');
  put('kb-00000005', { title: 'Old reference', type: 'factual_reference', created: ago(900) }, 'Port 5432.');
  put('kb-00000006', { title: 'Old evergreen lesson', type: 'lesson_learned', created: ago(900), evergreen: 'true' }, 'Always pin the toolchain.');
  put('kb-00000007', { title: 'Old recurring lesson', type: 'lesson_learned', created: ago(900), pattern_key: 'pin-node', recurrences: '3' }, 'Pin node in CI.');
  put('kb-00000008', { title: 'Old linked lesson', type: 'lesson_learned', created: ago(900) }, 'Linked from a decision.');
  put('kb-00000009', { title: 'Old mentioned lesson', type: 'lesson_learned', created: ago(900) }, 'Mentioned in a body.');
  put('kb-0000000a', { title: 'Links', type: 'decision', created: ago(5), links: ['{rel: relates_to, to: kb-00000008}'] }, 'See [[kb-00000009|the lesson]].');
  // duplicates: the same body (case and white space aside) and type; a same-body entry of another type is not one
  put('kb-0000000b', { title: 'Squash merges', type: 'pattern_convention', created: ago(50) }, 'Squash merge   feature branches.');
  put('kb-0000000c', { title: 'Squash merges (again)', type: 'pattern_convention', created: ago(10) }, 'squash merge feature\nbranches.');
  put('kb-0000000d', { title: 'Squash merges', type: 'decision', created: ago(10) }, 'Squash merge feature branches.');
  // duplicates by pattern key (a hand merge left two entries with one key)
  put('kb-0000000e', { title: 'Lockfile in CI', type: 'lesson_learned', created: ago(5), pattern_key: 'frozen-lockfile', recurrences: '2' }, 'Use --frozen-lockfile.');
  put('kb-0000000f', { title: 'Lockfile again', type: 'lesson_learned', created: ago(3), pattern_key: 'frozen-lockfile' }, 'CI rewrote the lockfile.');
  await commitAll(sb, 'seed');
});
afterEach(() => sb.cleanup());

const EXPECTED = [
  { id: 'kb-0000000b', reason: 'duplicate', of: 'kb-0000000c' },
  { id: 'kb-0000000e', reason: 'duplicate', of: 'kb-0000000f' },
  { id: 'kb-00000001', reason: 'stale' },
  { id: 'kb-00000002', reason: 'stale' },
];

describe('prune', () => {
  it('lists stale and duplicate candidates with reasons and writes nothing without --yes', async () => {
    const before = await snapshot(sb);
    const r = await kbj(sb, ['prune']);
    expect(r.candidates.map((c: { id: string; reason: string; of?: string }) => ({ id: c.id, reason: c.reason, ...(c.of ? { of: c.of } : {}) }))).toEqual(EXPECTED);
    expect(r.deleted).toEqual([]);
    expect(r.commit).toBeUndefined();
    const byId = new Map(r.candidates.map((c: { id: string }) => [c.id, c]));
    expect(byId.get('kb-00000001')).toMatchObject({ title: 'Old flaky test lesson', type: 'lesson_learned', path: 'entries/kb-00000001.md' });
    expect((byId.get('kb-00000001') as { detail: string }).detail).toMatch(/200 days ago \(6\.7 half-lives of 30 days\)/);
    expect((byId.get('kb-0000000b') as { detail: string }).detail).toBe('duplicate of kb-0000000c (same type pattern_convention, identical body)');
    expect((byId.get('kb-0000000e') as { detail: string }).detail).toBe('duplicate of kb-0000000f (same type lesson_learned, same pattern_key frozen-lockfile)');
    const text = await kbd(sb, ['prune']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('4 candidates; nothing deleted. Delete them in one commit: git-kb prune --yes');
    expect(text.stdout).toMatch(/^kb-00000001 {2}stale {2}Old flaky test lesson$/m);
    await expectUnchanged(sb, before);
    await expectCleanRepo(sb.data);
  });

  it('--half-lives and kb.json half-lives move the stale line', async () => {
    const r = await kbj(sb, ['prune', '--half-lives', '8']);
    expect(r.candidates.filter((c: { reason: string }) => c.reason === 'stale').map((c: { id: string }) => c.id)).toEqual(['kb-00000002']);
    writeFile(sb, 'kb.json', JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8')), decay: { by_type: { bookmark: 0 } } }));
    await commitAll(sb, 'bookmarks do not decay');
    const s = await kbj(sb, ['prune']);
    expect(s.candidates.filter((c: { reason: string }) => c.reason === 'stale').map((c: { id: string }) => c.id)).toEqual(['kb-00000001']);
    const bad = await kbd(sb, ['prune', '--half-lives', '0']);
    expect(bad.code).toBe(2);
  });

  it('--yes deletes exactly the listed entries in one commit, and then there is nothing to prune', async () => {
    const n = await commitCount(sb);
    const all = (await treePaths(sb)).sort();
    const r = await kbj(sb, ['prune', '--yes']);
    expect(r.deleted).toEqual(EXPECTED.map((e) => e.id));
    expect(r.commit).toBe(await headOf(sb));
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await subjects(sb))[0]).toBe('prune: delete 4 entries (2 stale, 2 duplicate)');
    const gone = EXPECTED.map((e) => `entries/${e.id}.md`);
    expect((await treePaths(sb)).sort()).toEqual(all.filter((p) => !gone.includes(p)));
    for (const p of gone) expect(fs.existsSync(path.join(sb.data, p))).toBe(false);
    expect((await sgit(sb, ['show', '--name-status', '--format=', 'HEAD'])).trim().split('\n').sort()).toEqual([...gone.map((p) => `D\t${p}`), 'M\tentries/kb-0000000c.md', 'M\tentries/kb-0000000f.md'].sort());
    expect(r.folded).toEqual(['kb-0000000c', 'kb-0000000f']);
    // The kept copies carry the deleted ones' history: counts and days, and a body that said something else.
    const kept = fs.readFileSync(path.join(sb.data, 'entries/kb-0000000f.md'), 'utf8');
    expect(kept).toMatch(/^recurrences: 3$/m);
    expect(kept).toMatch(new RegExp(`^Seen again ${ago(5).slice(0, 10)}:\n\nUse --frozen-lockfile\\.$`, 'm'));
    const same = fs.readFileSync(path.join(sb.data, 'entries/kb-0000000c.md'), 'utf8');
    expect(same).toMatch(/^recurrences: 2$/m);
    expect(same).not.toContain('Seen again');
    await expectCleanRepo(sb.data);
    const again = await kbd(sb, ['prune', '--yes']);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to prune');
    expect(await commitCount(sb)).toBe(n + 1);
  });

  it('keeps today\'s re-recorded lesson over a stale copy, folds the old one into its history, and lists nothing after (issue 29)', async () => {
    const old = ago(400);
    put('kb-00000010', { title: 'Retry the flaky upload', type: 'lesson_learned', created: old }, 'Retry the upload once; the CDN drops the first PUT.');
    put('kb-00000011', { title: 'Retry the flaky upload', type: 'lesson_learned', created: ago(0) }, 'Retry the upload once;  the CDN drops the first PUT.');
    await commitAll(sb, 're-recorded');
    const listed = await kbj(sb, ['prune']);
    const mine = listed.candidates.filter((c: { id: string }) => ['kb-00000010', 'kb-00000011'].includes(c.id));
    expect(mine).toMatchObject([{ id: 'kb-00000010', reason: 'duplicate', of: 'kb-00000011' }]);
    await kbj(sb, ['prune', '--yes']);
    expect(fs.existsSync(path.join(sb.data, 'entries/kb-00000011.md'))).toBe(true);
    const text = fs.readFileSync(path.join(sb.data, 'entries/kb-00000011.md'), 'utf8');
    expect(text).toMatch(/^recurrences: 2$/m);
    expect(text).toContain(`- ${old.slice(0, 10)}`);
    expect((await kbd(sb, ['prune'])).stdout).toContain('nothing to prune');
  });
});
