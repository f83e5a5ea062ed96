/**
 * git's index file read and written without git: entries match `git ls-files`, updates keep git's byte order and
 * stat data (so `git status` is clean without a refresh), extended entries survive, and formats this module
 * cannot rewrite safely are refused.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseIndex, serializeIndex, updateIndexFile } from '../src/adapters/git/index-file.js';

let dir: string;
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@e' };
const g = (...args: string[]): string => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' });
const put = (rel: string, text: string): void => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
};

// Paths whose byte order differs from naive orders: '-' < '/' < '0', and multi-byte UTF-8 after ASCII.
const PATHS = ['a-b.md', 'a/b.md', 'a0.md', 'entries/kb-1-x.md', 'entries/kb-10-x.md', 'entries/kb-1.md', 'zz.md', 'é.md', 'ü/ß.md', '日本.md', 'x\u{1F600}.md'];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-index-'));
  g('init', '-q', '-b', 'main');
  g('config', 'core.quotepath', 'false');
  for (const p of PATHS) put(p, `content of ${p}\n`);
  g('add', '-A');
  g('commit', '-q', '-m', 'base');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const indexBuf = (): Buffer => fs.readFileSync(path.join(dir, '.git', 'index'));
const lsFiles = (): string[] => g('ls-files', '-s').trim().split('\n');

describe('parseIndex and serializeIndex', () => {
  it('read what git wrote: same paths, blob ids and modes, in git order', () => {
    const entries = parseIndex(indexBuf());
    expect(entries.map((e) => `${e.mode.toString(8)} ${e.oid} 0\t${e.path}`)).toEqual(lsFiles());
  });

  it('write an index git reads back as clean, whatever order the entries come in', () => {
    const entries = parseIndex(indexBuf()).reverse();
    fs.writeFileSync(path.join(dir, '.git', 'index'), serializeIndex(entries));
    expect(lsFiles()).toHaveLength(PATHS.length);
    g('diff-files', '--quiet'); // stat data kept: no file looks modified
    expect(g('status', '--porcelain')).toBe('');
  });

  it('refuse a checksum mismatch, an unknown version and a required extension', () => {
    const original = indexBuf();
    const buf = Buffer.from(original);
    buf[buf.length - 1] ^= 0xff;
    expect(() => parseIndex(buf)).toThrow(/checksum/);
    const v4 = Buffer.from(original);
    v4.writeUInt32BE(4, 4);
    expect(() => parseIndex(v4)).toThrow(/version 4/);
    const refusedByUpdate = (b: Buffer): (() => void) => () => {
      fs.writeFileSync(path.join(dir, '.git', 'index'), b);
      updateIndexFile(dir, [{ path: 'a0.md', oid: null }]);
    };
    expect(refusedByUpdate(v4)).toThrow(/version 4/);
    expect(() => parseIndex(Buffer.from('not an index at all, no DIRC header'))).toThrow(/DIRC/);
    // Append a required (lower-case) extension before the checksum.
    const body = original.subarray(0, original.length - 20);
    const ext = Buffer.concat([Buffer.from('link'), Buffer.from([0, 0, 0, 0])]);
    const withExt = Buffer.concat([body, ext, Buffer.alloc(20)]);
    expect(refusedByUpdate(withExt)).toThrow(/required extension "link"/);
    expect(indexBuf().equals(withExt)).toBe(true); // refused before anything was written
  });
});

describe('updateIndexFile', () => {
  it('adds, replaces and removes paths so that git sees exactly those changes staged, and nothing stat-dirty', () => {
    put('entries/kb-2-new.md', 'new\n');
    put('a0.md', 'changed\n');
    fs.rmSync(path.join(dir, 'zz.md'));
    const oidNew = g('hash-object', '-w', 'entries/kb-2-new.md').trim();
    const oidChanged = g('hash-object', '-w', 'a0.md').trim();
    updateIndexFile(dir, [
      { path: 'entries/kb-2-new.md', oid: oidNew },
      { path: 'a0.md', oid: oidChanged },
      { path: 'zz.md', oid: null },
    ]);
    g('diff-files', '--quiet');
    expect(g('diff', '--cached', '--name-status').trim().split('\n').sort()).toEqual(['A\tentries/kb-2-new.md', 'D\tzz.md', 'M\ta0.md']);
    g('commit', '-q', '-m', 'via index');
    expect(g('status', '--porcelain')).toBe('');
    g('fsck', '--strict');
  });

  it('keeps git byte order when adding paths that sort between existing ones, in any order given', () => {
    const add = ['a.md', 'a/c.md', 'entries/kb-1-a.md', 'ë.md', 'a-a.md'];
    for (const p of add) put(p, `${p}\n`);
    const changes = add.map((p) => ({ path: p, oid: g('hash-object', '-w', p).trim() }));
    updateIndexFile(dir, changes.reverse());
    g('diff-files', '--quiet');
    // git refuses an unsorted index; ls-files and a commit prove the order is right.
    expect(lsFiles()).toHaveLength(PATHS.length + add.length);
    g('commit', '-q', '-m', 'more');
    expect(g('status', '--porcelain')).toBe('');
    expect(parseIndex(indexBuf()).map((e) => e.path)).toEqual(g('ls-files').trim().split('\n'));
  });

  it('keeps extended (intent-to-add) entries as they are, and creates an index when there is none', () => {
    put('later.md', 'later\n');
    g('add', '-N', 'later.md');
    expect(indexBuf().readUInt32BE(4)).toBe(3);
    put('entries/kb-3.md', 'x\n');
    updateIndexFile(dir, [{ path: 'entries/kb-3.md', oid: g('hash-object', '-w', 'entries/kb-3.md').trim() }]);
    expect(indexBuf().readUInt32BE(4)).toBe(3);
    expect(g('status', '--porcelain').trim().split('\n').sort()).toEqual([' A later.md', 'A  entries/kb-3.md']);

    fs.rmSync(path.join(dir, '.git', 'index'));
    updateIndexFile(dir, [{ path: 'zz.md', oid: g('hash-object', '-w', 'zz.md').trim() }]);
    expect(lsFiles()).toHaveLength(1);
  });
});
