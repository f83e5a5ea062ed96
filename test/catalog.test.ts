/**
 * The catalog: every entry's front matter, derived from disk and never stale. Only changed files are re-read
 * (changed meaning any of size, mtime, ctime, inode), a damaged cache is rebuilt, and problems, duplicates and
 * ordering are reported from it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { catalogProblems, loadCatalog, newestFirst } from '../src/adapters/index/catalog.js';

let dir: string;
const put = (rel: string, content: string | Buffer): void => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), content);
};
const entry = (id: string, title: string, extra = '', body = 'Body.'): string => `---\nid: ${id}\ntitle: ${title}\ntype: decision\n${extra}---\n\n${body}\n`;
const cacheFile = (): string => path.join(dir, '.git', 'git-kb', 'catalog.v8');

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-catalog-'));
  fs.mkdirSync(path.join(dir, '.git'));
  put('entries/kb-0001-a.md', entry('kb-0001', 'Alpha', 'updated: 2024-01-01\n'));
  put('entries/kb-0002-b.md', entry('kb-0002', 'Beta', 'updated: 2024-03-01\nlinks:\n  - rel: relates_to\n    to: kb-0001\n'));
  put('hosts/web-1/kb-0003-c.md', '---\nid: kb-0003\ntitle: Gamma\ntype: host_fact\nhost: web-1\nupdated: 2024-02-01\n---\n');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('loadCatalog', () => {
  it('reads every entry once, then serves unchanged files from the cache', async () => {
    const first = await loadCatalog(dir);
    expect([...first.byId.keys()].sort()).toEqual(['kb-0001', 'kb-0002', 'kb-0003']);
    expect(first.reparsed.sort()).toEqual(['entries/kb-0001-a.md', 'entries/kb-0002-b.md', 'hosts/web-1/kb-0003-c.md']);
    expect(fs.existsSync(cacheFile())).toBe(true);
    expect(first.byId.get('kb-0002')).toMatchObject({ title: 'Beta', links: [{ rel: 'relates_to', to: 'kb-0001' }], path: 'entries/kb-0002-b.md', bodyLength: 6 });
    expect(first.byId.get('kb-0002')).not.toHaveProperty('body');
    const second = await loadCatalog(dir);
    expect(second.reparsed).toEqual([]);
    expect(second.fingerprint).toBe(first.fingerprint);
    expect([...second.byId.values()]).toEqual([...first.byId.values()]);
  });

  it('re-reads exactly the changed files: edited (other size, same size, mtime put back), added, removed', async () => {
    const first = await loadCatalog(dir);
    put('entries/kb-0001-a.md', entry('kb-0001', 'Alpha renamed'));
    put('entries/kb-0004-d.md', entry('kb-0004', 'Delta'));
    fs.rmSync(path.join(dir, 'hosts/web-1/kb-0003-c.md'));
    const second = await loadCatalog(dir);
    expect(second.reparsed.sort()).toEqual(['entries/kb-0001-a.md', 'entries/kb-0004-d.md']);
    expect(second.fingerprint).not.toBe(first.fingerprint);
    expect([...second.byId.keys()].sort()).toEqual(['kb-0001', 'kb-0002', 'kb-0004']);
    expect(second.byId.get('kb-0001')!.title).toBe('Alpha renamed');

    // Same size, same mtime (restored with touch -r), only the content and the ctime differ.
    const file = path.join(dir, 'entries/kb-0002-b.md');
    const ref = path.join(dir, '.git', 'ref');
    fs.writeFileSync(ref, '');
    execFileSync('touch', ['-r', file, ref]);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Beta', 'Bexa'));
    execFileSync('touch', ['-r', ref, file]);
    const third = await loadCatalog(dir);
    expect(third.reparsed).toEqual(['entries/kb-0002-b.md']);
    expect(third.byId.get('kb-0002')!.title).toBe('Bexa');
  });

  it('ignores and rebuilds a truncated, garbage or foreign cache, and can leave the cache alone', async () => {
    await loadCatalog(dir);
    for (const damage of [Buffer.alloc(0), Buffer.from('garbage'), fs.readFileSync(cacheFile()).subarray(0, 20), Buffer.from([0xff, 0x0f, 0x6f, 0x22, 0x01, 0x76, 0x49, 0x01])]) {
      fs.writeFileSync(cacheFile(), damage);
      const c = await loadCatalog(dir);
      expect(c.reparsed).toHaveLength(3);
      expect(c.byId.size).toBe(3);
      expect((await loadCatalog(dir)).reparsed).toEqual([]);
    }
    fs.rmSync(path.join(dir, '.git', 'git-kb'), { recursive: true });
    await loadCatalog(dir, { writeCache: false });
    expect(fs.existsSync(cacheFile())).toBe(false);
  });

  it('keeps files that do not parse as items with problems, and serves the rest', async () => {
    put('entries/kb-0005-bad.md', '---\nid: kb-0005\ntitle: [\n---\n');
    put('entries/kb-0006-bin.md', Buffer.from([0, 1, 2]));
    const c = await loadCatalog(dir);
    expect(c.byId.size).toBe(3);
    const bad = c.items.find((i) => i.path === 'entries/kb-0005-bad.md')!;
    expect(bad.entry).toBeUndefined();
    expect(bad.problems).toEqual([expect.objectContaining({ rule: 'parse', line: 3, file: 'entries/kb-0005-bad.md' })]);
    expect(c.items.find((i) => i.path === 'entries/kb-0006-bin.md')!.problems[0]).toMatchObject({ rule: 'unreadable', line: 1 });
  });
});

describe('catalogProblems and newestFirst', () => {
  it('lists each file problem, dangling links and ids claimed twice', async () => {
    put('entries/kb-0007-x.md', entry('kb-0007', 'Dangles', 'links:\n  - rel: mentions\n    to: kb-0404\n'));
    put('entries/kb-0001-copy.md', entry('kb-0001', 'Alpha again'));
    put('entries/kb-0008-y.md', entry('kb-0008', 'Unknown type').replace('type: decision', 'type: musing'));
    const c = await loadCatalog(dir);
    expect(c.duplicates.get('kb-0001')).toEqual(['entries/kb-0001-a.md', 'entries/kb-0001-copy.md']);
    expect(c.byId.get('kb-0001')!.path).toBe('entries/kb-0001-a.md');
    const problems = catalogProblems(c);
    expect(problems.filter((p) => p.rule === 'link-dangling').map((p) => p.file)).toEqual(['entries/kb-0007-x.md']);
    expect(problems.filter((p) => p.rule === 'id-duplicate').map((p) => p.file).sort()).toEqual(['entries/kb-0001-a.md', 'entries/kb-0001-copy.md']);
    expect(problems.some((p) => p.rule === 'type-unknown' && p.file === 'entries/kb-0008-y.md')).toBe(true);
  });

  it('orders by updated, else created, newest first, then by id', async () => {
    put('entries/kb-0009-z.md', entry('kb-0009', 'Created only', 'created: 2024-02-15\n'));
    put('entries/kb-0010-z.md', entry('kb-0010', 'No dates'));
    put('entries/kb-0011-z.md', entry('kb-0011', 'No dates either'));
    const c = await loadCatalog(dir);
    expect(newestFirst(c.byId.values()).map((e) => e.id)).toEqual(['kb-0002', 'kb-0009', 'kb-0003', 'kb-0001', 'kb-0011', 'kb-0010']);
  });
});
