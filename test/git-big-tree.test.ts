/**
 * Big trees written in segments (src/adapters/git/big-tree.ts) against the real git: after adds, edits, deletes
 * and a rename in a folder of 4,000 files, every commit's tree is the one `git write-tree` makes of the same
 * files, the loose tree objects inflate with Python's zlib (not Node's) to exactly their content, `git fsck
 * --full` is clean, and a segment reused from the kept tree is byte for byte one deflated afresh. A kept tree
 * that is torn, of another tree or missing is ignored, one whose loose object was stored anew lends its body but
 * not its blocks, and the commit is still right.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIG_TREE, keptTree } from '../src/adapters/git/big-tree.js';
import { writeCommitObjects, type FileChange } from '../src/adapters/git/commit.js';
import { ObjectReader } from '../src/adapters/git/reader.js';
import { cleanGitEnv } from './helpers/git-server.js';

const run = promisify(execFile);
const env = cleanGitEnv({ GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' });
const author = { name: 'T', email: 't@example.com' };
const git = async (cwd: string, ...args: string[]): Promise<string> => (await run('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' })).stdout.trim();

let work: string;
let dir: string;
beforeEach(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-bigtree-'));
  dir = path.join(work, 'repo');
  await git(work, 'init', '-q', '-b', 'main', dir);
  fs.mkdirSync(path.join(dir, 'entries'));
  for (let i = 0; i < 4000; i++) fs.writeFileSync(path.join(dir, 'entries', `kb-${String(i).padStart(6, '0')}-a-note-about-the-subject-number-${i}.md`), `note ${i}\n`);
  fs.writeFileSync(path.join(dir, 'kb.json'), '{}\n');
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'seed');
});
afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

/** Commits `changes` with the native writer, applies them to the work tree too, and checks the result against git. */
async function commitAndCheck(changes: FileChange[]): Promise<string> {
  const parent = await git(dir, 'rev-parse', 'HEAD');
  const { commit } = await writeCommitObjects({ dir, reader: new ObjectReader(dir), parent, changes, message: 'change', author });
  for (const c of changes) {
    const file = path.join(dir, c.path);
    if (c.content === null) fs.rmSync(file);
    else fs.writeFileSync(file, c.content);
  }
  await git(dir, 'update-ref', 'refs/heads/main', commit);
  await git(dir, 'add', '-A');
  const expected = await git(dir, 'write-tree'); // git's own tree of the same files
  expect(await git(dir, 'rev-parse', `${commit}^{tree}`)).toBe(expected);
  const tree = await git(dir, 'rev-parse', `${commit}:entries`);
  const file = path.join(dir, '.git', 'objects', tree.slice(0, 2), tree.slice(2));
  // Another zlib than Node's reads the loose object: header and body, hashing to its id.
  const py = execFileSync('python3', ['-c', 'import sys,zlib,hashlib; d=zlib.decompress(open(sys.argv[1],"rb").read()); print(hashlib.sha1(d).hexdigest(), d[:d.index(0)].decode())', file], { encoding: 'utf8' }).trim();
  expect(py).toBe(`${tree} tree ${(await git(dir, 'cat-file', '-s', tree))}`);
  return commit;
}

const note = (i: number): string => `entries/kb-${String(i).padStart(6, '0')}-a-note-about-the-subject-number-${i}.md`;

