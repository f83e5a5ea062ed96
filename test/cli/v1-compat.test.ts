/**
 * A v1 data repo (test/fixtures/v1-repo: kb.json with next_id, entries/kb-NNNN-slug.md) works unchanged: read,
 * searched, edited and added to without conversion. kb.json is never touched, old ids keep working, and new
 * ids coexist with them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, ROOT, type Sandbox } from '../helpers/cli.js';
import { commitAll, commitCount, kbd, kbj, sgit, subjects, treePaths } from './support.js';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'v1-repo');
let sb: Sandbox;
let manifest: string;
const original: Record<string, string> = {};

beforeAll(async () => {
  sb = makeSandbox();
  fs.cpSync(FIXTURE, sb.data, { recursive: true });
  await sgit(sb, ['init', '-q', '-b', 'main']);
  await commitAll(sb, 'v1 data repo');
  manifest = fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8');
  for (const f of fs.readdirSync(path.join(sb.data, 'entries'))) original[f] = fs.readFileSync(path.join(sb.data, 'entries', f), 'utf8');
});
afterAll(() => sb.cleanup());

const V1_IDS = ['kb-0001', 'kb-0002', 'kb-0003', 'kb-0004', 'kb-0005'];

describe('a v1 data repo', () => {
  it('is a v1 repo: kb.json with next_id, kb-NNNN ids in the file names', () => {
    expect(JSON.parse(manifest)).toEqual({ next_id: 6 });
    expect(Object.keys(original).sort().map((f) => f.slice(0, 7))).toEqual(V1_IDS);
  });

  it('is read as it is: get, list, lint, status, get --links (front matter links and [[id]])', async () => {
    const got = await kbj(sb, ['get', ...V1_IDS]);
    for (const e of got.entries) expect(e.text).toBe(original[path.basename(e.path)]);
    const listed = await kbj(sb, ['list']);
    expect(listed.entries.map((e: { id: string }) => e.id)).toEqual(['kb-0005', 'kb-0004', 'kb-0003', 'kb-0002', 'kb-0001']);
    expect(listed.entries[4]).toMatchObject({ title: 'Rebase feature branches before merging', type: 'pattern_convention', tags: ['git', 'workflow'], created: '2024-01-10' });
    // Lint passes; the v1 links Obsidian cannot follow are hints (never problems), which `git-kb relink` fixes.
    const lint = await kbj(sb, ['lint']);
    expect(lint).toMatchObject({ ok: true, files: 5, problems: [] });
    expect(new Set(lint.hints.map((h: { rule: string }) => h.rule))).toEqual(new Set(['link-old-form', 'links-section-missing']));
    expect(await kbj(sb, ['status'])).toMatchObject({ entries: 5, problems: 0, by_type: { pattern_convention: 1, decision: 1, lesson_learned: 1, bookmark: 1, factual_reference: 1 } });
    const links = (await kbj(sb, ['get', 'kb-0003', '--links'])).entries[0].links;
    expect(links).toEqual(expect.arrayContaining([
      { id: 'kb-0004', title: 'pytest fixtures documentation', rel: 'relates_to', direction: 'out' },
      { id: 'kb-0005', title: 'Store timestamps in UTC', rel: 'mentions', direction: 'in' },
    ]));
  });

  it('is searched, with filters and link neighbours', async () => {
    expect((await kbj(sb, ['search', 'flaky ports'])).results[0].id).toBe('kb-0003');
    expect((await kbj(sb, ['search', 'squash'])).results[0].id).toBe('kb-0002');
    expect((await kbj(sb, ['search', 'fixtures', '--type', 'bookmark'])).results.map((h: { id: string }) => h.id)).toEqual(['kb-0004']);
    const withNeighbour = await kbj(sb, ['search', 'squashed commit']);
    expect(withNeighbour.results.find((h: { id: string }) => h.id === 'kb-0001')).toBeDefined();
  });

  it('is edited in place: same file, same id, other fields and kb.json untouched', async () => {
    const r = await kbj(sb, ['edit', 'kb-0003', '--append', 'Also: never share a temp directory between workers.', '--add-tag', 'flaky']);
    expect(r).toMatchObject({ id: 'kb-0003', path: 'entries/kb-0003-flaky-integration-tests.md', changed: true });
    const text = fs.readFileSync(path.join(sb.data, r.path), 'utf8');
    expect(text).toMatch(/^---\nid: kb-0003\ntitle: Flaky integration tests came from shared ports\ntype: lesson_learned\n/);
    expect(text).toContain('created: 2024-02-20');
    expect(text).toContain('rel: relates_to');
    expect(text).not.toContain('updated: 2024-02-20');
    expect(text).toContain('Bind port 0 and read the port back instead.\n\nAlso: never share a temp directory between workers.\n');
    expect((await sgit(sb, ['show', '--name-only', '--format=', 'HEAD'])).trim()).toBe('entries/kb-0003-flaky-integration-tests.md');
    // Edits by v1 id work for every entry, including the bookmark with its url.
    await kbj(sb, ['edit', 'kb-0004', '--title', 'pytest fixtures how-to']);
    expect(fs.readFileSync(path.join(sb.data, 'entries/kb-0004-pytest-docs.md'), 'utf8')).toContain('url: https://docs.pytest.org/en/stable/how-to/fixtures.html');
    expect(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8')).toBe(manifest);
  });

  it('is added to: new ids coexist with the old ones and link to them; next_id is left alone', async () => {
    const a = await kbj(sb, ['add', '--type', 'decision', '--title', 'Ports come from the OS in tests', '--link', 'supersedes:kb-0003', '--', 'Follows [[kb-0003]].']);
    expect(a.id).toMatch(/^kb-\d{16}$/); // decimal in a v1 repo: the ids v1's scripts read whole
    expect(a.id).not.toBe('kb-0006');
    expect(a.path).toBe(`entries/${a.id}-ports-come-from-the-os-in-tests.md`);
    expect(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8')).toBe(manifest);
    const ids = (await kbj(sb, ['list'])).entries.map((e: { id: string }) => e.id);
    expect(ids).toHaveLength(6);
    expect(ids).toEqual(expect.arrayContaining([...V1_IDS, a.id]));
    expect((await kbj(sb, ['get', 'kb-0003', '--links'])).entries[0].links).toContainEqual({ id: a.id, title: 'Ports come from the OS in tests', rel: 'supersedes', direction: 'in' });
    const found = (await kbj(sb, ['search', 'ports'])).results.map((h: { id: string }) => h.id);
    expect(found).toEqual(expect.arrayContaining(['kb-0003', a.id]));
    expect(await kbj(sb, ['lint'])).toMatchObject({ ok: true, files: 6, problems: [] });
    // The new entry's own links are in the form Obsidian follows.
    expect(fs.readFileSync(path.join(sb.data, a.path), 'utf8')).toContain('Follows [[kb-0003-');
  });

  it('keeps its history readable, and stays a v1 repo that plain git sees as clean', async () => {
    const h = await kbj(sb, ['history', 'kb-0003']);
    // kb-0003 links to kb-0004: kb-0004's retitle rewrote the title its Links section shows, in the same commit.
    expect(h.commits.map((c: { message: string }) => c.message)).toEqual(['edit kb-0004: pytest fixtures how-to', 'edit kb-0003: Flaky integration tests came from shared ports', 'v1 data repo']);
    const restored = await kbj(sb, ['restore', 'kb-0003', '--to', h.commits.at(-1).commit]);
    expect(restored.changed).toBe(true);
    expect(fs.readFileSync(path.join(sb.data, 'entries/kb-0003-flaky-integration-tests.md'), 'utf8')).toBe(original['kb-0003-flaky-integration-tests.md']);
    expect(await commitCount(sb)).toBe(5);
    expect((await subjects(sb)).at(-1)).toBe('v1 data repo');
    expect(await treePaths(sb)).toHaveLength(6);
    expect((await sgit(sb, ['ls-tree', '--name-only', 'HEAD'])).trim().split('\n')).toEqual(['entries', 'kb.json']);
    expect(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8')).toBe(manifest);
    expect((await kbd(sb, ['get', 'kb-0001'])).stdout).toBe(original['kb-0001-rebase-before-merging.md']);
    await expectCleanRepo(sb.data);
  });
});
