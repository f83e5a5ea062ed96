// The read-ahead worker of a rebuild (src/adapters/store/read-ahead.ts): each file's bytes in the order asked,
// across batches; a link, a missing file or a folder it cannot read comes back undefined (the caller then reads
// it with its own checks); and a catalog loaded with it is the one loaded without it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAhead } from '../src/adapters/store/read-ahead.js';
import { loadCatalog } from '../src/adapters/index/catalog.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-read-ahead-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('readAhead', () => {
  it('hands each file over in order, across batches, and undefined for what it cannot read plainly', () => {
    const dir = path.join(root, 'files');
    fs.mkdirSync(dir);
    const paths: string[] = [];
    const want: (string | undefined)[] = [];
    for (let i = 0; i < 700; i++) {
      const p = path.join(dir, `f${i}.md`);
      if (i === 5) {
        fs.writeFileSync(path.join(dir, 'target.md'), 'linked');
        fs.symlinkSync(path.join(dir, 'target.md'), p); // a link: the caller's to judge
        want.push(undefined);
      } else if (i === 300) {
        want.push(undefined); // missing
      } else {
        const text = i === 7 ? '' : `file ${i} ${'é'.repeat(i % 50)}\n`;
        fs.writeFileSync(p, text);
        want.push(text);
      }
      paths.push(p);
    }
    const ahead = readAhead(paths)!;
    expect(ahead).toBeDefined();
    const got = paths.map(() => ahead.next()?.toString('utf8'));
    expect(got).toEqual(want);
    expect(ahead.next()).toBeUndefined(); // past the end
    ahead.close();
  });

  it('after close, every file comes back undefined (the caller reads them)', () => {
    const p = path.join(root, 'one.md');
    fs.writeFileSync(p, 'one');
    const ahead = readAhead([p, p, p])!;
    expect(ahead.next()?.toString()).toBe('one');
    ahead.close();
    expect(ahead.next()).toBeUndefined();
  });

  it('a catalog rebuilt with it (2,000 files and more) is the one rebuilt file by file', async () => {
    const repo = path.join(root, 'repo');
    fs.mkdirSync(path.join(repo, '.git', 'git-kb'), { recursive: true });
    fs.mkdirSync(path.join(repo, 'entries'));
    for (let i = 0; i < 2100; i++) {
      const id = `kb-${i.toString(36).padStart(6, '0')}aaaa`;
      const text = i % 97 === 0 ? 'no front matter\n' : `---\nid: ${id}\ntitle: Note ${i}\ntype: decision\ntags: [t${i % 7}]\ncreated: 2026-01-01\n---\n\nBody ${i} [[kb-000001aaaa]]\n`;
      fs.writeFileSync(path.join(repo, 'entries', `${id}-note-${i}.md`), text);
    }
    fs.symlinkSync('/etc/hostname', path.join(repo, 'entries', 'kb-zzzzzzaaaa-escapes.md')); // a link out of the repo
    // a host folder that is a link out of the repo: its files are never opened ahead, and refused as before
    const outside = path.join(root, 'outside');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'kb-yyyyyyaaaa-outside.md'), '---\nid: kb-yyyyyyaaaa\ntitle: Outside\ntype: host_fact\nhost: far\n---\n\nbody\n');
    fs.mkdirSync(path.join(repo, 'hosts'));
    fs.symlinkSync(outside, path.join(repo, 'hosts', 'far'));
    const withAhead = await loadCatalog(repo, { writeCache: false });
    // file by file: the same files, read one at a time through the catalog's own path
    const { readItem } = await import('../src/adapters/index/catalog.js');
    const { parseEntry } = await import('../src/core/format/entry.js');
    const { listEntryFiles } = await import('../src/adapters/store/layout.js');
    const oneByOne = listEntryFiles(repo).map((f) => readItem(repo, f, parseEntry));
    oneByOne.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    expect(withAhead.items.length).toBe(oneByOne.length);
    expect(withAhead.items.length).toBeGreaterThanOrEqual(2101);
    expect(JSON.stringify(withAhead.items)).toBe(JSON.stringify(oneByOne));
    expect(withAhead.items.find((i) => i.path.endsWith('escapes.md'))!.problems[0]!.rule).toBe('unreadable');
  });
});
