/**
 * Front matter as v1 wrote it survives git-kb's writes (spec/entry-format.md, "v1 readers"): an edit rewrites the
 * lines of the fields it changes and no other byte, and the lists v1 reads from one line (`tags`, `applies_to`)
 * are written in that one-line form.
 */
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatEntry, splitEntry, updateEntryText } from '../src/core/format/entry.js';
import { plainYaml } from '../src/core/format/plain-yaml.js';

const V1 = `---
id: kb-0003
title: Flaky integration tests came from shared ports
type: lesson_learned
tags: [testing, ci]
links:
  - rel: relates_to
    to: kb-0004
created: 2024-02-20
updated: 2024-02-20
---

The integration suite failed one run in ten.
`;

const lines = (t: string): string[] => t.split('\n');

describe('updateEntryText', () => {
  it('changes the body only: every front matter line stays byte-identical but updated', () => {
    const after = updateEntryText(V1, 'e.md', { updated: '2026-12-04T10:00:00Z' }, 'New body.');
    expect(after).toBe(V1.replace('updated: 2024-02-20', 'updated: 2026-12-04T10:00:00Z').replace('The integration suite failed one run in ten.', 'New body.'));
  });

  it('adds a tag: the tags line stays flow style without padding, all else untouched', () => {
    const after = updateEntryText(V1, 'e.md', { tags: ['testing', 'ci', 'flaky'], updated: '2026-12-04T10:00:00Z' });
    expect(after).toContain('\ntags: [testing, ci, flaky]\n');
    const changed = lines(after).filter((l, i) => l !== lines(V1)[i]);
    expect(changed).toEqual(['tags: [testing, ci, flaky]', 'updated: 2026-12-04T10:00:00Z']);
  });

  it('keeps comments, blank lines, quoting and unknown fields; skips a change to the same value', () => {
    const text = `---\nid: kb-0009   # mine\ntitle: "Quoted: title"\n\n# a comment line\ntype: decision\ntags: [ a, b ]\nextra:   {x: 1}\nupdated: 2024-01-01\n---\nBody\n`;
    const after = updateEntryText(text, 'e.md', { title: 'Quoted: title', tags: ['a', 'b'], updated: '2025-01-01' });
    expect(after).toBe(text.replace('updated: 2024-01-01', 'updated: 2025-01-01').replace('---\nBody', '---\n\nBody'));
  });

  it('adds a new field in its place and deletes one with its lines', () => {
    const added = updateEntryText(V1, 'e.md', { url: 'https://example.com/x', applies_to: ['coding'] });
    expect(added).toContain('    to: kb-0004\nurl: https://example.com/x\napplies_to: [coding]\ncreated: 2024-02-20\n');
    const dropped = updateEntryText(V1, 'e.md', { links: undefined });
    expect(dropped).toContain('tags: [testing, ci]\ncreated: 2024-02-20\n');
    expect(splitEntry(dropped, 'e.md').data.links).toBeUndefined();
  });

  it('reads back what it writes, through the YAML library too', () => {
    const after = updateEntryText(V1, 'e.md', { tags: ['x'], links: [{ rel: 'supersedes', to: 'kb-0001' }], title: 'Colon: and # hash', kernel: true });
    const raw = splitEntry(after, 'e.md');
    expect(YAML.parse(raw.frontmatter)).toEqual(raw.data);
    expect(raw.data).toMatchObject({ tags: ['x'], links: [{ rel: 'supersedes', to: 'kb-0001' }], title: 'Colon: and # hash', kernel: true });
  });
});

describe('formatEntry', () => {
  it('writes tags and applies_to as one-line flow lists, other lists as blocks', () => {
    const text = formatEntry({ id: 'kb-0001', title: 'T', type: 'decision', tags: ['a', 'b/c'], aliases: ['One', 'Two'], applies_to: ['writing'], links: [{ rel: 'relates_to', to: 'kb-0002' }] }, 'Body');
    expect(text).toContain('\ntags: [a, b/c]\naliases:\n  - One\n  - Two\nlinks:\n  - rel: relates_to\n    to: kb-0002\napplies_to: [writing]\n');
    expect(formatEntry({ id: 'kb-1', title: 'T', type: 'decision', tags: [] }, '')).toContain('\ntags: []\n');
  });

  it('falls back to a block list when an item would need quoting in a flow list', () => {
    const text = formatEntry({ id: 'kb-1', title: 'T', type: 'decision', tags: ['a,b', 'true'] }, '');
    expect(YAML.parse(splitEntry(text, 'e.md').frontmatter).tags).toEqual(['a,b', 'true']);
  });
});

describe('plainYaml reads one-line flow lists as the YAML library does', () => {
  it.each(['a: [x, y]\n', 'a: [x,y]\n', 'a: [ x, y ]\n', 'a: [1, true, null, x y]\n', 'a: [x:y]\n', 'a: [kb-1, b/c, é]\n'])('%j', (t) => {
    const fast = plainYaml(t);
    expect(fast).toBeDefined();
    expect(fast).toStrictEqual(YAML.parse(t));
  });
  it.each(['a: [x, ]\n', 'a: [ ]\n', 'a: [x, [y]]\n', 'a: ["x, y"]\n', 'a: [x] # c\n', 'a: [x: y]\n', 'a: [x #y]\n', 'a: [-x]\n', 'a: [1.5]\n'])('leaves %j to the parser', (t) => {
    const fast = plainYaml(t);
    if (fast !== undefined) expect(fast).toStrictEqual(YAML.parse(t));
  });
});
