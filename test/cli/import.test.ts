/**
 * `git-kb import DIR`: a folder of markdown notes becomes entries in one commit; titles from front matter or the
 * first `# ` heading (else the file name), `--type`, `--tags-from-folders`; a bad note refuses the whole import
 * (nothing written) unless --skip-invalid; a progress bar on a terminal and none when piped.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, run, CLI, type Sandbox } from '../helpers/cli.js';
import { commitCount, expectUnchanged, initRepo, jsonError, kbd, kbj, snapshot, subjects, treePaths } from './support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

function makeNotes(root: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

function fields(sb: Sandbox, rel: string): Record<string, any> {
  const text = fs.readFileSync(path.join(sb.data, rel), 'utf8');
  return YAML.parse(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!);
}

const NOTES = {
  'with-frontmatter.md': '---\ntitle: Title from front matter\ntags: [alpha]\ntype: decision\nsource: kept\n---\n\n# Not the title\n\nBody one.\n',
  'with-heading.md': '\n# Title from the heading\n\nBody two mentions flamingo.\n',
  'plain_file-name.md': 'No title anywhere, just text.\n',
  'git/rebase/interactive.md': '# Interactive rebase\n\nUse git rebase -i.\n',
  'git/bisect.markdown': '# Bisect\n\nFind the bad commit.\n',
  'ignored.txt': 'not markdown',
  '.hidden/secret-notes.md': '# Hidden\n',
};

describe('import', () => {
  it('imports a folder in one commit, with titles, own fields, folder tags and no progress bar when piped', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const src = makeNotes(path.join(sb.root, 'my-notes'), NOTES);
    const n = await commitCount(sb);
    const r = await kbd(sb, ['import', src, '--tags-from-folders']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(''); // piped: no progress bar, no escape codes
    expect(r.stdout).toMatch(/^imported 5 notes \(commit [0-9a-f]{12}\)$/m);
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await subjects(sb))[0]).toBe('import 5 notes from my-notes');
    const paths = await treePaths(sb);
    expect(paths).toHaveLength(5);
    const byTitle = new Map(paths.map((p) => [fields(sb, p).title as string, p]));
    expect([...byTitle.keys()].sort()).toEqual(['Bisect', 'Interactive rebase', 'Title from front matter', 'Title from the heading', 'plain file name']);
    const fm = fields(sb, byTitle.get('Title from front matter')!);
    expect(fm).toMatchObject({ type: 'decision', tags: ['alpha'], source: 'kept' });
    expect(fs.readFileSync(path.join(sb.data, byTitle.get('Title from front matter')!), 'utf8')).toContain('# Not the title');
    expect(fields(sb, byTitle.get('Interactive rebase')!)).toMatchObject({ type: 'factual_reference', tags: ['git', 'rebase'] });
    expect(fields(sb, byTitle.get('Bisect')!).tags).toEqual(['git']);
    // The heading that became the title is not repeated in the body.
    expect(fs.readFileSync(path.join(sb.data, byTitle.get('Title from the heading')!), 'utf8')).not.toContain('# Title from the heading');
    expect((await kbj(sb, ['lint'])).ok).toBe(true);
    expect((await kbj(sb, ['search', 'flamingo'])).results[0].title).toBe('Title from the heading');
    await expectCleanRepo(sb.data);
  });

  it('--type sets every note type, and --json lists the new ids', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const src = makeNotes(path.join(sb.root, 'n'), { 'a.md': '# A\n', 'b.md': '---\ntitle: B\ntype: decision\nid: kb-0042\n---\nb\n' });
    const r = await kbj(sb, ['import', src, '--type', 'lesson_learned']);
    expect(r).toMatchObject({ imported: 2, skipped: [], commit: expect.stringMatching(/^[0-9a-f]{40}$/), ids: expect.any(Array) });
    expect(r.ids).toHaveLength(2);
    expect(r.ids).toContain('kb-0042'); // a note's own valid id is kept
    for (const p of await treePaths(sb)) expect(fields(sb, p).type).toBe('lesson_learned');
    // Importing the same folder again never reuses a taken id.
    const again = await kbj(sb, ['import', src]);
    expect(again.ids).not.toContain('kb-0042');
    expect(new Set([...r.ids, ...again.ids]).size).toBe(4);
    await expectCleanRepo(sb.data);
  });

  it('refuses the whole import when one note is bad, naming file and line; --skip-invalid imports the rest', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const src = makeNotes(path.join(sb.root, 'n'), { 'good.md': '# Good\n', 'bad.md': '---\ntitle: Bad\ntags: [unclosed\n---\nx\n', 'bookmark.md': '---\ntitle: Needs url\ntype: bookmark\n---\n' });
    const before = await snapshot(sb);
    const r = await kbd(sb, ['import', src, '--json']);
    expect(r.code).toBe(5);
    const e = jsonError(r);
    expect(e.code).toBe('INVALID_ENTRY');
    expect(e.message).toMatch(/bad\.md:\d+: .*YAML/);
    expect(e.message).toMatch(/bookmark\.md.*url/);
    await expectUnchanged(sb, before);

    const skipped = await kbj(sb, ['import', src, '--skip-invalid']);
    expect(skipped.imported).toBe(1);
    expect(skipped.skipped.map((s: { file: string }) => s.file).sort()).toEqual(['bad.md', 'bookmark.md']);
    expect(await treePaths(sb)).toHaveLength(1);
    await expectCleanRepo(sb.data);
  });

  it('refuses a missing folder (3), an unknown type (2), and a folder that holds the data repo (2)', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const before = await snapshot(sb);
    expect((await kbd(sb, ['import', path.join(sb.root, 'nope')])).code).toBe(3);
    fs.mkdirSync(path.join(sb.root, 'empty'));
    expect((await kbd(sb, ['import', path.join(sb.root, 'empty'), '--type', 'memo'])).code).toBe(2);
    const inside = await kbd(sb, ['import', sb.root, '--json']);
    expect(inside.code).toBe(2);
    expect(jsonError(inside).message).toContain('data repo');
    await expectUnchanged(sb, before);
  });

  it('draws a progress bar when stderr is a terminal', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const notes: Record<string, string> = {};
    for (let i = 0; i < 30; i++) notes[`n${i}.md`] = `# Note ${i}\n\nText ${i}.\n`;
    const src = makeNotes(path.join(sb.root, 'many'), notes);
    const cmd = [process.execPath, CLI, '--data', sb.data, 'import', src].map((a) => `'${a}'`).join(' ');
    // `script` gives the command a pseudo-terminal; its output is what the terminal would show.
    const r = await run('script', ['-qec', cmd, '/dev/null'], { env: sb.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/importing \[#+-*\] \d+\/30/);
    expect(r.stdout).toContain('imported 30 notes');
    expect(await treePaths(sb)).toHaveLength(30);
  });

  it('importing the same folder again adds nothing; a new or changed note is the only one added', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const src = makeNotes(path.join(sb.root, 'again'), NOTES);
    const first = await kbj(sb, ['import', src, '--tags-from-folders']);
    expect(first.imported).toBe(5);
    const n = await commitCount(sb);
    const second = await kbj(sb, ['import', src, '--tags-from-folders']);
    expect(second).toMatchObject({ imported: 0, ids: [] });
    expect(second.commit).toBeUndefined();
    expect(second.present.map((p: { file: string }) => p.file).sort()).toEqual(first.entries.map((e: { source: string }) => e.source).sort());
    expect(new Set(second.present.map((p: { id: string }) => p.id))).toEqual(new Set(first.ids));
    expect(await commitCount(sb)).toBe(n);
    // One note changed, one new: only those two are added, the other four are present.
    fs.appendFileSync(path.join(src, 'git/bisect.markdown'), 'Then git bisect reset.\n');
    makeNotes(src, { 'fresh.md': '# A fresh note\n\nNew here.\n' });
    const third = await kbd(sb, ['import', src, '--tags-from-folders']);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toMatch(/^imported 2 notes \(commit [0-9a-f]{12}\); 4 already in the repo$/m);
    expect(await treePaths(sb)).toHaveLength(7);
    await expectCleanRepo(sb.data);
  });
});
