/**
 * Links Obsidian follows (spec/entry-format.md, "Links"): every `[[…]]` git-kb writes (add --link, edit, relink,
 * a sync merge) resolves by Obsidian's rules (test/helpers/obsidian.ts, written apart from the product); typed
 * `links:` are shown in a generated Links section that add/edit/sync keep in step, lint checks, and traversal
 * never counts twice; v1 links `[[kb-0042]]` keep working and `relink` brings them to the file-name form.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, git, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { unresolvedLinks } from '../helpers/obsidian.js';
import { addEntry, commitAll, commitCount, entryText, expectUnchanged, initRepo, kbd, kbj, snapshot, writeFile } from './support.js';

let sandboxes: Sandbox[] = [];
let server: GitServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  for (const sb of sandboxes.splice(0)) sb.cleanup();
});

function sandbox(): Sandbox {
  const sb = makeSandbox('gkb-links-');
  sandboxes.push(sb);
  return sb;
}

const read = (sb: Sandbox, rel: string): string => fs.readFileSync(path.join(sb.data, rel), 'utf8');
const SECTION_OPEN = '<!-- git-kb links: generated from the "links" field above; change that field (or git-kb edit --link/--unlink), not these lines -->';

/** Asserts Obsidian resolves every link in the data repo, and returns how many there are. */
function expectAllResolve(sb: Sandbox): number {
  const { links, unresolved } = unresolvedLinks(sb.data);
  expect(unresolved, JSON.stringify(unresolved, null, 1)).toEqual([]);
  return links.length;
}

describe('links git-kb writes', () => {
  it('add --link and edit write links Obsidian resolves; the Links section follows links:, get --links counts each once', async () => {
    const sb = sandbox();
    await initRepo(sb);
    const t = await addEntry(sb, { type: 'decision', title: 'Use pnpm for workspaces', body: '# Head\n\nWhy pnpm.' });
    const u = await addEntry(sb, { type: 'lesson_learned', title: 'Lockfiles drift', body: 'Pin them.' });
    const s = await addEntry(sb, {
      title: 'Monorepo tooling',
      links: [`relates_to:${t.id}`],
      body: `See [[${t.id}]], [[${t.id}|the pnpm decision]], [[${t.id}#Head]] and ![[${t.id}]]. Code stays: \`[[${t.id}]]\`.`,
    });
    const text = read(sb, s.path);
    const tName = path.basename(t.path, '.md');
    expect(text).toContain(`See [[${tName}|${t.id}]], [[${tName}|the pnpm decision]], [[${tName}#Head|${t.id}]] and ![[${tName}|${t.id}]].`);
    expect(text).toContain(`\`[[${t.id}]]\``); // code is not a link: left as typed
    expect(text).toContain(`${SECTION_OPEN}\n## Links\n\n- relates_to: [[${tName}|Use pnpm for workspaces]]\n<!-- git-kb links end -->\n`); // the title is what Obsidian shows
    expect(text.trimEnd().endsWith('<!-- git-kb links end -->')).toBe(true);

    // edit: add a link, append text with a v1-form link, remove a link, rename the target by title.
    expect((await kbd(sb, ['edit', s.id, '--link', `depends_on:${u.id}`])).code).toBe(0);
    expect((await kbd(sb, ['edit', s.id, '--append', `Also [[${u.id}]].`])).code).toBe(0);
    let after = read(sb, s.path);
    const uName = path.basename(u.path, '.md');
    expect(after).toContain(`Also [[${uName}|${u.id}]].\n\n${SECTION_OPEN}`); // appended above the section, never inside it
    expect(after).toContain(`- relates_to: [[${tName}|Use pnpm for workspaces]]\n- depends_on: [[${uName}|Lockfiles drift]]\n`);
    expect((await kbd(sb, ['edit', s.id, '--unlink', t.id])).code).toBe(0);
    after = read(sb, s.path);
    expect(after).not.toContain(`- relates_to:`);
    expect(after.match(/<!-- git-kb links:/g)).toHaveLength(1);
    // A retitle keeps the file name, so links to it stay valid.
    const re = await kbj(sb, ['edit', t.id, '--title', 'Use pnpm everywhere']);
    expect(re.path).toBe(t.path);
    expect(fs.existsSync(path.join(sb.data, t.path))).toBe(true);
    // --body replaces the person's text; the section is the tool's and stays.
    expect((await kbd(sb, ['edit', u.id, '--body', `Back to [[${s.id}|monorepo]].`])).code).toBe(0);
    expect(read(sb, u.path)).toContain(`Back to [[${path.basename(s.path, '.md')}|monorepo]].`);

    expect(expectAllResolve(sb)).toBeGreaterThanOrEqual(7);
    const lint = await kbj(sb, ['lint']);
    expect(lint).toEqual({ ok: true, files: 3, problems: [] });
    // Front matter, body links and the section name u; get --links lists the typed link once (not again for the
    // body's [[u]] or the section), then what the body alone links to (t), then who links here (u's body).
    const got = (await kbj(sb, ['get', s.id, '--links'])).entries[0].links;
    expect(got).toEqual([
      { id: u.id, title: 'Lockfiles drift', rel: 'depends_on', direction: 'out' },
      { id: t.id, title: 'Use pnpm everywhere', rel: 'body', direction: 'out' },
      { id: u.id, title: 'Lockfiles drift', rel: 'body', direction: 'in' },
    ]);
    // Search does not find an entry by the words of the file names its links carry (only as a linked neighbour).
    const found = await kbj(sb, ['search', 'lockfiles']);
    expect(found.results[0].id).toBe(u.id);
    for (const hit of found.results) if (hit.id === s.id) expect(hit.via).toBeDefined();
    await expectCleanRepo(sb.data);
  });
});

