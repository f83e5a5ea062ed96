/**
 * `git-kb get`: entries printed verbatim by id, several at once, with `--links` listing 1-hop neighbours in both
 * directions; an unknown id is a clear NOT_FOUND naming it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, initRepo, jsonError, kbd, kbj, type Added } from './support.js';

let sb: Sandbox;
let hub: Added;
let spoke: Added;
let other: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  hub = await addEntry(sb, { type: 'decision', title: 'Use Postgres for the ledger', tags: 'db', body: 'Postgres, because of transactions.' });
  spoke = await addEntry(sb, { type: 'lesson_learned', title: 'Vacuum big tables at night', links: [`part_of:${hub.id}`], body: 'Autovacuum lagged.' });
  other = await addEntry(sb, { type: 'bookmark', title: 'Postgres docs', url: 'https://www.postgresql.org/docs/', links: [`mentions:${hub.id}`] });
});
afterAll(() => sb.cleanup());

const fileOf = (a: Added): string => fs.readFileSync(path.join(sb.data, a.path), 'utf8');

describe('get', () => {
  it('prints each entry verbatim, in the order asked', async () => {
    const one = await kbd(sb, ['get', hub.id]);
    expect(one.code).toBe(0);
    expect(one.stdout).toBe(fileOf(hub));
    const two = await kbd(sb, ['get', spoke.id, hub.id]);
    expect(two.stdout).toBe(`${fileOf(spoke)}\n${fileOf(hub)}`);
    const j = await kbj(sb, ['get', spoke.id, hub.id]);
    expect(j).toEqual({ entries: [{ id: spoke.id, path: spoke.path, text: fileOf(spoke) }, { id: hub.id, path: hub.path, text: fileOf(hub) }] });
  });

  it('--links lists 1-hop neighbours in both directions with their rel', async () => {
    const j = await kbj(sb, ['get', hub.id, '--links']);
    expect(j.entries[0].links).toEqual(
      expect.arrayContaining([
        { id: spoke.id, title: 'Vacuum big tables at night', rel: 'part_of', direction: 'in' },
        { id: other.id, title: 'Postgres docs', rel: 'mentions', direction: 'in' },
      ]),
    );
    expect(j.entries[0].links).toHaveLength(2);
    const out = await kbj(sb, ['get', spoke.id, '--links']);
    expect(out.entries[0].links).toEqual([{ id: hub.id, title: 'Use Postgres for the ledger', rel: 'part_of', direction: 'out' }]);
    const text = await kbd(sb, ['get', spoke.id, '--links']);
    expect(text.stdout).toBe(`${fileOf(spoke)}\nLinked entries (1 hop):\n- ${hub.id} — Use Postgres for the ledger (part_of)\n`);
    const lonely = await addEntry(sb, { title: 'No links at all' });
    expect((await kbd(sb, ['get', lonely.id, '--links'])).stdout).toContain('Linked entries (1 hop): none');
  });

  it("takes a file's name where an id is asked (copied from ls, a shell's completion or Obsidian)", async () => {
    const stem = path.basename(hub.path, '.md');
    expect(stem).toMatch(/^kb-[0-9a-z]+-use-postgres/);
    for (const arg of [stem, `${stem}.md`, hub.path]) {
      const j = await kbj(sb, ['get', arg]);
      expect(j.entries.map((e: { id: string }) => e.id), arg).toEqual([hub.id]);
    }
    const h = await kbj(sb, ['history', hub.path]);
    expect(h.id).toBe(hub.id);
    // A name that is no entry's is still refused with the id it names.
    const r = await kbd(sb, ['get', 'kb-0404-some-slug.md']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no entry with id kb-0404;/);
  });

  it('fails with NOT_FOUND (3) naming every unknown id, and prints nothing', async () => {
    const r = await kbd(sb, ['get', hub.id, 'kb-nothere', 'kb-0404']);
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^git-kb: error: no entry with id kb-nothere, kb-0404/);
    const j = await kbd(sb, ['get', 'kb-nothere', '--json']);
    expect(jsonError(j)).toMatchObject({ code: 'NOT_FOUND' });
    expect(jsonError(j).message).toContain('kb-nothere');
  });

  it('prints a file that does not read as an entry as it is, and says why (stderr; "unreadable" with --json)', async () => {
    const rel = 'entries/kb-brokenyaml1-bad.md';
    const text = '---\nid: kb-brokenyaml1\ntitle: [unclosed\n---\nA body.\n';
    fs.writeFileSync(path.join(sb.data, rel), text);
    try {
      const r = await kbd(sb, ['get', 'kb-brokenyaml1']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(text);
      expect(r.stderr).toMatch(/^git-kb: warning: entries\/kb-brokenyaml1-bad\.md:3: malformed YAML front matter: .*list and search skip it/);
      const j = await kbj(sb, ['get', 'kb-brokenyaml1']);
      expect(j.entries[0]).toMatchObject({ id: 'kb-brokenyaml1', path: rel, text, unreadable: expect.stringMatching(/^entries\/kb-brokenyaml1-bad\.md:3: malformed YAML/) });
      // An entry that reads says nothing.
      expect((await kbd(sb, ['get', hub.id])).stderr).toBe('');
    } finally {
      fs.rmSync(path.join(sb.data, rel));
    }
  });
});
