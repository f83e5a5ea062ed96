/**
 * Every core verb run as a process against one real data repo, in the order a user would, then checked with the
 * real git: one commit per write with the expected subjects, `git fsck --strict` and `git status` clean, and a
 * `git clone` of the data repo read back by `git-kb --data <clone>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitCount, headOf, sgit, subjects, kbj } from './support.js';

let sb: Sandbox;
beforeAll(() => {
  sb = makeSandbox();
});
afterAll(() => sb.cleanup());

describe('a whole session of verbs against one data repo', () => {
  const ids: Record<string, string> = {};

  it('init, add, edit, get, search, list, lint, import, history, restore, status', async () => {
    expect((await kbj(sb, ['init'])).action).toBe('created');

    const a = await kbj(sb, ['add', '--type', 'pattern_convention', '--title', 'Rebase feature branches onto main', '--tags', 'git,workflow', '--', 'Run git rebase origin/main before opening a pull request.']);
    ids.a = a.id;
    const b = await kbj(sb, ['add', '--type', 'decision', '--title', 'Squash merges only', '--tags', 'git', '--link', `depends_on:${a.id}`, '--', 'We squash every pull request into one commit.']);
    ids.b = b.id;
    const c = await kbj(sb, ['add', '--type', 'bookmark', '--title', 'Pro Git book', '--url', 'https://git-scm.com/book', '--tags', 'reading']);
    ids.c = c.id;

    const edit = await kb(sb, ['--data', sb.data, 'edit', a.id, '--append', 'Resolve conflicts commit by commit.']);
    expect(edit.code).toBe(0);
    expect(edit.stdout).toContain('+Resolve conflicts commit by commit.');

    const got = await kbj(sb, ['get', b.id, '--links']);
    expect(got.entries[0].links).toEqual([{ id: a.id, title: 'Rebase feature branches onto main', rel: 'depends_on', direction: 'out' }]);

    const found = await kbj(sb, ['search', 'rebase conflicts']);
    expect(found.results[0].id).toBe(a.id);

    const listed = await kbj(sb, ['list']);
    expect(listed.entries.map((e: { id: string }) => e.id)).toHaveLength(3);

    const lint = await kbj(sb, ['lint']);
    expect(lint).toEqual({ ok: true, files: 3, problems: [] });

    const notes = path.join(sb.root, 'notes');
    fs.mkdirSync(path.join(notes, 'shell'), { recursive: true });
    fs.writeFileSync(path.join(notes, 'shell', 'xargs.md'), '# Run a command per line with xargs\n\nUse xargs -n1.\n');
    fs.writeFileSync(path.join(notes, 'jq.md'), '---\ntitle: Pretty-print JSON with jq\n---\n\njq . file.json\n');
    const imported = await kbj(sb, ['import', notes, '--tags-from-folders']);
    expect(imported.imported).toBe(2);

    const hist = await kbj(sb, ['history', a.id]);
    expect(hist.commits).toHaveLength(2);
    const restored = await kbj(sb, ['restore', a.id]);
    expect(restored.changed).toBe(true);
    expect(fs.readFileSync(path.join(sb.data, a.path), 'utf8')).not.toContain('Resolve conflicts');

    const st = await kbj(sb, ['status']);
    expect(st).toMatchObject({ entries: 5, problems: 0, head: await headOf(sb) });
  });

  it('made exactly one commit per write, in order, visible to plain git', async () => {
    expect(await subjects(sb)).toEqual([
      expect.stringMatching(new RegExp(`^restore ${ids.a} to [0-9a-f]{12}$`)),
      'import 2 notes from notes',
      `edit ${ids.a}: Rebase feature branches onto main`,
      `add ${ids.c}: Pro Git book`,
      `add ${ids.b}: Squash merges only`,
      `add ${ids.a}: Rebase feature branches onto main`,
      'git-kb: create data repo',
    ]);
    expect(await commitCount(sb)).toBe(7);
    await expectCleanRepo(sb.data);
    expect((await sgit(sb, ['log', '-1', '--format=%an <%ae>'])).trim()).toBe('Test Author <test@example.com>');
    // Each write touched only its own paths.
    const stat = (await sgit(sb, ['show', '--name-only', '--format=', "HEAD~3"])).trim();
    expect(stat).toMatch(new RegExp(`^entries/${ids.c}-pro-git-book\\.md$`));
  });

  it('a git clone of the data repo reads back through git-kb --data <clone>', async () => {
    const clone = path.join(sb.root, 'clone');
    await sgit(sb, ['clone', '-q', sb.data, clone], sb.root);
    await expectCleanRepo(clone);
    const run = (args: string[]) => kb(sb, ['--data', clone, ...args, '--json']).then((r) => {
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    });
    const got = await run(['get', ids.a, ids.b, ids.c]);
    for (const e of got.entries) expect(e.text).toBe(fs.readFileSync(path.join(sb.data, e.path), 'utf8'));
    const found = await run(['search', 'squash']);
    expect(found.results[0].id).toBe(ids.b);
    const listed = await run(['list']);
    const original = await kbj(sb, ['list']);
    expect(listed.entries).toEqual(original.entries);
    expect((await run(['lint'])).ok).toBe(true);
    // Reading built caches only under .git/: the clone's work tree is still clean.
    await expectCleanRepo(clone);
    expect(fs.existsSync(path.join(clone, '.git', 'git-kb'))).toBe(true);
  });
});