describe('a retitle', () => {
  it('shows the new title in the Links section of every entry linking to it, in the same commit, their dates untouched', async () => {
    const sb = sandbox();
    await initRepo(sb);
    const t = await addEntry(sb, { type: 'decision', title: 'Use pnpm for workspaces', body: 'Why pnpm.' });
    const s1 = await addEntry(sb, { title: 'Monorepo tooling', links: [`relates_to:${t.id}`], body: 'Tools.' });
    const s2 = await addEntry(sb, { type: 'lesson_learned', title: 'Lockfiles drift', links: [`depends_on:${t.id}`], body: 'Pin them.' });
    const other = await addEntry(sb, { title: 'Unrelated', body: 'Nothing to do with it.' });
    const tName = path.basename(t.path, '.md');
    const before = { s1: read(sb, s1.path), s2: read(sb, s2.path), other: read(sb, other.path) };
    const commits = await commitCount(sb);

    const r = await kbj(sb, ['edit', t.id, '--title', 'Use pnpm everywhere']);
    expect(r.relinked?.sort()).toEqual([s1.path, s2.path].sort());
    expect(await commitCount(sb)).toBe(commits + 1);
    expect(read(sb, s1.path)).toBe(before.s1.replace(`[[${tName}|Use pnpm for workspaces]]`, `[[${tName}|Use pnpm everywhere]]`));
    expect(read(sb, s2.path)).toBe(before.s2.replace(`[[${tName}|Use pnpm for workspaces]]`, `[[${tName}|Use pnpm everywhere]]`));
    expect(read(sb, s1.path)).not.toBe(before.s1);
    expect(read(sb, other.path)).toBe(before.other);
    const files = (await git(sb.data, ['show', '--name-only', '--format=', 'HEAD'], sb.env)).trim().split('\n').sort();
    expect(files).toEqual([t.path, s1.path, s2.path].sort());
    // The text output says so; an edit that keeps the title rewrites no other entry.
    const again = await kbd(sb, ['edit', t.id, '--title', 'Use pnpm for workspaces']);
    expect(again.stdout).toContain('the Links section of 2 entries linking to it shows the new title');
    expect((await kbj(sb, ['edit', t.id, '--append', 'More.'])).relinked).toBeUndefined();
    expect(await kbj(sb, ['lint'])).toEqual({ ok: true, files: 4, problems: [] });
    expectAllResolve(sb);
    await expectCleanRepo(sb.data);
  });
});

