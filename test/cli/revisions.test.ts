/**
 * Revisions with git's ancestry suffixes (`HEAD~1`, `HEAD^`, `HEAD~2^2~1`, `main~3`, `<id>~1`) wherever a verb
 * takes a revision (`compact --baseline`, `restore --to`), each checked against the real git's `git rev-parse`
 * on a repo with a merge; a walk past the first commit or to a missing parent is NOT_FOUND (exit 3), naming the
 * revision, and writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, commitCount, expectUnchanged, headOf, initRepo, jsonError, kbd, kbj, sgit, snapshot, writeFile, type Added } from './support.js';

let sb: Sandbox;
let e: Added;
let still: Added;

const revParse = async (rev: string): Promise<string> => (await sgit(sb, ['rev-parse', '--verify', '-q', `${rev}^{commit}`])).trim();

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  // `still` never changes, so checking it against any baseline grades equal texts and writes nothing.
  still = await addEntry(sb, { type: 'pattern_convention', title: 'Still notes', body: '## Build\n\n- keep the cache warm\n- never skip the lint', extra: ['--kernel'] });
  e = await addEntry(sb, { type: 'decision', title: 'Cache policy', body: 'Version one.' });
  // A side branch merged with --no-ff, so HEAD~n^2 has somewhere to go.
  await sgit(sb, ['checkout', '-q', '-b', 'side']);
  writeFile(sb, 'notes/side.txt', 'side one\n');
  await commitAll(sb, 'side one');
  writeFile(sb, 'notes/side.txt', 'side two\n');
  await commitAll(sb, 'side two');
  await sgit(sb, ['checkout', '-q', 'main']);
  await kbj(sb, ['edit', e.id, '--body', 'Version two.']);
  await sgit(sb, ['merge', '-q', '--no-ff', '-m', 'merge side', 'side']);
  await kbj(sb, ['edit', e.id, '--body', 'Version three.']);
  await kbj(sb, ['edit', e.id, '--body', 'Version four.']);
});
afterAll(() => sb.cleanup());

describe('revisions with ~ and ^', () => {
  it('compact --baseline resolves each suffix form to the commit git rev-parse names, writing nothing', async () => {
    const head = await headOf(sb);
    const short = head.slice(0, 10);
    const revs = ['HEAD', 'HEAD~1', 'HEAD~', 'HEAD^', 'HEAD^1', 'HEAD^0', 'HEAD~0', 'HEAD~2', 'HEAD^^', 'HEAD~2^', 'HEAD~2^1', 'HEAD~2^2', 'HEAD~2^2~1', 'HEAD~2^2^', 'HEAD~1~1^1', 'main~3', `${short}~1`, `${head}^^`, 'side~1', 'HEAD~4'];
    const before = await snapshot(sb);
    for (const rev of revs) {
      const want = await revParse(rev);
      expect(want, rev).toMatch(/^[0-9a-f]{40}$/);
      const r = await kbd(sb, ['--json', 'compact', 'check', still.id, '--target', '100000', '--baseline', rev]);
      expect(r.code, `${rev}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout).baseline_rev, rev).toBe(want);
    }
    // HEAD~2^2 is the side branch's tip, not a first parent: the walk really takes the second parent.
    expect(await revParse('HEAD~2^2')).toBe(await revParse('side'));
    expect(await revParse('HEAD~2^2')).not.toBe(await revParse('HEAD~3'));
    await expectUnchanged(sb, before);
  });

  it("the user's command: compact check kernel --baseline HEAD~1 runs", async () => {
    const r = await kbd(sb, ['--json', 'compact', 'check', 'kernel', '--target', '100000', '--baseline', 'HEAD~1']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).baseline_rev).toBe(await revParse('HEAD~1'));
  });

  it('restore --to HEAD~1, HEAD^ and HEAD~2^ bring back the bytes git show gives, as a new commit', async () => {
    for (const rev of ['HEAD~1', 'HEAD^', 'HEAD~2^']) {
      const want = await revParse(rev);
      const bytes = await sgit(sb, ['show', `${want}:${e.path}`]);
      const n = await commitCount(sb);
      const r = await kbj(sb, ['restore', e.id, '--to', rev]);
      expect(r.from, rev).toBe(want);
      if (r.changed) expect(await commitCount(sb)).toBe(n + 1);
      expect(fs.readFileSync(path.join(sb.data, e.path), 'utf8'), rev).toBe(bytes);
      if (r.changed) expect((await sgit(sb, ['log', '-1', '--format=%s'])).trim()).toBe(`restore ${e.id} to ${want.slice(0, 12)}`);
      await expectCleanRepo(sb.data);
    }
  });

  it('a walk past the first commit, a parent a commit lacks, or a malformed suffix: NOT_FOUND (3) naming the revision, nothing written', async () => {
    const n = await commitCount(sb);
    const first = (await sgit(sb, ['rev-list', '--max-parents=0', 'HEAD'])).trim();
    const before = await snapshot(sb);
    const cases: [string[], string][] = [
      [['compact', 'check', still.id, '--baseline', `HEAD~${n}`], `HEAD~${n}`],
      [['compact', 'check', still.id, '--baseline', `${first}^`], `${first}^`],
      [['compact', 'check', still.id, '--baseline', `${first}~1`], `${first}~1`],
      [['compact', 'check', still.id, '--baseline', 'HEAD^2'], 'HEAD^2'],
      [['compact', 'check', still.id, '--baseline', 'HEAD~2^3'], 'HEAD~2^3'],
      [['compact', 'check', still.id, '--baseline', 'HEAD~x'], 'HEAD~x'],
      [['compact', 'check', still.id, '--baseline', '~1'], '~1'],
      [['restore', e.id, '--to', `HEAD~${n + 5}`], `HEAD~${n + 5}`],
      [['restore', e.id, '--to', 'no-such-branch~1'], 'no-such-branch~1'],
    ];
    for (const [args, rev] of cases) {
      // The real git agrees that there is no such commit.
      await expect(revParse(rev), rev).rejects.toThrow();
      const r = await kbd(sb, [...args, '--json']);
      expect(r.code, `${rev}: ${r.stderr}`).toBe(3);
      expect(jsonError(r).code).toBe('NOT_FOUND');
      expect(jsonError(r).message).toContain(`revision "${rev}" not found`);
    }
    const past = jsonError(await kbd(sb, ['compact', 'check', still.id, '--baseline', `HEAD~${n}`, '--json'])).message;
    expect(past).toMatch(/walks past the first commit/);
    await expectUnchanged(sb, before);
  });
});
