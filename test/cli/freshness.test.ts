/**
 * The index is derived state and never served stale: whatever changed the data repo (git-kb, a plain-git commit,
 * an uncommitted hand edit of the same or a different size, a deletion), the next search and list see it; a
 * corrupt cache under .git/git-kb/ is ignored and rebuilt.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchStore } from '../../src/adapters/index/search.js';
import { openSearchStore } from '../../src/adapters/index/search-store.js';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, entryText, initRepo, kbj, sgit, writeFile, type Added } from './support.js';

let sb: Sandbox;
let first: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  first = await addEntry(sb, { type: 'decision', title: 'Walrus operator style', body: 'Prefer the walrus operator in comprehensions.' });
});
afterAll(() => sb.cleanup());

const searchIds = async (q: string): Promise<string[]> => (await kbj(sb, ['search', q])).results.map((h: { id: string }) => h.id);
const listTitles = async (): Promise<string[]> => (await kbj(sb, ['list'])).entries.map((e: { title: string }) => e.title);
const cacheDir = (): string => path.join(sb.data, '.git', 'git-kb');

describe('freshness', () => {
  it('sees an entry added by git-kb at once', async () => {
    expect(await searchIds('walrus')).toEqual([first.id]);
    const a = await addEntry(sb, { title: 'Pelican deployment notes', body: 'Pelican builds the static site.' });
    expect(await searchIds('pelican')).toEqual([a.id]);
    expect(await listTitles()).toContain('Pelican deployment notes');
  });

  it('an add keeps the stored search index in step: the next search parses and lists nothing', async () => {
    expect(await searchIds('pelican')).toHaveLength(1);
    const a = await addEntry(sb, { title: 'Cormorant fishing notes', body: 'Cormorants dive for fish.' });
    // The write put the new file, its row and its text into the delta, under the folders' names key after it.
    const delta = v8.deserialize(fs.readFileSync(path.join(cacheDir(), 'search-delta.v9'))) as { files: { path: string; text: string | null }[] };
    expect(delta.files.find((f) => f.path === a.path)?.text).toContain('Cormorants dive for fish.');
    const store = await openSearchStore(sb.data, { queries: ['cormorant'] });
    expect(store.how).toBe('cached');
    expect(searchStore(store, { queries: ['cormorant'] }).map((h) => h.id)).toEqual([a.id]);
    expect(await searchIds('cormorant')).toEqual([a.id]);
  });

  it('rebuilds a search base whose shards are damaged in place (same size, the end marker intact)', async () => {
    expect(await searchIds('pelican')).toHaveLength(1);
    const file = path.join(cacheDir(), 'search.v9');
    const bytes = fs.readFileSync(file);
    // Zero the last fifth before the end marker: the shards, which a search reads only when its query needs them.
    bytes.fill(0, Math.floor(bytes.length * 0.8), bytes.length - 8);
    fs.writeFileSync(file, bytes);
    for (const q of ['pelican', 'walrus', 'cormorant']) expect(await searchIds(q), q).toHaveLength(1);
  });

  it('sees a commit made with plain git (write a file, git add, git commit)', async () => {
    writeFile(sb, 'entries/kb-0100-narwhal-tusks.md', entryText({ id: 'kb-0100', title: 'Narwhal tusks', type: 'factual_reference', tags: ['sea'] }, 'A narwhal tusk is a tooth.'));
    await commitAll(sb, 'plain git commit');
    expect(await searchIds('narwhal')).toEqual(['kb-0100']);
    expect(await listTitles()).toContain('Narwhal tusks');
    expect((await kbj(sb, ['get', 'kb-0100'])).entries[0].text).toContain('A narwhal tusk is a tooth.');
    await expectCleanRepo(sb.data);
  });

  it('sees an uncommitted hand edit of the same size, right after the last read', async () => {
    const file = path.join(sb.data, first.path);
    expect(await searchIds('walrus')).toEqual([first.id]);
    const before = fs.readFileSync(file, 'utf8');
    // Same size, not the same text ("walrus" stays in the title, so look for the body's new word).
    const sameSize = before.replace('Prefer the walrus', 'Prefer the jaguar');
    expect(sameSize.length).toBe(before.length);
    fs.writeFileSync(file, sameSize);
    expect(await searchIds('jaguar')).toEqual([first.id]);
    const hit = (await kbj(sb, ['search', 'jaguar'])).results[0];
    expect(hit.snippet).toContain('jaguar');
  });

  it('sees a same-size edit whose mtime was put back (cp -p, tar, rsync -t keep mtimes)', async () => {
    const file = path.join(sb.data, first.path);
    expect(await searchIds('jaguar')).toEqual([first.id]);
    const st = fs.statSync(file);
    const ref = path.join(sb.root, 'mtime-ref');
    fs.writeFileSync(ref, '');
    execFileSync('touch', ['-r', file, ref]); // nanosecond-exact copy of the times
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('jaguar', 'ocelot'));
    execFileSync('touch', ['-r', ref, file]);
    expect(fs.statSync(file).size).toBe(st.size);
    expect(fs.statSync(file).mtimeMs).toBe(st.mtimeMs);
    expect(await searchIds('ocelot')).toEqual([first.id]);
    expect(await searchIds('jaguar')).toEqual([]);
  });

  it('sees an uncommitted hand edit of a different size, in search, list and get', async () => {
    const file = path.join(sb.data, first.path);
    const text = fs.readFileSync(file, 'utf8').replace('title: Walrus operator style', 'title: Walrus operator style, revised at length');
    fs.writeFileSync(file, `${text}\nA new paragraph about capybaras.\n`);
    expect(await searchIds('capybaras')).toEqual([first.id]);
    expect(await listTitles()).toContain('Walrus operator style, revised at length');
    // The hand edit stays uncommitted: reading never commits.
    expect((await sgit(sb, ['status', '--porcelain'])).trim()).toBe(`M ${first.path}`);
    await sgit(sb, ['checkout', '--', first.path]);
    expect(await searchIds('capybaras')).toEqual([]);
  });

  it('forgets a deleted entry and a file renamed away', async () => {
    await sgit(sb, ['rm', '-q', 'entries/kb-0100-narwhal-tusks.md']);
    await sgit(sb, ['commit', '-q', '-m', 'remove narwhal']);
    expect(await searchIds('narwhal')).toEqual([]);
    expect(await listTitles()).not.toContain('Narwhal tusks');
  });

  it('ignores and rebuilds a truncated or garbage cache', async () => {
    expect(await searchIds('pelican')).toHaveLength(1);
    const files = fs.readdirSync(cacheDir()).filter((f) => !f.endsWith('.lock') && !f.startsWith('.'));
    expect(files.length).toBeGreaterThan(0);
    const damage: ((f: string) => void)[] = [
      (f) => fs.truncateSync(f, 0),
      (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2)),
      (f) => fs.writeFileSync(f, 'garbage \u0000\u00ff not a cache'),
      (f) => fs.writeFileSync(f, Buffer.from([0xff, 0x0f, 0x6f, 0x22, 0x01, 0x76, 0x49, 0x06])),
    ];
    for (const hurt of damage) {
      const sizes: Record<string, number> = {};
      for (const f of files) {
        if (!fs.existsSync(path.join(cacheDir(), f))) fs.writeFileSync(path.join(cacheDir(), f), 'x'.repeat(64)); // a dropped delta
        hurt(path.join(cacheDir(), f));
        sizes[f] = fs.statSync(path.join(cacheDir(), f)).size;
      }
      expect(await searchIds('pelican')).toHaveLength(1);
      expect(await searchIds('walrus')).toEqual([first.id]);
      expect(await listTitles()).toContain('Pelican deployment notes');
      // Rebuilt: each damaged cache file was replaced by a good one (or removed: a rebuilt search base drops its delta).
      for (const f of files) {
        const st = fs.statSync(path.join(cacheDir(), f), { throwIfNoEntry: false });
        if (f === 'search-delta.v9' && !st) continue;
        expect(st?.size, f).toBeGreaterThan(sizes[f]!);
      }
      expect(fs.existsSync(path.join(cacheDir(), 'search.v9'))).toBe(true);
    }
    fs.rmSync(cacheDir(), { recursive: true });
    expect(await searchIds('pelican')).toHaveLength(1);
    await expectCleanRepo(sb.data);
  });
});