describe('body links are graph edges', () => {
  it('get --links and search follow [[…]] and [x](….md) in bodies one hop, both ways, as README says', async () => {
    const sb = sandbox();
    await initRepo(sb);
    const a = await addEntry(sb, { type: 'decision', title: 'Zanzibar authorization model', body: 'Relation tuples.' });
    const b = await addEntry(sb, { title: 'Permission checks', body: `We follow [[${a.id}]] for every check.` });
    const c = await addEntry(sb, { title: 'Audit trail', body: `Each check is logged; see [the checks](${path.basename(b.path)}).` });
    const ofA = (await kbj(sb, ['get', a.id, '--links'])).entries[0].links;
    expect(ofA).toEqual([{ id: b.id, title: 'Permission checks', rel: 'body', direction: 'in' }]);
    const ofB = (await kbj(sb, ['get', b.id, '--links'])).entries[0].links;
    expect(ofB).toEqual([
      { id: a.id, title: 'Zanzibar authorization model', rel: 'body', direction: 'out' },
      { id: c.id, title: 'Audit trail', rel: 'body', direction: 'in' },
    ]);
    // Search finds a by its words, and b through b's body link to it (marked via).
    const found = await kbj(sb, ['search', 'zanzibar']);
    expect(found.results[0].id).toBe(a.id);
    expect(found.results.find((h: { id: string }) => h.id === b.id)?.via).toEqual({ from: a.id, rel: 'body' });
    // A hand edit that removes the link removes the edge (read from the file, like every other field).
    writeFile(sb, b.path, read(sb, b.path).replace(`[[${path.basename(a.path, '.md')}|${a.id}]]`, 'the model'));
    expect((await kbj(sb, ['get', a.id, '--links'])).entries[0].links).toEqual([]);
    expect((await kbj(sb, ['search', 'zanzibar'])).results.map((h: { id: string }) => h.id)).toEqual([a.id]);
  });
});

