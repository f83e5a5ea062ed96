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
import { addEntry, commitAll, entryText, initRepo, kbd, kbj, settleFolders, writeFile, type Added } from './support.js';
import { kbKilledAfter, KillWindow, seeded } from '../hostile/support.js';

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
const catalogFile = (): string => path.join(sb.data, '.git', 'git-kb', 'catalog.v8');
/** What status and list say with no summary (made from the catalog). */
const full = async (): Promise<unknown> => {
  fs.rmSync(file(), { force: true });
  return { status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) };
};
const edit = (rel: string, f: (t: string) => string): void => {
  const abs = path.join(sb.data, rel);
  fs.writeFileSync(abs, f(fs.readFileSync(abs, 'utf8')));
};

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

  it('list says on stderr that an entry file it cannot show is left out, not in --json', async () => {
    const clean = await kbd(sb, ['list']);
    expect(clean.stderr).toBe('');
    writeFile(sb, 'entries/kb-sum00003-broken.md', '---\nid: kb-sum00003\ntitle: [oops\ntype: decision\n---\n\nbody\n');
    try {
      const r = await kbd(sb, ['list']);
      expect([r.code, r.stdout]).toEqual([0, clean.stdout]);
      expect(r.stderr).toBe('git-kb: warning: 1 entry could not be read and was skipped (entries/kb-sum00003-broken.md); "git-kb lint" says why\n');
      const j = await kbd(sb, ['list', '--json']);
      expect(j.stderr).toBe('');
      expect(JSON.parse(j.stdout).unreadable).toEqual(['entries/kb-sum00003-broken.md']);
    } finally {
      fs.rmSync(path.join(sb.data, 'entries/kb-sum00003-broken.md'));
    }
    expect((await kbd(sb, ['list'])).stderr).toBe('');
  });

  it('counts problems as the catalog does (a file that does not parse, a dangling link)', async () => {
    const before = (await status()).problems;
    writeFile(sb, 'entries/kb-sum00002-bad.md', '---\nid: kb-sum00002\n---\nno title\n');
    expect((await status()).problems).toBeGreaterThan(before);
    fs.rmSync(path.join(sb.data, 'entries/kb-sum00002-bad.md'));
    expect((await status()).problems).toBe(before);
  });

  it('after hand edits in place reads only the edited files, and says what a catalog load says', async () => {
    // More entries, with links, a kernel entry, a host, a learning and one that will break.
    const c = await addEntry(sb, { type: 'lesson_learned', title: 'Patch learning', body: 'Seen twice.', extra: ['--pattern-key', 'patch-learning'] });
    const d = await addEntry(sb, { type: 'decision', title: 'Patch kernel', body: 'Kernel body.', extra: ['--kernel'] });
    const e = await addEntry(sb, { type: 'decision', title: 'Patch linker', body: 'Links.', links: [`relates_to:${c.id}`] });
    const edits: [string, (t: string) => string][] = [
      [e.path, (t) => t.replace('type: decision', 'type: pattern_convention')], // another type
      [c.path, (t) => t.replace('Seen twice.', `Seen twice. ${'much longer now '.repeat(200)}`)], // the biggest body
      [d.path, (t) => t.replace('kernel: true', 'kernel: false')], // out of the kernel
      [e.path, (t) => t.replace(/updated: .*/, 'updated: 2099-06-01T00:00:00Z')], // first in the list now
      [c.path, (t) => t.replace(/^---\n/, '---\n: : broken\n')], // no longer parses: its link target is gone
      [e.path, (t) => t.replace(/^id: .*/m, `id: ${d.id}`)], // claims another entry's id
    ];
    // Keep the summary current first, from folders last changed a while ago (the names key is recorded settled).
    settleFolders(sb);
    await kbj(sb, ['status']);
    for (const [rel, f] of edits) {
      edit(rel, f);
      const catalogIno = fs.statSync(catalogFile()).ino;
      const patched: { status: unknown; list: unknown } = { status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) };
      expect(fs.statSync(catalogFile()).ino, 'the catalog was not loaded').toBe(catalogIno);
      expect(patched).toEqual(await full());
      // and the count is the catalog's own (doctor counts catalogProblems of a loaded catalog)
      const doctor = JSON.parse((await kbd(sb, ['doctor', '--json'])).stdout) as { checks: { name: string; detail: string }[] };
      const problems = (patched.status as { problems: number }).problems;
      expect(doctor.checks.find((x) => x.name === 'lint')!.detail).toBe(problems ? `${problems} problem${problems === 1 ? '' : 's'} in the entries` : 'no problems in the entries');
      settleFolders(sb);
      await kbj(sb, ['status']); // the next round starts from a summary recorded settled again
    }
    expect((await status()).problems).toBeGreaterThan(0);
    for (const x of [c, d, e]) fs.rmSync(path.join(sb.data, x.path));
  });

  it('after files made, deleted or renamed by hand reads only those files, and says what a catalog load says', async () => {
    const x = await addEntry(sb, { type: 'decision', title: 'Relist target', body: 'Linked to.' });
    const y = await addEntry(sb, { type: 'lesson_learned', title: 'Relist body', body: 'Grows.' });
    const hand = (id: string, title: string, more: Record<string, string> = {}): string => entryText({ id, title, type: 'decision', created: '2026-01-01T00:00:00Z', updated: '2026-01-02T00:00:00Z', ...more }, `${title} body.`);
    // [what, the change on disk]
    const rounds: [string, () => void | Promise<void>][] = [
      ['a new entry, newest of all', () => writeFile(sb, 'entries/kb-rel00001-new.md', hand('kb-rel00001', 'Relist new', { updated: '2099-02-01T00:00:00Z' }))],
      ['a new file that does not parse', () => writeFile(sb, 'entries/kb-rel00002-bad.md', '---\nid: kb-rel00002\n---\nno title\n')],
      ['a new file claiming an id taken', () => writeFile(sb, 'entries/kb-rel00003-dup.md', hand(x.id, 'Relist duplicate'))],
      ['a link to an id no entry has', () => writeFile(sb, 'entries/kb-rel00004-linker.md', hand('kb-rel00004', 'Relist linker', { links: `\n  - { rel: relates_to, to: kb-rel00005 }` }))],
      ['the entry it links to, made', () => writeFile(sb, 'entries/kb-rel00005-target.md', hand('kb-rel00005', 'Relist late target'))],
      ['the duplicate deleted', () => fs.rmSync(path.join(sb.data, 'entries/kb-rel00003-dup.md'))],
      ['a renamed file', () => fs.renameSync(path.join(sb.data, y.path), path.join(sb.data, y.path.replace('.md', '-renamed.md')))],
      ['a body edit as a patch, then a new file beside it', async () => {
        edit('entries/kb-rel00005-target.md', (t) => `${t.trimEnd()}\n\nMore words.\n`);
        await kbj(sb, ['status']);
        expect(fs.existsSync(`${file()}.patch`)).toBe(true);
        writeFile(sb, 'entries/kb-rel00006-after.md', hand('kb-rel00006', 'Relist after patch'));
      }],
      ['a new host fact and a hidden file', () => {
        writeFile(sb, 'hosts/relist-box/kb-rel00007-disk.md', entryText({ id: 'kb-rel00007', title: 'Relist disk', type: 'host_fact', host: 'relist-box', created: '2026-01-01T00:00:00Z' }, 'The disk.'));
        writeFile(sb, 'entries/.kb-rel00008-hidden.md', hand('kb-rel00008', 'Relist hidden'));
      }],
      ['the link target deleted and an entry edited at once', () => {
        fs.rmSync(path.join(sb.data, 'entries/kb-rel00005-target.md'));
        edit('entries/kb-rel00001-new.md', (t) => t.replace('type: decision', 'type: pattern_convention'));
      }],
    ];
    settleFolders(sb);
    await kbj(sb, ['status']);
    for (const [what, change] of rounds) {
      await change();
      await new Promise((r) => setTimeout(r, 150)); // past SETTLED_MS: the summary is recorded under these names
      const catalogIno = fs.statSync(catalogFile()).ino;
      const relisted = { status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) };
      expect(fs.statSync(catalogFile()).ino, `${what}: the catalog was not loaded`).toBe(catalogIno);
      const summaryIno = fs.statSync(file()).ino;
      expect({ status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) }, `${what}: served again`).toEqual(relisted);
      expect(fs.statSync(file()).ino, `${what}: then served as stored`).toBe(summaryIno);
      expect(relisted, what).toEqual(await full());
      settleFolders(sb);
      await kbj(sb, ['status']);
    }
    for (const rel of ['entries/kb-rel00001-new.md', 'entries/kb-rel00002-bad.md', 'entries/kb-rel00004-linker.md', 'entries/kb-rel00006-after.md', 'hosts/relist-box/kb-rel00007-disk.md', 'entries/.kb-rel00008-hidden.md', x.path, y.path.replace('.md', '-renamed.md')]) fs.rmSync(path.join(sb.data, rel));
    await commitAll(sb, 'drop the relist test entries');
  });

  it('after the names moved serves an id claimed twice as the catalog does: the first file in path order', async () => {
    // hosts/db/ lists before hosts/db-replica/ as folders; as paths, hosts/db-replica/... comes first
    const fact = (title: string): string => entryText({ id: 'kb-dup00001', title, type: 'host_fact', created: '2026-01-01T00:00:00Z' }, 'The disk.');
    writeFile(sb, 'hosts/db/kb-dup00001-disk.md', fact('Disk of db'));
    writeFile(sb, 'hosts/db-replica/kb-dup00001-disk.md', fact('Disk of the replica'));
    await new Promise((r) => setTimeout(r, 150));
    await kbj(sb, ['status']);
    writeFile(sb, 'entries/kb-dup00002-new.md', entryText({ id: 'kb-dup00002', title: 'A new one beside them', type: 'decision', created: '2026-01-01T00:00:00Z' }, 'New.'));
    await new Promise((r) => setTimeout(r, 150));
    const catalogIno = fs.statSync(catalogFile()).ino;
    const relisted = { status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) };
    expect(fs.statSync(catalogFile()).ino, 'the catalog was not loaded').toBe(catalogIno);
    expect(JSON.stringify(relisted.list)).toContain('Disk of the replica');
    expect(relisted).toEqual(await full());
    for (const rel of ['hosts/db/kb-dup00001-disk.md', 'hosts/db-replica/kb-dup00001-disk.md', 'entries/kb-dup00002-new.md']) fs.rmSync(path.join(sb.data, rel));
    fs.rmSync(path.join(sb.data, 'hosts'), { recursive: true, force: true });
  });

  it('writes a body edit as a patch beside the summary, and says what a catalog load says', async () => {
    const patchFile = (): string => `${file()}.patch`;
    const k = await addEntry(sb, { type: 'decision', title: 'Body kernel', body: 'Kernel words.', extra: ['--kernel'] });
    const big = await addEntry(sb, { type: 'decision', title: 'Body biggest', body: `Big ${'words '.repeat(400)}` });
    const plain = await addEntry(sb, { type: 'lesson_learned', title: 'Body plain', body: 'Plain words.' });
    const host = (await kbj(sb, ['host', 'add', 'patch-box', '--title', 'Patch disk', '--', 'The disk is /dev/vdb.'])) as Added;
    const grow = (t: string): string => `${t.trimEnd()}\n\nMore words here.\n`;
    // [what, edits, whether it is written as a patch]
    const rounds: [string, [string, (t: string) => string][], boolean][] = [
      ['a plain body grows', [[plain.path, grow]], true],
      ['a kernel body and a host fact grow at once', [[k.path, grow], [host.path, grow]], true],
      ['a body grows past the biggest', [[plain.path, (t) => `${t.trimEnd()}\n${'many more words '.repeat(300)}\n`]], true],
      ['the biggest grows', [[plain.path, grow]], true],
      ['the biggest shrinks', [[plain.path, (t) => t.replace(/many more words /g, '')]], false],
      ['a body grows again after a rewrite', [[big.path, grow]], true],
      ['an edit outside the listed fields that adds a problem', [[k.path, (t) => t.replace('type: decision', 'type: decision\nurl: not a url')]], true],
      ['a title edit after a patch', [[plain.path, (t) => t.replace('title: Body plain', 'title: Body plain renamed')]], false],
    ];
    settleFolders(sb);
    let before = (await status()).problems;
    for (const [what, edits, asPatch] of rounds) {
      for (const [rel, f] of edits) edit(rel, f);
      const summaryIno = fs.statSync(file()).ino;
      const catalogIno = fs.statSync(catalogFile()).ino;
      const patched = { status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) };
      expect(fs.statSync(catalogFile()).ino, `${what}: the catalog was not loaded`).toBe(catalogIno);
      expect(fs.statSync(file()).ino === summaryIno, `${what}: the summary ${asPatch ? 'is kept' : 'is written again'}`).toBe(asPatch);
      expect(fs.existsSync(patchFile()), `${what}: a patch ${asPatch ? 'is' : 'is not'} there`).toBe(asPatch);
      const patchBytes = asPatch ? fs.readFileSync(patchFile()) : undefined;
      if (asPatch) {
        // served from the patch, then the patch thrown away: the same
        expect({ status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) }).toEqual(patched);
        fs.writeFileSync(patchFile(), '{"magic":"git-kb summary patch 1","base":"another"');
        expect({ status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) }).toEqual(patched);
      }
      expect(patched, what).toEqual(await full());
      if (what.includes('adds a problem')) expect((patched.status as { problems: number }).problems).toBe(before + 1);
      if (patchBytes) {
        // a patch left from the summary just replaced is not read as the new one's
        fs.writeFileSync(patchFile(), patchBytes);
        expect({ status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) }).toEqual(patched);
      }
      settleFolders(sb);
      before = (await status()).problems;
    }
    for (const x of [k, big, plain, host]) fs.rmSync(path.join(sb.data, x.path));
    await commitAll(sb, 'drop the patch test entries');
  });

  it('a list killed at any point after a body edit leaves the next status and list what a catalog load says', async () => {
    const added = [];
    for (let i = 0; i < 6; i++) added.push(await addEntry(sb, { type: 'decision', title: `Killed list ${i}`, body: `Body ${i}. `.repeat(10 + 40 * i), extra: i === 0 ? ['--kernel'] : [] }));
    const rnd = seeded(0x5eed);
    settleFolders(sb);
    await kbj(sb, ['status']);
    const probe = await kbKilledAfter(sb, ['--data', sb.data, 'list'], 60_000);
    const window = new KillWindow(probe.ms, 16, 0x5eed);
    let killed = 0;
    for (let n = 0; n < 16; n++) {
      const x = added[Math.floor(rnd() * added.length)]!;
      const abs = path.join(sb.data, x.path);
      fs.writeFileSync(abs, `${fs.readFileSync(abs, 'utf8').trimEnd()}\n\nRound ${n}: ${'grown '.repeat(Math.floor(rnd() * 400))}\n`);
      const k = await kbKilledAfter(sb, ['--data', sb.data, 'list'], window.delay(n));
      if (k.signal === 'SIGKILL') killed++;
      window.observe(k.signal === 'SIGKILL', k.ms);
      const after = { status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) };
      expect(after, `round ${n}`).toEqual(await full());
      settleFolders(sb);
      await kbj(sb, ['status']);
    }
    expect(killed).toBeGreaterThanOrEqual(4);
    for (const x of added) fs.rmSync(path.join(sb.data, x.path));
    await commitAll(sb, 'drop the killed-list entries');
  });

  it('writes files made since as a patch, one change on another, and says what a catalog load of a copy says', async () => {
    const patchFile = (): string => `${file()}.patch`;
    const target = await addEntry(sb, { type: 'decision', title: 'Added target', body: 'Linked to.' });
    await kbj(sb, ['host', 'add', 'added-box', '--title', 'Added disk', '--', 'The disk.']);
    const hand = (id: string, title: string, more: Record<string, string> = {}): string => entryText({ id, title, type: 'decision', created: '2026-01-01T00:00:00Z', updated: '2026-01-02T00:00:00Z', ...more }, `${title} body.`);
    // A table file named by one id that serves another, and one that does not parse: the ids they are named by
    // cannot be told from the names alone.
    writeFile(sb, 'entries/kb-add00090-odd.md', hand('kb-add00091', 'Added odd'));
    writeFile(sb, 'entries/kb-add00093-linker.md', hand('kb-add00093', 'Added table linker', { links: '\n  - { rel: relates_to, to: kb-add00051 }\n  - { rel: depends_on, to: kb-add00051 }' }));
    writeFile(sb, 'entries/kb-add00092-bad.md', '---\nid: kb-add00092\n: : broken\n---\nno front matter that parses\n');
    /** What status and list say from the catalog, on a copy without the summary (this repo's summary and patch stay). */
    const fullOfCopy = async (): Promise<unknown> => {
      const copy = fs.mkdtempSync(path.join(sb.root, 'copy-'));
      execFileSync('cp', ['-a', `${sb.data}/.`, copy]);
      fs.rmSync(path.join(copy, '.git', 'git-kb'), { recursive: true, force: true });
      const out = { status: await kbj(sb, ['status'], { data: copy }), list: await kbj(sb, ['list', '--limit', '50'], { data: copy }) };
      fs.rmSync(copy, { recursive: true, force: true });
      return JSON.parse(JSON.stringify(out).replaceAll(copy, sb.data));
    };
    let n = 0;
    const byVerb: Added[] = [];
    const made = (more: Record<string, string> = {}, title = `Added ${n}`): string => {
      const id = `kb-add${String(++n).padStart(5, '0')}`;
      writeFile(sb, `entries/${id}-made.md`, hand(id, title, more));
      return id;
    };
    // [what, the change, whether the summary is kept (a patch), else written again]
    const rounds: [string, () => void | Promise<void>, boolean][] = [
      ['a new entry, newest of all', () => void made({ updated: '2099-03-01T00:00:00Z' }), true],
      ['another, in the middle of the list', () => void made({ updated: '2026-01-01T12:00:00Z' }), true],
      ['one with no dates', () => void made({ created: undefined as unknown as string, updated: undefined as unknown as string }), true],
      ['a link to an entry of the table', () => void made({ links: `\n  - { rel: relates_to, to: ${target.id} }` }), true],
      ['a link to an id no entry has', () => void made({ links: '\n  - { rel: relates_to, to: kb-add00050 }' }), true],
      ['the entry it links to', () => writeFile(sb, 'entries/kb-add00050-late.md', hand('kb-add00050', 'Added late target')), true],
      ['the entry two links of a table file point to', () => writeFile(sb, 'entries/kb-add00051-late.md', hand('kb-add00051', 'Added later target')), true],
      ['a link to the id an odd file serves', () => void made({ links: '\n  - { rel: relates_to, to: kb-add00091 }' }), true],
      ['a kernel entry, the biggest body', () => writeFile(sb, 'entries/kb-add00060-kernel.md', entryText({ id: 'kb-add00060', title: 'Added kernel', type: 'decision', kernel: 'true', created: '2026-01-01T00:00:00Z' }, `Kernel ${'words '.repeat(500)}`)), true],
      ['a fact of a host already counted', () => writeFile(sb, 'hosts/added-box/kb-add00061-more.md', entryText({ id: 'kb-add00061', title: 'Added more', type: 'host_fact', host: 'added-box', created: '2026-01-01T00:00:00Z' }, 'More of it.')), true],
      ['two at once, one linking to the other', () => {
        made({ links: '\n  - { rel: relates_to, to: kb-add00070 }' });
        writeFile(sb, 'entries/kb-add00070-pair.md', hand('kb-add00070', 'Added pair'));
      }, true],
      ['one by git-kb add', async () => void byVerb.push(await addEntry(sb, { type: 'lesson_learned', title: 'Added by add', body: 'Made by the verb.' })), true],
      ['an added file edited', () => edit('entries/kb-add00001-made.md', (t) => t.replace('title: Added 1', 'title: Added 1 edited')), true],
      ['an added file deleted', () => fs.rmSync(path.join(sb.data, 'entries/kb-add00002-made.md')), true],
      ['a link to the id a broken file is named by', () => void made({ links: '\n  - { rel: relates_to, to: kb-add00092 }' }), false],
      ['one more after the rewrite', () => void made(), true],
      ['a fact of a new host', () => writeFile(sb, 'hosts/other-box/kb-add00080-disk.md', entryText({ id: 'kb-add00080', title: 'Added other', type: 'host_fact', host: 'other-box', created: '2026-01-01T00:00:00Z' }, 'Other.')), false],
      ['one claiming an id the table has', () => writeFile(sb, 'entries/kb-add00081-dup.md', hand(target.id, 'Added duplicate')), false],
      ['one named by an id it does not serve', () => writeFile(sb, 'entries/kb-add00082-mis.md', hand('kb-add00083', 'Added mismatch')), false],
      ['one with a pattern key', () => void made({ pattern_key: 'added-pattern' }), false],
      ['one that does not parse', () => writeFile(sb, 'entries/kb-add00084-broken.md', '---\nid: kb-add00084\n---\nno title\n'), false],
      ['a body edit of a table file', () => edit('entries/kb-add00070-pair.md', (t) => `${t.trimEnd()}\n\nMore.\n`), true],
      ['then a new one beside that patch', () => void made(), true],
      ['a table file deleted', () => fs.rmSync(path.join(sb.data, 'entries/kb-add00090-odd.md')), false],
      ['a hidden file made and removed again (the names key moved, the names did not)', () => {
        writeFile(sb, 'entries/.kb-add00095-made.md.swp', 'swap');
        fs.rmSync(path.join(sb.data, 'entries/.kb-add00095-made.md.swp'));
      }, true],
      ['and a new one after that', () => void made({ updated: '2099-04-01T00:00:00Z' }), true],
    ];
    settleFolders(sb);
    await kbj(sb, ['status']);
    for (const [what, change, asPatch] of rounds) {
      await change();
      await new Promise((r) => setTimeout(r, 150)); // past SETTLED_MS: recorded under these names
      const summaryIno = fs.statSync(file()).ino;
      const catalogIno = fs.statSync(catalogFile()).ino;
      const now = { status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) };
      expect(fs.statSync(catalogFile()).ino, `${what}: the catalog was not loaded`).toBe(catalogIno);
      expect(fs.statSync(file()).ino === summaryIno, `${what}: the summary ${asPatch ? 'is kept' : 'is written again'}`).toBe(asPatch);
      expect(fs.existsSync(patchFile()), `${what}: a patch ${asPatch ? 'is' : 'is not'} there`).toBe(asPatch);
      expect({ status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) }, `${what}: served again`).toEqual(now);
      expect(fs.statSync(file()).ino, `${what}: then served as stored`).toBe(fs.statSync(file()).ino);
      expect(now, what).toEqual(await fullOfCopy());
      expect((await kbj(sb, ['list', '--limit', '3'])).entries, `${what}: the first rows`).toEqual((now.list as { entries: unknown[] }).entries.slice(0, 3));
    }
    // A torn or foreign patch is passed over: the files it added are read again.
    const good = fs.readFileSync(patchFile());
    for (const damage of [good.subarray(0, good.length >> 1), Buffer.from(good.toString().replace('"added":[', '"added":[["x",1,2,3,4,"[0]"],'))]) {
      fs.writeFileSync(patchFile(), damage);
      expect({ status: await kbj(sb, ['status']), list: await kbj(sb, ['list', '--limit', '50']) }).toEqual(await fullOfCopy());
    }
    for (const dir of ['hosts/added-box', 'hosts/other-box']) fs.rmSync(path.join(sb.data, dir), { recursive: true, force: true });
    for (const name of fs.readdirSync(path.join(sb.data, 'entries'))) if (name.startsWith('kb-add')) fs.rmSync(path.join(sb.data, 'entries', name));
    for (const x of [target, ...byVerb]) fs.rmSync(path.join(sb.data, x.path));
    await commitAll(sb, 'drop the added-files test entries');
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
