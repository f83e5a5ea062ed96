/**
 * The native commit path of adapters/git/git.ts (no isomorphic-git on a write): the commit object is byte for
 * byte the one isomorphic-git writes, HEAD resolves as git resolves it, and setRef leaves a ref git reads.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as iso from 'isomorphic-git';
import { afterAll, describe, expect, it } from 'vitest';
import { commitText, headOid, refOid, setRef, writeCommit } from '../src/adapters/git/git.js';
import { writeLooseObject } from '../src/adapters/git/objects.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-native-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
const env = { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e', GIT_CONFIG_NOSYSTEM: '1' };
const git = (dir: string, ...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env }).trim();

describe('the native commit path', () => {
  it('writes the commit object isomorphic-git writes, for any time zone and message shape', async () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    for (const d of [a, b]) git(root, 'init', '-q', '-b', 'main', d);
    const tree = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
    const cases = [
      { offset: 0, message: 'add: one entry' },
      { offset: -120, message: 'edit kb-0042\n\nBody of the message.\n' },
      { offset: 330, message: '\n\nleading newlines\r\nand CRLF\n\n\n' },
      { offset: -345, message: 'ünïcödé ✓ message' },
    ];
    for (const [i, c] of cases.entries()) {
      const author = { name: `Ann Ó'Brien ${i}`, email: `ann${i}@example.com`, timestamp: 1_764_000_000 + i, timezoneOffset: c.offset };
      const parents = i === 0 ? [] : ['1111111111111111111111111111111111111111', ...(i === 3 ? ['2222222222222222222222222222222222222222'] : [])];
      const theirs = await iso.writeCommit({ fs, dir: a, commit: { tree, parent: parents, author, committer: author, message: c.message } });
      const ours = writeLooseObject(b, 'commit', Buffer.from(commitText({ tree, parents, author, message: c.message }), 'utf8'));
      expect(ours, JSON.stringify(c)).toBe(theirs);
    }
  });

  it('commits, moves the branch and resolves HEAD the way git does', async () => {
    const d = path.join(root, 'c');
    git(root, 'init', '-q', '-b', 'main', d);
    expect(await headOid(d)).toBeUndefined();
    const tree = git(d, 'write-tree');
    const first = await writeCommit({ dir: d, tree, parents: [], message: 'first', author: { name: 'T', email: 't@e' }, now: new Date(1_764_000_000_000) });
    await setRef(d, 'refs/heads/main', first);
    expect(await headOid(d)).toBe(git(d, 'rev-parse', 'HEAD'));
    expect(git(d, 'log', '--format=%an <%ae> %s')).toBe('T <t@e> first');
    git(d, 'pack-refs', '--all');
    expect(await headOid(d)).toBe(first);
    await setRef(d, 'refs/remotes/origin/main', first);
    expect(await refOid(d, 'refs/remotes/origin/main')).toBe(git(d, 'rev-parse', 'origin/main'));
    expect(git(d, 'fsck', '--strict')).toBe('');
    await expect(setRef(d, 'refs/heads/../../x', first)).rejects.toThrow(/refusing/);
    await expect(setRef(d, 'refs/heads/main', 'not-an-oid')).rejects.toThrow(/refusing/);
  });
});