describe('v1 links and relink', () => {
  it('a v1 repo is read unchanged (lint passes, with hints); relink rewrites the links in one commit; twice is a no-op', async () => {
    const sb = sandbox();
    fs.mkdirSync(path.join(sb.data, 'entries'), { recursive: true });
    await git(sb.data, ['init', '--quiet', '-b', 'main'], sb.env);
    writeFile(sb, 'kb.json', '{"next_id": 3}\n');
    const one = entryText({ id: 'kb-0001', title: 'Rebase before merge', type: 'pattern_convention', created: '2024-01-10' }, 'Keep history linear. See [[kb-0002]] and [[kb-0002|the bisect note]].\n\n```\n[[kb-0002]] in code\n```');
    const two = `---\nid: kb-0002\ntitle: Bisect\ntype: factual_reference\nlinks:\n  - rel: relates_to\n    to: kb-0001\ncreated: 2024-01-11\n---\n\nFind the bad commit.\n`;
    writeFile(sb, 'entries/kb-0001-rebase-before-merge.md', one);
    writeFile(sb, 'entries/kb-0002-bisect.md', two);
    await commitAll(sb, 'v1 entries');
    expect(unresolvedLinks(sb.data).unresolved.map((u) => u.raw)).toEqual(['[[kb-0002]]', '[[kb-0002|the bisect note]]']);

    const before = await snapshot(sb);
    const lint = await kbj(sb, ['lint']);
    expect(lint.ok).toBe(true);
    expect(lint.problems).toEqual([]);
    expect(lint.hints).toEqual([
      expect.objectContaining({ rule: 'link-old-form', file: 'entries/kb-0001-rebase-before-merge.md', line: 8 }),
      expect.objectContaining({ rule: 'link-old-form', file: 'entries/kb-0001-rebase-before-merge.md', line: 8 }),
      expect.objectContaining({ rule: 'links-section-missing', file: 'entries/kb-0002-bisect.md', line: 5 }),
    ]);
    const text = await kbd(sb, ['lint']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^hint: entries\/kb-0001-rebase-before-merge\.md:8: \[\[kb-0002\]\] is found by git-kb but not by Obsidian/m);
    expect(text.stdout.trim().split('\n').slice(-2)).toEqual(['3 hints: "git-kb relink" fixes them', 'ok: 2 files, no problems']);
    // The v1 body links are edges too (README: followed one hop), besides kb-0002's typed link here.
    expect((await kbj(sb, ['get', 'kb-0001', '--links'])).entries[0].links).toEqual([
      { id: 'kb-0002', title: 'Bisect', rel: 'body', direction: 'out' },
      { id: 'kb-0002', title: 'Bisect', rel: 'relates_to', direction: 'in' },
    ]);
    await expectUnchanged(sb, before); // reading changed nothing

    const n = await commitCount(sb);
    const r = await kbj(sb, ['relink']);
    expect(r.changed).toEqual([{ id: 'kb-0001', path: 'entries/kb-0001-rebase-before-merge.md' }, { id: 'kb-0002', path: 'entries/kb-0002-bisect.md' }]);
    expect(await commitCount(sb)).toBe(n + 1);
    const relinked = read(sb, 'entries/kb-0001-rebase-before-merge.md');
    expect(relinked).toBe(one.replace('See [[kb-0002]] and [[kb-0002|the bisect note]].', 'See [[kb-0002-bisect|kb-0002]] and [[kb-0002-bisect|the bisect note]].'));
    expect(read(sb, 'entries/kb-0002-bisect.md')).toBe(`${two}\n${SECTION_OPEN}\n## Links\n\n- relates_to: [[kb-0001-rebase-before-merge|Rebase before merge]]\n<!-- git-kb links end -->\n`);
    expect(JSON.parse(read(sb, 'kb.json'))).toEqual({ next_id: 3 }); // the manifest is v1's still
    expectAllResolve(sb);
    expect(await kbj(sb, ['lint'])).toEqual({ ok: true, files: 2, problems: [] });
    expect((await kbj(sb, ['relink'])).changed).toEqual([]);
    expect(await commitCount(sb)).toBe(n + 1);
    // kb-0002's typed link once (its Links section is a copy), and kb-0001's body link to it.
    expect((await kbj(sb, ['get', 'kb-0002', '--links'])).entries[0].links).toEqual([
      { id: 'kb-0001', title: 'Rebase before merge', rel: 'relates_to', direction: 'out' },
      { id: 'kb-0001', title: 'Rebase before merge', rel: 'body', direction: 'in' },
    ]);
    await expectCleanRepo(sb.data);
  });

  it('lint flags a Links section out of step with links: and a link to a file name an entry no longer has, with file and line', async () => {
    const sb = sandbox();
    await initRepo(sb);
    const a = await addEntry(sb, { title: 'Alpha', body: 'a' });
    const b = await addEntry(sb, { title: 'Beta', body: 'b' });
    const c = await addEntry(sb, { title: 'Gamma', links: [`relates_to:${a.id}`], body: `Points at [[${b.id}]].` });
    // By hand: a second link in the front matter only, and Beta's file renamed.
    const text = read(sb, c.path).replace(`    to: ${a.id}\n`, `    to: ${a.id}\n  - rel: mentions\n    to: ${b.id}\n`);
    writeFile(sb, c.path, text);
    const renamed = b.path.replace('-beta.md', '-beta-renamed.md');
    await git(sb.data, ['mv', b.path, renamed], sb.env);
    await commitAll(sb, 'hand edits');
    const sectionLine = text.split('\n').indexOf(SECTION_OPEN) + 1;
    const linkLine = text.split('\n').findIndex((l) => l.startsWith('Points at')) + 1;
    const r = await kbd(sb, ['lint', '--json']);
    expect(r.code).toBe(5);
    const out = JSON.parse(r.stdout);
    expect(out.problems).toEqual([
      expect.objectContaining({ rule: 'link-stale', file: c.path, line: linkLine, message: expect.stringContaining(renamed) }),
      expect.objectContaining({ rule: 'links-section', file: c.path, line: sectionLine, message: expect.stringContaining(`missing mentions ${b.id}`) }),
    ]);
    const plain = await kbd(sb, ['lint']);
    expect(plain.stdout).toContain(`${c.path}:${sectionLine}: the generated Links section does not match the "links" field (missing mentions ${b.id}); "git-kb relink" rewrites it [links-section]`);
    expect((await kbj(sb, ['relink'])).changed).toEqual([{ id: c.id, path: c.path }]);
    expect(await kbj(sb, ['lint'])).toEqual({ ok: true, files: 3, problems: [] });
    expectAllResolve(sb);
    await expectCleanRepo(sb.data);
  });

  it('a lesson seen again (add --pattern-key) keeps its Links section last and in step', async () => {
    const sb = sandbox();
    await initRepo(sb);
    const t = await addEntry(sb, { title: 'Target', body: 't' });
    const first = await addEntry(sb, { type: 'lesson_learned', title: 'Flaky ports', links: [`relates_to:${t.id}`], body: 'Ports clash.', extra: ['--pattern-key', 'flaky-ports'] });
    const again = await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'Flaky ports again', '--pattern-key', 'flaky-ports', '--link', `mentions:${t.id}`, '--', `Again, see [[${t.id}]].`]);
    expect(again).toMatchObject({ id: first.id, recurred: true });
    const text = read(sb, first.path);
    expect(text.match(/<!-- git-kb links:/g)).toHaveLength(1);
    expect(text.trimEnd().endsWith(`- relates_to: [[${path.basename(t.path, '.md')}|Target]]\n<!-- git-kb links end -->`)).toBe(true);
    expect(text).toContain(`Again, see [[${path.basename(t.path, '.md')}|${t.id}]].`);
    expect(await kbj(sb, ['lint'])).toEqual({ ok: true, files: 2, problems: [] });
    expectAllResolve(sb);
  });

  it('add refuses a link to a missing entry and writes nothing', async () => {
    const sb = sandbox();
    await initRepo(sb);
    const before = await snapshot(sb);
    const r = await kbd(sb, ['add', '--type', 'decision', '--title', 'X', '--', 'See [[kb-zzzz-nothing|that]].']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/link-dangling/);
    await expectUnchanged(sb, before);
  });
});

