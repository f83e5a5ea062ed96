/**
 * The native object layer (src/adapters/git: reader, objects, walk) against the real git: every object of a repacked
 * repository (deltas, several packs, loose objects) reads back exactly as `git cat-file` prints it; packs made by
 * `git pack-objects` (offset and ref deltas) store as loose objects `git fsck` accepts; tree diffs agree with
 * `git diff-tree`; the objects chosen for a push are exactly what the remote lacks; a tree merge follows the
 * rules its caller hands in.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildPack, storePack } from '../src/adapters/git/objects.js';
import { ObjectReader } from '../src/adapters/git/reader.js';
import { mergeTrees } from '../src/adapters/git/merge-trees.js';
import { diffTrees, newCommits, objectsToSend } from '../src/adapters/git/walk.js';
import { cleanGitEnv } from './helpers/git-server.js';

const run = promisify(execFile);
const env = cleanGitEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' });

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await run('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' })).stdout;
}
async function gitBuf(cwd: string, args: string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { cwd, env, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    if (input) child.stdin!.end(input);
  });
}

let work: string;
beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-objects-'));
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** A repo whose history makes deltas: a big file edited a little in each commit, folders that come and go. */
async function historyRepo(): Promise<string> {
  const dir = path.join(work, 'repo');
  await git(work, 'init', '-q', '-b', 'main', dir);
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i} of a long note that deltas well`);
  for (let c = 0; c < 8; c++) {
    lines[c * 100] = `changed in commit ${c}`;
    fs.mkdirSync(path.join(dir, 'entries'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'entries', 'big.md'), `${lines.join('\n')}\n`);
    fs.writeFileSync(path.join(dir, 'entries', `n${c}.md`), `note ${c}\n`);
    if (c === 3) fs.rmSync(path.join(dir, 'entries', 'n1.md'));
    if (c === 5) {
      fs.mkdirSync(path.join(dir, 'hosts', 'web'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'hosts', 'web', 'f.md'), 'fact\n');
    }
    if (c === 6) fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', `commit ${c}`);
    if (c === 4) await git(dir, 'gc', '-q', '--aggressive'); // one pack with deltas, later objects loose
  }
  await git(dir, 'repack', '-q'); // a second pack
  return dir;
}

describe('native object reader', () => {
  it('reads every object of packs (with deltas) and loose objects exactly as git does', async () => {
    const dir = await historyRepo();
    fs.writeFileSync(path.join(dir, 'loose.md'), 'loose\n');
    const loose = (await git(dir, 'hash-object', '-w', 'loose.md')).trim();
    const list = (await git(dir, 'cat-file', '--batch-all-objects', '--batch-check')).trim().split('\n').map((l) => l.split(' '));
    expect(list.length).toBeGreaterThan(30);
    const reader = new ObjectReader(dir);
    try {
      for (const [oid, type] of [...list, [loose, 'blob']]) {
        const want = await gitBuf(dir, ['cat-file', type!, oid!]);
        const got = await reader.read(oid!);
        expect(got.type).toBe(type);
        expect(got.data.equals(want)).toBe(true);
      }
      const head = (await git(dir, 'rev-parse', 'HEAD')).trim();
      const info = await reader.commit(head);
      expect(info.tree).toBe((await git(dir, 'rev-parse', 'HEAD^{tree}')).trim());
      expect(info.parents).toEqual([(await git(dir, 'rev-parse', 'HEAD~1')).trim()]);
      expect(await reader.has('0'.repeat(40))).toBe(false);
    } finally {
      reader.close();
    }
  });

  it('diffs trees as git diff-tree does, a file turned folder included', async () => {
    const dir = await historyRepo();
    const reader = new ObjectReader(dir);
    const commits = (await git(dir, 'rev-list', 'HEAD')).trim().split('\n').reverse();
    for (let i = 1; i < commits.length; i++) {
      const [a, b] = [commits[i - 1]!, commits[i]!];
      const want = (await git(dir, 'diff-tree', '-r', '--no-renames', a, b))
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [meta, p] = l.split('\t');
          const f = meta!.split(' ');
          return `${p} ${f[4] === 'D' ? 'null' : f[3]}`;
        })
        .sort();
      const got = (await diffTrees(reader, (await reader.commit(a)).tree, (await reader.commit(b)).tree)).map((c) => `${c.path} ${c.oid}`).sort();
      expect(got).toEqual(want);
    }
    reader.close();
  });
});

describe('packs', () => {
  for (const offsets of [true, false]) {
    it(`stores a pack made by git pack-objects (${offsets ? 'offset' : 'ref'} deltas) as loose objects git accepts`, async () => {
      const src = await historyRepo();
      const revs = Buffer.from(`${(await git(src, 'rev-parse', 'HEAD')).trim()}\n`);
      const pack = await gitBuf(src, ['pack-objects', '--stdout', '--revs', ...(offsets ? ['--delta-base-offset'] : [])], revs);
      const dest = path.join(work, 'dest');
      await git(work, 'init', '-q', '-b', 'main', dest);
      const reader = new ObjectReader(dest);
      const n = await storePack(dest, pack, reader);
      reader.close();
      const all = (await git(src, 'rev-list', '--objects', 'HEAD')).trim().split('\n');
      expect(n).toBe(all.length);
      await git(dest, 'update-ref', 'refs/heads/main', (await git(src, 'rev-parse', 'HEAD')).trim());
      await git(dest, 'fsck', '--strict', '--no-progress');
      expect(await git(dest, 'rev-list', '--objects', 'HEAD')).toBe(await git(src, 'rev-list', '--objects', 'HEAD'));
      // A corrupt pack is refused before anything is written.
      const bad = Buffer.from(pack);
      bad[bad.length - 30]! ^= 0xff;
      await expect(storePack(path.join(work, 'dest'), bad, new ObjectReader(dest))).rejects.toThrow(/checksum/);
    });
  }

  it('a push pack holds exactly the objects the remote lacks, and git index-pack accepts it', async () => {
    const dir = await historyRepo();
    const reader = new ObjectReader(dir);
    const head = (await git(dir, 'rev-parse', 'HEAD')).trim();
    const known = (await git(dir, 'rev-parse', 'HEAD~3')).trim();
    const commits = await newCommits(reader, head, known);
    expect(commits).toEqual((await git(dir, 'rev-list', head, `^${known}`)).trim().split('\n'));
    const objects = await objectsToSend(reader, commits);
    const want = (await git(dir, 'rev-list', '--objects', head, `^${known}`)).trim().split('\n').map((l) => l.split(' ')[0]);
    expect(new Set(objects)).toEqual(new Set(want));
    const pack = await buildPack(reader, objects);
    reader.close();
    const check = path.join(work, 'check.pack');
    fs.writeFileSync(check, pack);
    const out = await git(dir, 'index-pack', '--strict', check); // in the repo: links to objects the remote has resolve there
    expect(out.trim()).toMatch(/^[0-9a-f]{40}$/);
    // Everything from the root when the remote is empty.
    const r2 = new ObjectReader(dir);
    expect(new Set(await objectsToSend(r2, await newCommits(r2, head, undefined)))).toEqual(new Set((await git(dir, 'rev-list', '--objects', head)).trim().split('\n').map((l) => l.split(' ')[0])));
    r2.close();
  });
});

describe('push objects when a tree comes back', () => {
  // A delete then a restore brings back a tree an earlier unpushed commit already has, with another parent. The
  // walk of that tree against one parent adds only what differs from it; a walk against the other parent must
  // still add what that one lacks (before: a tree seen once was skipped, so B's blob was never sent).
  const cases: [string, string][] = [
    ['the whole tree (a restore right after the delete)', ''],
    ['a folder only (another folder changed too)', 'other'],
  ];
  for (const [name, other] of cases) {
    it(`sends every object the remote lacks: ${name}`, async () => {
      const dir = path.join(work, 'back');
      await git(work, 'init', '-q', '-b', 'main', dir);
      const e = path.join(dir, 'entries');
      fs.mkdirSync(e);
      const commit = async (m: string): Promise<void> => {
        await git(dir, 'add', '-A');
        await git(dir, 'commit', '-q', '--allow-empty', '-m', m);
      };
      fs.writeFileSync(path.join(e, 'a.md'), 'note A\n');
      await commit('A');
      const known = (await git(dir, 'rev-parse', 'HEAD')).trim();
      fs.writeFileSync(path.join(e, 'b.md'), 'note B\n');
      await commit('add B');
      fs.rmSync(path.join(e, 'a.md'));
      await commit('delete A');
      fs.writeFileSync(path.join(e, 'a.md'), 'note A\n');
      if (other) {
        fs.mkdirSync(path.join(dir, other), { recursive: true });
        fs.writeFileSync(path.join(dir, other, 'x.md'), 'x\n');
      }
      await commit('restore A');
      const head = (await git(dir, 'rev-parse', 'HEAD')).trim();
      const want = new Set((await git(dir, 'rev-list', '--objects', head, `^${known}`)).trim().split('\n').map((l) => l.split(' ')[0]));
      const has = new Set((await git(dir, 'rev-list', '--objects', known)).trim().split('\n').map((l) => l.split(' ')[0]));
      const reader = new ObjectReader(dir);
      const commits = await newCommits(reader, head, known);
      // Newest first (as a push hands them over) and oldest first: every object the remote lacks, and beyond them
      // only objects it has (A's blob, which the restore adds again against the delete).
      for (const order of [commits, [...commits].reverse()]) {
        const got = new Set(await objectsToSend(reader, order));
        expect([...want].filter((o) => !got.has(o))).toEqual([]);
        expect([...got].filter((o) => !want.has(o) && !has.has(o))).toEqual([]);
      }
      reader.close();
    });
  }
});

describe('tree merge', () => {
  it('merges trees by the rules the caller hands in, and knows nothing of entries', async () => {
    const dir = path.join(work, 'merge');
    await git(work, 'init', '-q', '-b', 'main', dir);
    const put = (name: string, text: string): void => fs.writeFileSync(path.join(dir, name), text);
    const commit = async (msg: string): Promise<string> => {
      await git(dir, 'add', '-A');
      await git(dir, 'commit', '-q', '-m', msg);
      return (await git(dir, 'rev-parse', 'HEAD')).trim();
    };
    put('a.txt', 'base\n');
    put('b.txt', 'gone on theirs\n');
    const base = await commit('base');
    put('a.txt', 'ours\n');
    put('o.txt', 'only ours\n');
    const ours = await commit('ours');
    await git(dir, 'checkout', '-q', '-b', 'theirs', base);
    put('a.txt', 'theirs\n');
    fs.rmSync(path.join(dir, 'b.txt'));
    const theirs = await commit('theirs');
    const reader = new ObjectReader(dir);
    const tree = async (c: string): Promise<string> => (await reader.commit(c)).tree;
    const m = await mergeTrees({
      dir,
      reader,
      bases: [await tree(base)],
      ours: await tree(ours),
      theirs: await tree(theirs),
      label: 'T',
      rules: { mergeText: (_p, _b, o, t) => ({ text: o + t, conflict: true }), inline: () => false, nameOf: (p) => p.toUpperCase() },
    });
    reader.close();
    const theirBlob = (await git(dir, 'rev-parse', `${theirs}:a.txt`)).trim();
    expect(m.conflicts).toEqual([{ path: 'a.txt', kind: 'file', sibling: `a.txt.conflict-${theirBlob.slice(0, 8)}` }]);
    expect(m.notes).toEqual(['b.txt: deleted on T']);
    const listing = (await git(dir, 'ls-tree', '--name-only', m.tree)).trim().split('\n');
    expect(listing).toEqual(['a.txt', `a.txt.conflict-${theirBlob.slice(0, 8)}`, 'o.txt']);
    expect(await git(dir, 'cat-file', 'blob', `${m.tree}:a.txt`)).toBe('ours\ntheirs\n');
    await git(dir, 'fsck', '--strict', '--no-dangling');
  });
});

describe('commit trees', () => {
  it('are the trees git writes for the same changes: byte order, deletions, a file turned folder and back', async () => {
    const { writeCommitObjects } = await import('../src/adapters/git/commit.js');
    const dir = path.join(work, 'trees');
    await git(work, 'init', '-q', '-b', 'main', dir);
    const names = ['a-b.md', 'a/b.md', 'a0.md', 'x', 'y/z.md', 'entries/kb-1-x.md', 'entries/kb-10-x.md', 'entries/kb-1.md', 'é.md', 'entries/日本.md'];
    const write = (p: string, text: string) => {
      // as git sees a path replaced: a file where a folder of the path is, or a folder where the file is, goes
      const parts = p.split('/');
      for (let i = 1; i < parts.length; i++) {
        const up = path.join(dir, ...parts.slice(0, i));
        if (fs.existsSync(up) && fs.statSync(up).isFile()) fs.rmSync(up);
      }
      if (fs.existsSync(path.join(dir, p)) && fs.statSync(path.join(dir, p)).isDirectory()) fs.rmSync(path.join(dir, p), { recursive: true });
      fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      fs.writeFileSync(path.join(dir, p), text);
    };
    for (const p of names) write(p, `${p}\n`);
    await git(dir, 'add', '-A');
    await git(dir, 'commit', '-q', '-m', 'base');
    const rounds: { path: string; content: string | null }[][] = [
      [{ path: 'entries/kb-1-w.md', content: 'new\n' }, { path: 'a0.md', content: 'changed\n' }, { path: 'entries/kb-10-x.md', content: null }],
      [{ path: 'x', content: null }, { path: 'x/inner.md', content: 'now a folder\n' }, { path: 'a', content: 'a file beside a-b.md and a0.md\n' }, { path: 'a/b.md', content: null }],
      [{ path: 'y/z.md', content: null }, { path: 'y', content: 'folder gone, a file now\n' }, { path: 'entries/kb-0.md', content: 'first\n' }, { path: 'entries/zz.md', content: 'last\n' }],
      // a path replaced without its old one deleted: the file (or folder) in the way goes
      [{ path: 'a0.md/deep.md', content: 'under a former file\n' }, { path: 'x', content: 'a file where a folder was\n' }, { path: 'y/again.md', content: 'a folder again\n' }],
    ];
    for (const changes of rounds) {
      const parent = (await git(dir, 'rev-parse', 'HEAD')).trim();
      const { commit } = await writeCommitObjects({ dir, reader: new ObjectReader(dir), parent, changes, message: 'm\n', author: { name: 'T', email: 't@example.com' } });
      for (const c of [...changes].sort((a, b) => Number(a.content !== null) - Number(b.content !== null))) {
        if (c.content === null) fs.rmSync(path.join(dir, c.path), { recursive: true, force: true });
        else write(c.path, c.content);
      }
      await git(dir, 'add', '-A');
      const want = (await git(dir, 'write-tree')).trim();
      expect((await git(dir, 'rev-parse', `${commit}^{tree}`)).trim()).toBe(want);
      await git(dir, 'reset', '-q', '--soft', commit);
    }
    await git(dir, 'fsck', '--strict');
  });
});
