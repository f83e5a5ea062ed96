/**
 * `list` and `status` read the catalog summary (.git/git-kb/summary.v1) and never serve it stale: a hand edit in
 * place (other type, same size with the mtime put back), a hand-added or deleted file, a plain-git commit, a torn
 * or garbage summary all give what a full catalog load gives; an unchanged repo is served without rewriting it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, entryText, initRepo, kbj, settleFolders, writeFile, type Added } from './support.js';

let sb: Sandbox;
let a: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  a = await addEntry(sb, { type: 'decision', title: 'Summary first', body: 'First body.' });
  await addEntry(sb, { type: 'lesson_learned', title: 'Summary second', body: 'Second body.' });
});
afterAll(() => sb.cleanup());

const file = (): string => path.join(sb.data, '.git', 'git-kb', 'summary.v1');
const status = async (): Promise<{ entries: number; by_type: Record<string, number>; problems: number }> => kbj(sb, ['status']);
const titles = async (args: string[] = []): Promise<string[]> => (await kbj(sb, ['list', ...args])).entries.map((e: { title: string }) => e.title);

describe('catalog summary', () => {
  it('is written by the first list and reused while nothing changed', async () => {
    fs.rmSync(file(), { force: true });
    settleFolders(sb);
    const order = await titles();
    expect([...order].sort()).toEqual(['Summary first', 'Summary second']);
    const ino = fs.statSync(file()).ino;
    expect(await titles(['--limit', '1'])).toEqual([order[0]]);
    expect(await titles()).toEqual(order);
    expect((await status()).by_type).toEqual({ decision: 1, lesson_learned: 1 });
    expect(fs.statSync(file()).ino).toBe(ino);
  });

  it('sees a hand edit in place that changes the type, and a same-size edit with its mtime put back', async () => {
    const abs = path.join(sb.data, a.path);
    fs.writeFileSync(abs, fs.readFileSync(abs, 'utf8').replace('type: decision', 'type: bookmark\nurl: https://example.com/'));
    expect((await status()).by_type).toEqual({ bookmark: 1, lesson_learned: 1 });
    expect(await titles(['--type', 'bookmark'])).toEqual(['Summary first']);
    const ref = path.join(sb.root, 'mtime-ref');
    fs.writeFileSync(ref, '');
    execFileSync('touch', ['-r', abs, ref]);
    const text = fs.readFileSync(abs, 'utf8');
    fs.writeFileSync(abs, text.replace('title: Summary first', 'title: Summary frost'));
    execFileSync('touch', ['-r', ref, abs]);
    expect(await titles()).toContain('Summary frost');
  });

  it('sees a hand-added file, a plain-git commit and a deletion', async () => {
    writeFile(sb, 'entries/kb-sum00001-hand.md', entryText({ id: 'kb-sum00001', title: 'Hand added', type: 'decision', updated: '2099-01-01T00:00:00Z' }, 'hand'));
    expect((await titles())[0]).toBe('Hand added');
    expect((await status()).entries).toBe(3);
    await commitAll(sb, 'plain git');
    expect((await status()).entries).toBe(3);
    fs.rmSync(path.join(sb.data, 'entries/kb-sum00001-hand.md'));
    expect(await titles()).not.toContain('Hand added');
    expect((await status()).entries).toBe(2);
  });

  it('counts problems as the catalog does (a file that does not parse, a dangling link)', async () => {
    const before = (await status()).problems;
    writeFile(sb, 'entries/kb-sum00002-bad.md', '---\nid: kb-sum00002\n---\nno title\n');
    expect((await status()).problems).toBeGreaterThan(before);
    fs.rmSync(path.join(sb.data, 'entries/kb-sum00002-bad.md'));
    expect((await status()).problems).toBe(before);
  });

  it('ignores a torn, garbage or foreign summary and rewrites it', async () => {
    const good = fs.readFileSync(file());
    for (const damage of [Buffer.alloc(0), good.subarray(0, good.length >> 1), Buffer.from('garbage\n'), Buffer.concat([good, Buffer.from('x')])]) {
      fs.writeFileSync(file(), damage);
      expect((await titles()).sort()).toEqual(['Summary frost', 'Summary second']);
      expect((await status()).entries).toBe(2);
      expect(fs.readFileSync(file()).length).toBeGreaterThan(100);
    }
  });
});
