/**
 * adapters/git/file-log.ts: the history of one file is what `git log -- PATH` lists, commit for commit and in the
 * same order, on a history made by the real git CLI: branches and merges (one changing the file on both sides,
 * one taking one side's version, one keeping main's, one leaving it alone), a deletion and a re-addition, a file
 * in a nested folder, a symlink, loose objects and then packed ones.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blobIn, fileHistory } from '../src/adapters/git/file-log.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-filelog-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
let clock = 1_764_000_000;
const git = (dir: string, ...args: string[]): string => {
  clock += 60;
  const at = `${clock} +0000`;
  const env = { ...process.env, GIT_AUTHOR_NAME: 'Ann', GIT_AUTHOR_EMAIL: 'ann@example.com', GIT_COMMITTER_NAME: 'Ann', GIT_COMMITTER_EMAIL: 'ann@example.com', GIT_AUTHOR_DATE: at, GIT_COMMITTER_DATE: at, GIT_CONFIG_NOSYSTEM: '1', HOME: root };
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8', env }).trim();
};
const write = (dir: string, p: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
  fs.writeFileSync(path.join(dir, p), text);
};
const commit = (dir: string, message: string): void => {
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', message);
};
const gitLog = (dir: string, p: string, ...extra: string[]): string[] => {
  const out = git(dir, 'log', '--format=%H', ...extra, '--', p);
  return out ? out.split('\n') : [];
};

describe('fileHistory', () => {
  it('lists the commits git log -- PATH lists, in its order, through merges, a deletion and packing', async () => {
    const dir = path.join(root, 'repo');
    git(root, 'init', '-q', '-b', 'main', dir);
    const A = 'entries/kb-a-first.md';
    const B = 'sessions/2026/12/kb-b-session.md';
    write(dir, A, 'a1\n');
    commit(dir, 'root has A');
    for (let i = 0; i < 30; i++) {
      write(dir, `entries/kb-n${i}-filler.md`, `filler ${i}\n`);
      commit(dir, `filler ${i}`);
    }
    write(dir, B, 'b1\n');
    fs.symlinkSync('kb-a-first.md', path.join(dir, 'entries', 'kb-link.md'));
    commit(dir, 'add B and a link');
    // A branch that changes A, and main changes A too: the merge differs from both parents.
    git(dir, 'checkout', '-q', '-b', 'side');
    write(dir, A, 'a-side\n');
    commit(dir, 'side changes A');
    write(dir, 'entries/kb-s-side.md', 'side only\n');
    commit(dir, 'side adds a file');
    git(dir, 'checkout', '-q', 'main');
    write(dir, A, 'a-main\n');
    commit(dir, 'main changes A');
    git(dir, 'merge', '-q', '--no-ff', '-s', 'ours', '--no-commit', 'side');
    write(dir, A, 'a-merged\n');
    commit(dir, 'merge side, A merged by hand');
    // A merge that takes the side's version of A as it is: TREESAME to one parent.
    git(dir, 'checkout', '-q', '-b', 'side2');
    write(dir, A, 'a-side2\n');
    commit(dir, 'side2 changes A');
    git(dir, 'checkout', '-q', 'main');
    write(dir, B, 'b2\n');
    commit(dir, 'main changes B');
    git(dir, 'merge', '-q', '--no-ff', '-m', 'merge side2', 'side2');
    // A merge that keeps main's A (-s ours): TREESAME to the first parent, so git hides the side's change of A.
    git(dir, 'checkout', '-q', '-b', 'side4');
    write(dir, A, 'a-side4, never merged\n');
    commit(dir, 'side4 changes A');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--no-ff', '-s', 'ours', '-m', 'merge side4 keeping main', 'side4');
    // A merge that leaves A alone.
    git(dir, 'checkout', '-q', '-b', 'side3');
    write(dir, 'entries/kb-t-third.md', 'third\n');
    commit(dir, 'side3 adds a file');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'merge', '-q', '--no-ff', '-m', 'merge side3', 'side3');
    // Deleted, then added back.
    fs.rmSync(path.join(dir, A));
    commit(dir, 'delete A');
    write(dir, 'entries/kb-n3-filler.md', 'filler changed\n');
    commit(dir, 'unrelated');
    write(dir, A, 'a-back\n');
    commit(dir, 'A back');

    const head = git(dir, 'rev-parse', 'HEAD');
    const check = async (p: string, limit?: number, ref?: string): Promise<void> => {
      const want = gitLog(dir, p, ...(limit ? [`-n${limit}`] : []), ...(ref ? [ref] : []));
      expect(want.length, p).toBeGreaterThan(0);
      const got = await fileHistory(dir, p, limit ?? 200, ref);
      expect(got.map((c) => c.commit), `${p} ${limit ?? ''} ${ref ?? ''}`).toEqual(want);
    };
    for (let pass = 0; pass < 2; pass++) {
      await check(A);
      await check(B);
      await check('entries/kb-link.md');
      await check('entries/kb-n3-filler.md');
      await check(A, 3);
      await check(A, undefined, git(dir, 'rev-parse', 'HEAD~3'));
      if (pass === 0) git(dir, 'gc', '-q', '--aggressive');
    }
    expect(await fileHistory(dir, 'entries/kb-none.md')).toEqual([]);
    const [newest] = await fileHistory(dir, A);
    expect(newest).toEqual({ commit: head, date: new Date(Number(git(dir, 'log', '-1', '--format=%at', head)) * 1000).toISOString(), author: 'Ann <ann@example.com>', message: 'A back' });
  });

  it('finds a name in a raw tree only as a whole entry name after a file mode', () => {
    const id = (c: string): Buffer => Buffer.alloc(20, c);
    const entry = (mode: string, name: string, oid: Buffer): Buffer => Buffer.concat([Buffer.from(`${mode} ${name}\0`), oid]);
    const raw = Buffer.concat([entry('40000', 'kb-a.md', id('a')), entry('100644', 'x kb-a.md', id('b')), entry('100644', 'kb-a.md.bak', id('c')), entry('100755', 'kb-a.md', id('d'))]);
    expect(blobIn(raw, 'kb-a.md')).toBe(id('d').toString('hex'));
    expect(blobIn(raw, 'kb-zz.md')).toBeNull();
  });
});
