/**
 * `get` finds its file through the id map (.git/git-kb/ids.v2) and stays right whenever the map is stale, torn or
 * gone: a hand-added file, a rename, a plain-git commit, a deleted entry, an id claimed twice. A current map
 * answers without listing the entry folder; a stale one is repaired by the scan it falls back to.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, entryText, initRepo, jsonError, kbd, kbj, sgit, writeFile, type Added } from './support.js';

let sb: Sandbox;
let a: Added;
let b: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  a = await addEntry(sb, { type: 'decision', title: 'Keep the id map small', body: 'One line per entry.' });
  b = await addEntry(sb, { type: 'decision', title: 'Second entry', body: 'Another.' });
});
afterAll(() => sb.cleanup());

const mapFile = (): string => path.join(sb.data, '.git', 'git-kb', 'ids.v2');
const mapText = (): string => fs.readFileSync(mapFile(), 'utf8');
const getText = async (id: string): Promise<string> => (await kbj(sb, ['get', id])).entries[0].text;
const getPath = async (id: string): Promise<string> => (await kbj(sb, ['get', id])).entries[0].path;

describe('get through the id map', () => {
  it('writes the map on the first lookup and keeps it current through git-kb writes', async () => {
    fs.rmSync(mapFile(), { force: true });
    expect(await getText(a.id)).toContain('One line per entry.');
    expect(mapText()).toMatch(/^git-kb ids 2 /);
    expect(mapText()).toContain(`\n${a.id}\t${a.path}\n`);
    const key = mapText().split('\n')[0];
    // An add patches the map (no scan needed afterwards): the new entry is in it, under the folders' new key.
    const c = await addEntry(sb, { title: 'Third entry', body: 'Third.' });
    expect(mapText()).toContain(`\n${c.id}\t${c.path}\n`);
    expect(mapText().split('\n')[0]).not.toBe(key);
    expect(await getText(c.id)).toContain('Third.');
  });

  it('answers from a current map without a scan, and scans once after a folder changed', async () => {
    await kbd(sb, ['get', a.id]);
    const ino = (): number => fs.statSync(mapFile()).ino;
    // A scan rewrites the map (a new file by rename); a lookup served by the map leaves it alone.
    const first = ino();
    expect(await getText(a.id)).toContain('One line per entry.');
    expect(await getText(b.id)).toContain('Another.');
    expect(ino()).toBe(first);
    writeFile(sb, 'entries/kb-mapped01-new-file.md', entryText({ id: 'kb-mapped01', title: 'New file', type: 'decision' }, 'new body'));
    expect(await getText(a.id)).toContain('One line per entry.'); // the folder moved: scan, repair
    const second = ino();
    expect(second).not.toBe(first);
    expect(mapText()).toContain('\nkb-mapped01\tentries/kb-mapped01-new-file.md\n');
    expect(await getText('kb-mapped01')).toContain('new body');
    expect(ino()).toBe(second);
    fs.rmSync(path.join(sb.data, 'entries/kb-mapped01-new-file.md'));
    const gone = await kbd(sb, ['get', 'kb-mapped01', '--json']);
    expect(jsonError(gone)).toMatchObject({ code: 'NOT_FOUND' });
    expect(mapText()).not.toContain('kb-mapped01');
  });

  it('sees a hand-added file, a rename and a plain-git commit', async () => {
    writeFile(sb, 'entries/kb-hand0001-hand-added.md', entryText({ id: 'kb-hand0001', title: 'Hand added', type: 'decision' }, 'by hand'));
    expect(await getText('kb-hand0001')).toContain('by hand');
    // Rename a's file (a new slug): the mapped path is gone, the scan finds the new one.
    const renamed = a.path.replace(/\.md$/, '-renamed.md');
    fs.renameSync(path.join(sb.data, a.path), path.join(sb.data, renamed));
    expect(await getPath(a.id)).toBe(renamed);
    expect(mapText()).toContain(`\n${a.id}\t${renamed}\n`);
    expect(mapText()).not.toContain(`\n${a.id}\t${a.path}\n`);
    await commitAll(sb, 'plain git: hand-added entry and a rename');
    writeFile(sb, 'entries/kb-plain001-plain-git.md', entryText({ id: 'kb-plain001', title: 'Plain git', type: 'decision' }, 'plain body'));
    await commitAll(sb, 'plain git commit');
    expect(await getText('kb-plain001')).toContain('plain body');
  });

  it('does not serve a mapped path whose file is gone or claims another id, even when the key still matches', async () => {
    // The map is tampered with in place, keeping every byte length (its bucket offsets stay right) and its key.
    const other = `${b.id.slice(0, -1)}${b.id.endsWith('q') ? 'r' : 'q'}`;
    const otherPath = b.path.replace(b.id, other);
    writeFile(sb, otherPath, entryText({ id: other, title: 'Other id', type: 'decision' }, 'other body'));
    await kbd(sb, ['get', b.id]); // repair after the new file
    const gonePath = b.path.replace(/-[^/]*\.md$/, (m) => `-${'x'.repeat(m.length - 4)}.md`);
    for (const fake of [gonePath, otherPath]) {
      expect(fake.length).toBe(b.path.length);
      const before = mapText();
      expect(before).toContain(`\n${b.id}\t${b.path}\n`);
      fs.writeFileSync(mapFile(), before.replace(`\n${b.id}\t${b.path}\n`, `\n${b.id}\t${fake}\n`));
      expect(await getPath(b.id)).toBe(b.path);
      expect(mapText()).toContain(`\n${b.id}\t${b.path}\n`); // repaired by the scan
    }
    fs.rmSync(path.join(sb.data, otherPath));
  });

  it('reports an id claimed twice, and an unknown id, as before', async () => {
    await kbd(sb, ['get', b.id]);
    writeFile(sb, `entries/${b.id}-a-copy.md`, fs.readFileSync(path.join(sb.data, b.path)));
    const r = await kbd(sb, ['get', b.id, '--json']);
    expect(jsonError(r)).toMatchObject({ code: 'CONFLICT' });
    fs.rmSync(path.join(sb.data, `entries/${b.id}-a-copy.md`));
    const miss = await kbd(sb, ['get', 'kb-nothere1', '--json']);
    expect(jsonError(miss)).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('ignores a torn, garbage or missing map', async () => {
    for (const damage of ['', 'garbage\n', mapText().slice(0, Math.floor(mapText().length / 2)), 'git-kb ids 1 nope\nkb-x\t../../etc/passwd\n']) {
      fs.writeFileSync(mapFile(), damage);
      expect(await getText(b.id)).toContain('Another.');
      expect(mapText()).toContain(`\n${b.id}\t${b.path}\n`);
    }
    fs.rmSync(path.join(sb.data, '.git', 'git-kb'), { recursive: true, force: true });
    expect(await getText(b.id)).toContain('Another.');
    expect((await sgit(sb, ['status', '--porcelain'])).trim()).toBe('');
  });
});
