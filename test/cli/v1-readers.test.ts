/**
 * What git-kb writes into a v1 data repo reads right in v1's own scripts (spec/entry-format.md, "v1 readers").
 * v1's scripts read front matter line by line, not as YAML: a key's value is the rest of its line, a list is
 * `[a, b]` on that line, link targets are the `kb-` and decimal digits after `to:`, and an entry file is found by
 * `kb-` and decimal digits at the start of its name. The stand-in below reads that way (after v1's
 * scripts/shared.js and kb-save.js, as its README and spec/entry-format.md describe them).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, ROOT, type Sandbox } from '../helpers/cli.js';
import { commitAll, kbj, sgit } from './support.js';

interface V1Entry {
  id: string;
  title: string;
  type: string;
  tags: string[];
  appliesTo: string[];
  links: string[];
}

/** v1's reading of an entry file. */
function v1Read(text: string): V1Entry | undefined {
  const m = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(text);
  if (!m) return undefined;
  const fm = m[1]!;
  const get = (k: string): string => new RegExp(`^${k}:[ \\t]*(.*)$`, 'm').exec(fm)?.[1]?.trim() ?? '';
  const list = (k: string): string[] => get(k).replace(/^\[|\]$/g, '').split(',').map((s) => s.trim()).filter(Boolean);
  return { id: get('id'), title: get('title'), type: get('type'), tags: list('tags'), appliesTo: list('applies_to'), links: [...fm.matchAll(/to:[ \t]*(kb-\d+)/g)].map((x) => x[1]!) };
}

/** v1's id of an entry file, from its name. */
const v1FileId = (name: string): string | undefined => /^(kb-\d+)/.exec(name)?.[1];

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'v1-repo');
let sb: Sandbox;

beforeAll(async () => {
  sb = makeSandbox();
  fs.cpSync(FIXTURE, sb.data, { recursive: true });
  await sgit(sb, ['init', '-q', '-b', 'main']);
  await commitAll(sb, 'v1 data repo');
});
afterAll(() => sb.cleanup());

describe('a v1 repo written by git-kb, read by v1', () => {
  it('reads a new entry whole: its id (file name and field), tags, applies_to and links', async () => {
    const a = await kbj(sb, ['add', '--type', 'decision', '--title', 'Ports come from the OS', '--tags', 'testing,ci', '--applies-to', 'coding', '--link', 'supersedes:kb-0003', '--', 'Bind port 0.']);
    expect(a.id).toMatch(/^kb-\d{16}$/);
    const b = await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'Read the port back', '--link', `depends_on:${a.id}`, '--', 'See above.']);
    for (const added of [a, b]) {
      const file = path.basename(added.path);
      expect(v1FileId(file)).toBe(added.id);
      const v1 = v1Read(fs.readFileSync(path.join(sb.data, added.path), 'utf8'))!;
      const ours = (await kbj(sb, ['get', added.id, '--json'])).entries[0];
      const parsed = (await kbj(sb, ['list', '--json'])).entries.find((e: { id: string }) => e.id === added.id);
      expect(v1.id).toBe(added.id);
      expect(v1.tags).toEqual(parsed.tags);
      expect(v1.links).toEqual(ours.text.match(/to: (kb-\w+)/g).map((x: string) => x.slice(4)));
    }
    expect(v1Read(fs.readFileSync(path.join(sb.data, a.path), 'utf8'))).toMatchObject({ tags: ['testing', 'ci'], appliesTo: ['coding'], links: ['kb-0003'] });
    expect(v1Read(fs.readFileSync(path.join(sb.data, b.path), 'utf8'))!.links).toEqual([a.id]);
  });

  it('an edit of a v1 entry (a tag, a link, the body) changes only those front matter lines; v1 reads them all', async () => {
    const file = path.join(sb.data, 'entries', 'kb-0003-flaky-integration-tests.md');
    const before = fs.readFileSync(file, 'utf8');
    const newest = (await kbj(sb, ['list', '--json'])).entries.find((e: { title: string }) => e.title === 'Read the port back').id as string;
    await kbj(sb, ['edit', 'kb-0003', '--add-tag', 'flaky', '--link', `mentions:${newest}`, '--append', 'Also: one temp dir per worker.']);
    const after = fs.readFileSync(file, 'utf8');
    const fm = (t: string): string[] => t.split('\n---\n')[0]!.split('\n');
    const changed = fm(after).filter((l) => !fm(before).includes(l));
    const gone = fm(before).filter((l) => !fm(after).includes(l));
    expect(gone).toEqual(['tags: [testing, ci]', 'updated: 2024-02-20']);
    expect(changed).toEqual(['tags: [testing, ci, flaky]', '  - rel: mentions', `    to: ${newest}`, expect.stringMatching(/^updated: \d{4}-\d\d-\d\dT/)]);
    expect(v1Read(after)).toMatchObject({ id: 'kb-0003', title: 'Flaky integration tests came from shared ports', tags: ['testing', 'ci', 'flaky'], links: ['kb-0004', newest] });
    expect(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8')).toBe(fs.readFileSync(path.join(FIXTURE, 'kb.json'), 'utf8'));
  });
});