describe('a sync merge', () => {
  it('merges links added on two machines into one Links section that Obsidian resolves', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = sandbox();
    const b = sandbox();
    await kbj(a, ['init', '--clone', url]);
    const x = await addEntry(a, { title: 'Hub', body: 'The hub.' });
    const y = await addEntry(a, { title: 'Spoke one', body: 'One.' });
    const z = await addEntry(a, { title: 'Spoke two', body: 'Two.' });
    await kbj(a, ['sync']);
    await kbj(b, ['init', '--clone', url]);
    expect((await kbd(a, ['edit', x.id, '--link', `relates_to:${y.id}`])).code).toBe(0);
    expect((await kbd(b, ['edit', x.id, '--link', `depends_on:${z.id}`, '--append', 'Edited on B.'])).code).toBe(0);
    await kbj(a, ['sync']);
    const synced = await kbd(b, ['sync', '--json']);
    expect(synced.code, synced.stderr + synced.stdout).toBe(0);
    const r = JSON.parse(synced.stdout);
    expect(r.merge).toBe('merge');
    expect(r.conflicts).toEqual([]);
    await kbj(a, ['sync']);
    for (const sb of [a, b]) {
      const text = read(sb, x.path);
      expect(text).toContain('Edited on B.');
      // B merged: its links first (ours), then A's; one section, written from the merged links, with the titles
      // the two sections showed.
      expect(text).toContain(`- depends_on: [[${path.basename(z.path, '.md')}|Spoke two]]\n- relates_to: [[${path.basename(y.path, '.md')}|Spoke one]]\n<!-- git-kb links end -->`);
      expect(text.match(/<!-- git-kb links:/g)).toHaveLength(1);
      expectAllResolve(sb);
      expect(await kbj(sb, ['lint'])).toEqual({ ok: true, files: 3, problems: [] });
      await expectCleanRepo(sb.data);
    }
    expect((await kbj(b, ['get', x.id, '--links'])).entries[0].links).toHaveLength(2);
  });
});



