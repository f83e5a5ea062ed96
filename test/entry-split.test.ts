// splitEntry cuts most files at their closing fence itself (src/core/format/entry.ts, splitAtFence) and leaves
// the rest to gray-matter. Both ways must give what gray-matter gives: compared here on entries made of both
// corpora's notes and on the edges (comment-only or empty front matter, spaces after a fence, blank lines and
// a `----` line around the fences).
import matter from 'gray-matter';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { formatEntry, splitEntry } from '../src/core/format/entry.js';
import { corpusNotes, hasCorpus } from './helpers/corpus.js';

function corpusEntries(corpus: 'jbranchaud-til' | 'tldr-pages', every: number): string[] {
  return corpusNotes(corpus, every).map((n) => {
    const title = /^# (.+)$/m.exec(n.text)?.[1]?.trim() ?? n.name;
    return formatEntry({ id: 'kb-3lz8j75zeh', title, type: 'reference', tags: [n.folder], created: '2026-12-01T18:54:43Z' }, n.text);
  });
}

const EDGES = [
  '---\ntitle: a\n---\nbody\n',
  '---\ntitle: a\n---\n\n\nbody after blank lines\n',
  '---\ntitle: a\n---',
  '---\ntitle: a\n---\n',
  '---   \ntitle: spaces after the opening fence\n---  \nbody\n',
  '---\n# only a comment\n---\nbody\n',
  '---\n\n---\nempty front matter\n',
  '---\ntitle: a\n----\nnot a fence\n---\nbody\n',
  '---\ntitle: a\n---x\n---\nbody\n',
  '---\ntitle: "quoted: value"\ntags:\n  - one\n  - two\n---\n---\nbody that starts with a fence line\n',
  '---\ntitle: a # comment\nn: 3\n---\nbody\n---\nmore\n',
  '---\ntitle: a\nexcerpt_separator: <!-- more -->\n---\nintro\n<!-- more -->\nrest\n',
  '---\ntitle: a\nexcerpt_separator:\n  toString: 1\n---\nbody\n',
];

describe('splitEntry', () => {
  it('gives what gray-matter gives, on real notes and on the edges', () => {
    const texts = [...corpusEntries('jbranchaud-til', 4), ...corpusEntries('tldr-pages', 16), ...EDGES];
    if (hasCorpus) expect(texts.length).toBeGreaterThan(800);
    for (const text of texts) {
      let ref;
      try {
        ref = matter(text, { engines: { yaml: { parse: (s: string) => YAML.parse(s) ?? {}, stringify: () => '' } } } as never);
      } catch {
        expect(() => splitEntry(text, 'x.md'), text).toThrow(); // what gray-matter cannot read, splitEntry refuses
        continue;
      }
      let got;
      try {
        got = splitEntry(text, 'x.md');
      } catch {
        continue; // refused (an empty or comment-only block is a mapping to gray-matter, not to git-kb)
      }
      expect(got.data, text).toEqual(ref.data);
      expect(got.body, text).toBe(ref.content.replace(/^\n/, ''));
    }
  });
});
