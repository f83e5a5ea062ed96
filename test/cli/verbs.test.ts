/**
 * The verbs of a vault people live in: `delete` (one commit; refused while other entries link to it, unless
 * --force, which reports what it leaves dangling), `tags` (counts, most used first), `adopt` (a note made in
 * Obsidian becomes an entry in place) and `commit` (hand edits that lint clean, in one commit; secrets and
 * broken files refused with nothing committed; .obsidian/ ignored).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRET_BATTERY } from '../fixtures/secrets.js';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, commitCount, expectUnchanged, initRepo, jsonError, kbd, kbj, sgit, snapshot, subjects, treePaths, writeFile } from './support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

describe('delete', () => {
  it('removes an entry in one commit', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const a = await addEntry(sb, { title: 'To be deleted', body: 'Gone soon.' });
    const n = await commitCount(sb);
    const r = await kbj(sb, ['delete', a.id]);
    expect(r).toMatchObject({ deleted: [{ id: a.id, path: a.path }], dangling: [] });
    expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await subjects(sb))[0]).toBe(`delete ${a.id}`);
    expect(fs.existsSync(path.join(sb.data, a.path))).toBe(false);
    expect((await kbd(sb, ['get', a.id])).code).toBe(3);
    await expectCleanRepo(sb.data);
  });

  it('refuses (exit 4) while other entries link to it, listing file:line; --force deletes and reports the dangling links', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const target = await addEntry(sb, { title: 'Linked to' });
    const typed = await addEntry(sb, { title: 'Typed link', links: [`relates_to:${target.id}`] });
    const body = await addEntry(sb, { title: 'Body link', body: `See [[${target.id}]].` });
    const before = await snapshot(sb);
    const r = await kbd(sb, ['delete', target.id]);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`${typed.path}:`);
    expect(r.stderr).toContain(`${body.path}:`);
    expect(r.stderr).toContain('--force');
    const j = await kbd(sb, ['--json', 'delete', target.id]);
    const err = jsonError(j);
    expect(err.code).toBe('CONFLICT');
    expect((err.data?.links as { file: string }[]).map((l) => l.file).sort()).toEqual([typed.path, body.path].sort());
    await expectUnchanged(sb, before);

    const forced = await kbj(sb, ['delete', target.id, '--force']);
    expect(forced.dangling.map((d: { from: string }) => d.from).sort()).toEqual([typed.id, body.id].sort());
    expect(forced.dangling.find((d: { from: string }) => d.from === body.id)).toMatchObject({ file: body.path, to: target.id, line: expect.any(Number) });
    const lint = await kbd(sb, ['--json', 'lint']);
    expect(lint.code).toBe(5);
    expect(JSON.parse(lint.stdout).problems.map((p: { rule: string }) => p.rule)).toEqual(['link-dangling', 'link-dangling']);
    await expectCleanRepo(sb.data);
  });

  it('deletes several entries in one commit, links among them not counted; an unknown id writes nothing (exit 3)', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const a = await addEntry(sb, { title: 'First' });
    const b = await addEntry(sb, { title: 'Second', links: [`part_of:${a.id}`] });
    const before = await snapshot(sb);
    expect((await kbd(sb, ['delete', a.id, 'kb-zz0000nope'])).code).toBe(3);
    await expectUnchanged(sb, before);
    const r = await kbj(sb, ['delete', a.id, b.id]);
    expect(r.deleted).toHaveLength(2);
    expect(await commitCount(sb)).toBe(Number((await sgit(sb, ['rev-list', '--count', before.head])).trim()) + 1);
    expect(await treePaths(sb)).toEqual([]);
    await expectCleanRepo(sb.data);
  });
});

describe('tags', () => {
  it('counts each tag, most used first, then by name; --json', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    await addEntry(sb, { title: 'One', tags: 'git,shell' });
    await addEntry(sb, { title: 'Two', tags: 'shell,zsh' });
    await addEntry(sb, { title: 'Three', tags: 'shell,git,awk' });
    const r = await kbj(sb, ['tags']);
    expect(r.tags).toEqual([
      { tag: 'shell', count: 3 },
      { tag: 'git', count: 2 },
      { tag: 'awk', count: 1 },
      { tag: 'zsh', count: 1 },
    ]);
    const text = await kbd(sb, ['tags']);
    expect(text.stdout.split('\n').slice(0, 2)).toEqual(['3  shell', '2  git']);
  });
});

describe('adopt', () => {
  it('turns a note with no front matter into an entry in place: id, title from the heading, type, canonical path, one commit', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    writeFile(sb, 'entries/Untitled.md', '# Redis eviction\n\nallkeys-lru evicts any key.\n');
    const lint = await kbd(sb, ['lint']);
    expect(lint.code).toBe(5);
    expect(lint.stdout).toContain('git-kb adopt entries/Untitled.md');
    const n = await commitCount(sb);
    const r = await kbj(sb, ['adopt']);
    expect(r.adopted).toHaveLength(1);
    const a = r.adopted[0];
    expect(a).toMatchObject({ from: 'entries/Untitled.md', title: 'Redis eviction', type: 'factual_reference' });
    expect(a.path).toBe(`entries/${a.id}-redis-eviction.md`);
    expect(fs.existsSync(path.join(sb.data, 'entries/Untitled.md'))).toBe(false);
    const text = fs.readFileSync(path.join(sb.data, a.path), 'utf8');
    expect(text).toMatch(new RegExp(`^---\\nid: ${a.id}\\ntitle: Redis eviction\\ntype: factual_reference\\n`));
    expect(text).toContain('allkeys-lru evicts any key.');
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await kbd(sb, ['lint'])).code).toBe(0);
    await expectCleanRepo(sb.data);
  });

  it('with no paths, passes over a hand-made file that already has an id (and names it), adopting the rest', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    writeFile(sb, 'entries/handmade.md', '---\nid: kb-handmade01\ntitle: Handmade\ntype: decision\n---\n\nx\n');
    writeFile(sb, 'entries/bom.md', '\uFEFF---\r\nid: kb-handmade02\r\ntitle: With a BOM\r\ntype: decision\r\n---\r\n\r\nx\r\n');
    writeFile(sb, 'entries/Untitled.md', 'Just a note from Obsidian\n');
    // Before: "entries/handmade.md already has an id" (exit 2), and Untitled.md was not adopted either.
    const r = await kbj(sb, ['adopt']);
    expect(r.adopted.map((a: { from: string }) => a.from)).toEqual(['entries/Untitled.md']);
    expect(r.skipped).toEqual([
      { path: 'entries/bom.md', reason: expect.stringMatching(/^it already has an id \(kb-handmade02\)/) },
      { path: 'entries/handmade.md', reason: expect.stringMatching(/^it already has an id \(kb-handmade01\)/) },
    ]);
    expect(fs.readFileSync(path.join(sb.data, 'entries/handmade.md'), 'utf8')).toContain('id: kb-handmade01');
    const again = await kbd(sb, ['adopt']);
    expect([again.code, again.stdout]).toEqual([0, 'skipped entries/bom.md: it already has an id (kb-handmade02): an entry, not a note to adopt; "git-kb lint" says what is wrong with it\nskipped entries/handmade.md: it already has an id (kb-handmade01): an entry, not a note to adopt; "git-kb lint" says what is wrong with it\nnothing to adopt: every note in the entry folders is an entry\n']);
  });

  it('takes a path (anywhere in the repo, tracked or not), --type, the file name as title, and keeps front matter fields', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    writeFile(sb, 'Inbox/Postgres queue.md', 'SKIP LOCKED makes a queue.\n');
    writeFile(sb, 'entries/Tracked note.md', '---\ntags: [Data Stores]\nsource: obsidian\n---\nA tracked note.\n');
    await commitAll(sb, 'notes by hand');
    expect((await kbd(sb, ['lint'])).stdout).toContain('missing "id" field; a note made outside git-kb becomes an entry with "git-kb adopt entries/Tracked note.md"');
    const r = await kbj(sb, ['adopt', 'Inbox/Postgres queue.md', path.join(sb.data, 'entries/Tracked note.md'), '--type', 'pattern_convention']);
    expect(r.adopted.map((x: { title: string }) => x.title)).toEqual(['Postgres queue', 'Tracked note']);
    expect(r.adopted.every((x: { type: string }) => x.type === 'pattern_convention')).toBe(true);
    const tracked = fs.readFileSync(path.join(sb.data, r.adopted[1].path), 'utf8');
    expect(tracked).toContain('source: obsidian');
    expect(tracked).toContain('tags: [data-stores]');
    expect(await treePaths(sb, 'Inbox')).toEqual([]);
    expect((await treePaths(sb)).sort()).toEqual(r.adopted.map((x: { path: string }) => x.path).sort());
    await expectCleanRepo(sb.data);
  });

  it('refuses an entry, a secret, a bad type or a missing file, adopting nothing', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const e = await addEntry(sb, { title: 'Already an entry' });
    writeFile(sb, 'entries/Secret.md', `# Keys\n\n${SECRET_BATTERY[0]!.text}\n`);
    writeFile(sb, 'entries/Fine.md', '# Fine\n\nok\n');
    const before = await snapshot(sb);
    expect((await kbd(sb, ['adopt', e.path])).code).toBe(2);
    const s = await kbd(sb, ['--json', 'adopt']);
    expect(s.code).toBe(5);
    expect(jsonError(s).code).toBe('SECRET_DETECTED');
    expect(s.stderr).not.toContain(SECRET_BATTERY[0]!.secret);
    expect((await kbd(sb, ['adopt', 'entries/Fine.md', '--type', 'memo'])).code).toBe(2);
    expect((await kbd(sb, ['adopt', 'entries/Nope.md'])).code).toBe(3);
    await expectUnchanged(sb, before);
  });
});

describe('commit', () => {
  it('commits hand edits (modified, new, deleted entry files) in one commit, and writes a .gitignore for .obsidian/', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const a = await addEntry(sb, { title: 'Edited by hand', body: 'Old.' });
    const b = await addEntry(sb, { title: 'Deleted by hand' });
    fs.appendFileSync(path.join(sb.data, a.path), '\nA line added in Obsidian.\n');
    fs.rmSync(path.join(sb.data, b.path));
    writeFile(sb, 'entries/kb-0007-written-by-hand.md', '---\nid: kb-0007\ntitle: Written by hand\ntype: decision\n---\n\nNew.\n');
    writeFile(sb, '.obsidian/workspace.json', '{}');
    const n = await commitCount(sb);
    const r = await kbd(sb, ['commit', '-m', 'notes from Obsidian']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^modified +${a.path}$`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^deleted +${b.path}$`, 'm'));
    expect(r.stdout).toMatch(/^added +entries\/kb-0007-written-by-hand\.md$/m);
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await subjects(sb))[0]).toBe('notes from Obsidian');
    expect(fs.readFileSync(path.join(sb.data, '.gitignore'), 'utf8')).toMatch(/^\.obsidian\/$/m);
    await expectCleanRepo(sb.data);
    const again = await kbj(sb, ['commit']);
    expect(again).toEqual({ files: [], gitignore: false });
    expect(await commitCount(sb)).toBe(n + 1);
  });

  it('commits nothing when any file fails (problems with file:line) or holds a secret', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const a = await addEntry(sb, { title: 'Good edit' });
    const c = await addEntry(sb, { title: 'Bad edit' });
    fs.appendFileSync(path.join(sb.data, a.path), '\nFine.\n');
    const cText = fs.readFileSync(path.join(sb.data, c.path), 'utf8');
    fs.writeFileSync(path.join(sb.data, c.path), cText.replace(/^type: .*$/m, 'type: memo'));
    const before = await snapshot(sb);
    const r = await kbd(sb, ['--json', 'commit']);
    expect(r.code).toBe(5);
    expect(jsonError(r).data?.problems).toEqual([expect.objectContaining({ rule: 'type-unknown', file: c.path, line: 4 })]);
    fs.writeFileSync(path.join(sb.data, c.path), cText);
    fs.appendFileSync(path.join(sb.data, c.path), `\n${SECRET_BATTERY[0]!.text}\n`);
    const s = await kbd(sb, ['--json', 'commit']);
    expect(s.code).toBe(5);
    expect(jsonError(s).code).toBe('SECRET_DETECTED');
    expect(s.stderr).not.toContain(SECRET_BATTERY[0]!.secret);
    expect((await snapshot(sb)).head).toBe(before.head);
    // A deletion that would leave another entry's link dangling is refused too.
    fs.writeFileSync(path.join(sb.data, c.path), cText);
    const linker = await addEntry(sb, { title: 'Linker', links: [`relates_to:${a.id}`] });
    fs.rmSync(path.join(sb.data, a.path));
    const d = await kbd(sb, ['--json', 'commit']);
    expect(d.code).toBe(5);
    expect(jsonError(d).data?.problems).toEqual([expect.objectContaining({ rule: 'link-dangling', file: linker.path })]);
  });
});