describe('big trees written in segments', () => {
  it('adds, edits, deletes and renames in a folder of 4,000 files give the trees git makes; fsck is clean', async () => {
    expect(Number(await git(dir, 'cat-file', '-s', 'HEAD:entries'))).toBeGreaterThan(BIG_TREE);
    // The first commit deflates every segment; the ones after reuse the kept ones.
    let commit = await commitAndCheck([{ path: 'entries/kb-zzzzzz-new.md', content: 'new\n' }]);
    // Kept, with the blocks of its loose object usable by the next commit (plain git's add and write-tree in
    // between moved that file's mtime, which must not matter).
    expect(keptTree(dir, await git(dir, 'rev-parse', `${commit}:entries`))?.segments?.length).toBeGreaterThan(4);
    commit = await commitAndCheck([{ path: note(17), content: 'edited\n' }]);
    commit = await commitAndCheck([{ path: note(2500), content: null }, { path: 'entries/kb-0000000-first.md', content: 'sorts first\n' }]);
    commit = await commitAndCheck([{ path: note(3999), content: null }, { path: `${note(3999).slice(0, -3)}-renamed.md`, content: 'note 3999\n' }]);
    // Many changes at once, spread over the whole folder.
    commit = await commitAndCheck(Array.from({ length: 200 }, (_, k) => ({ path: note(k * 19), content: k % 3 ? `edit ${k}\n` : null })));
    await git(dir, 'fsck', '--full', '--strict');
    // Only the newest entry folder's tree is kept, and the folder holds nothing else.
    const kept = fs.readdirSync(path.join(dir, '.git', 'git-kb', 'trees'));
    expect(kept).toEqual([await git(dir, 'rev-parse', `${commit}:entries`)]);
  });

  it('a reused segment is byte for byte the deflate a fresh writer makes', async () => {
    await commitAndCheck([{ path: note(1), content: 'one\n' }]);
    const warm = await commitAndCheck([{ path: note(2), content: 'two\n' }]); // reuses the segments kept by the first
    const tree = await git(dir, 'rev-parse', `${warm}:entries`);
    const loose = path.join(dir, '.git', 'objects', tree.slice(0, 2), tree.slice(2));
    const reused = fs.readFileSync(loose);
    // Written again with nothing kept: every segment deflated afresh.
    fs.rmSync(path.join(dir, '.git', 'git-kb', 'trees'), { recursive: true });
    fs.chmodSync(loose, 0o644);
    fs.rmSync(loose);
    const parent = await git(dir, 'rev-parse', 'HEAD^');
    await writeCommitObjects({ dir, reader: new ObjectReader(dir), parent, changes: [{ path: note(2), content: 'two\n' }], message: 'again', author });
    expect(fs.readFileSync(loose).equals(reused)).toBe(true);
  });

  it('ignores a kept tree that is torn, flipped or of another tree, and still writes the right tree', async () => {
    const first = await commitAndCheck([{ path: note(5), content: 'five\n' }]);
    const keptFile = path.join(dir, '.git', 'git-kb', 'trees', await git(dir, 'rev-parse', `${first}:entries`));
    const whole = fs.readFileSync(keptFile);
    // A flipped byte in the body: the CRC refuses it.
    const flipped = Buffer.from(whole);
    flipped[Math.floor(flipped.length / 3)]! ^= 0x40;
    fs.writeFileSync(keptFile, flipped);
    expect(keptTree(dir, path.basename(keptFile))).toBeUndefined();
    await commitAndCheck([{ path: note(6), content: 'six\n' }]);
    // Cut short.
    const second = await git(dir, 'rev-parse', 'HEAD:entries');
    const secondFile = path.join(dir, '.git', 'git-kb', 'trees', second);
    fs.writeFileSync(secondFile, fs.readFileSync(secondFile).subarray(0, 1000));
    expect(keptTree(dir, second)).toBeUndefined();
    await commitAndCheck([{ path: note(7), content: 'seven\n' }]);
    // Another tree's file under this tree's name.
    const third = await git(dir, 'rev-parse', 'HEAD:entries');
    fs.copyFileSync(path.join(dir, '.git', 'git-kb', 'trees', third), path.join(dir, '.git', 'git-kb', 'trees', second));
    expect(keptTree(dir, second)).toBeUndefined();
    await commitAndCheck([{ path: note(8), content: 'eight\n' }]);
    // The loose object stored anew with other deflate blocks (as git may, after packing it): the kept body still
    // serves, the old blocks do not, and every segment is deflated again.
    const fourth = await git(dir, 'rev-parse', 'HEAD:entries');
    expect(keptTree(dir, fourth)?.segments).toBeDefined();
    const loose = path.join(dir, '.git', 'objects', fourth.slice(0, 2), fourth.slice(2));
    const recompressed = execFileSync('python3', ['-c', 'import sys,zlib; sys.stdout.buffer.write(zlib.compress(zlib.decompress(open(sys.argv[1],"rb").read()), 9))', loose]);
    fs.rmSync(loose, { force: true });
    fs.writeFileSync(loose, recompressed, { mode: 0o444 });
    const again = keptTree(dir, fourth);
    expect(again?.body.length).toBeGreaterThan(BIG_TREE);
    expect(again?.segments).toBeUndefined();
    await commitAndCheck([{ path: note(9), content: 'nine\n' }]);
    await git(dir, 'fsck', '--full', '--strict');
  });
});

describe('the segmented stream', () => {
  it('reuses every segment but the changed one, and inflates to the tree object', async () => {
    const { segmentedStream } = await import('../src/adapters/git/big-tree.js');
    const zlib = await import('node:zlib');
    const tree = await git(dir, 'rev-parse', 'HEAD:entries');
    const body = await new ObjectReader(dir).rawTree(tree);
    const first = segmentedStream(body, undefined);
    expect(first.reused).toBe(0);
    expect(first.segments.length).toBeGreaterThan(4);
    const whole = (s: { stream: Buffer[] }): Buffer => zlib.inflateSync(Buffer.concat(s.stream));
    expect(whole(first).equals(Buffer.concat([Buffer.from(`tree ${body.length}\0`), body]))).toBe(true);
    // One entry's id changed in the middle of the body: one segment (two, when the cut moves) deflated again.
    const changed = Buffer.from(body);
    changed[Math.floor(changed.length / 2)]! ^= 1;
    const second = segmentedStream(changed, { body, segments: first.segments });
    expect(second.reused).toBeGreaterThanOrEqual(first.segments.length - 2);
    expect(whole(second).equals(Buffer.concat([Buffer.from(`tree ${changed.length}\0`), changed]))).toBe(true);
  });
});
