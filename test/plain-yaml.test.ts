/**
 * The fast reader of git-kb's own front matter (src/core/format/plain-yaml.ts) gives exactly what the YAML library
 * gives (YAML 1.2, core schema), or nothing: over front matter the YAML library writes for awkward values, and over
 * hand-written YAML it must leave to the parser.
 */
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { plainYaml, plainYamlText } from '../src/core/format/plain-yaml.js';
import { corpusNotes, hasCorpus } from './helpers/corpus.js';

const AWKWARD = [
  'plain words', 'Use: colons here', 'a:b', 'trailing:', ' leading space', 'trailing space ', 'tab\there', "It's 'quoted' \"twice\"",
  '# not a comment', 'a # comment?', 'a#b', '- dash', '-dash', '--', '? question', '[brackets]', 'mid [brackets]', '{brace}', '&anchor', '*alias',
  '!tag', '|block', '>folded', '%percent', '@at', '`tick`', 'true', 'True', 'TRUE', 'false', 'yes', 'no', 'on', 'off', 'null', 'Null', '~',
  '', '0', '7', '007', '-5', '+5', '12345678901234567890', '1.5', '.5', '1e3', '1E-3', '0x1F', '0o17', '.inf', '-.inf', '.nan', '1_000',
  '2024-01-01', '2024-01-01T01:39:00Z', '2024-01-01 01:39:00', 'kb-235ol02rzz', 'https://example.com/x?y=1#z', 'C:\\path', 'back\\slash',
  'unicode é 日本 😀', 'line\nbreak', '"', "'", 'say "hi"', "it's", '__proto__', 'constructor',
  'ctrl\x01char', 'del\x7fchar', 'nel\x85char', 'ls\u2028char', 'bom\ufeffchar', 'nbsp\u00a0char', '\u00a0lead', 'trail\u00a0', '\ufefflead',
];

function check(text: string): 'fast' | 'parser' {
  const fast = plainYaml(text);
  if (fast === undefined) return 'parser';
  const doc = YAML.parseDocument(text, { logLevel: 'error' });
  expect(doc.errors, text).toEqual([]);
  expect(fast, text).toStrictEqual(doc.toJS() ?? {});
  return 'fast';
}

describe('plainYaml', () => {
  it('reads what YAML.stringify writes for front matter exactly as the YAML library does, awkward values included', () => {
    const ways = { fast: 0, parser: 0 };
    for (const v of AWKWARD) {
      for (const doc of [
        { id: 'kb-3lz8j75zeh', title: v, type: 'decision', tags: [v, 'b-c'], created: '2026-12-01T18:54:43Z' },
        { id: 'kb-3lz8j7dyfj', title: 'Link', tags: [], aliases: ['one', v], links: [{ rel: 'relates_to', to: v }], url: v, kernel: true, recurrences: 2 },
        { [`k${v.length}`]: v, seen: ['2026-12-01', '2026-12-01'], n: 0, f: false, nothing: null },
      ]) ways[check(YAML.stringify(doc, { lineWidth: 0 }))]++;
    }
    // most of them take the fast way; whatever does not is left to the parser, never read otherwise
    expect(ways.fast).toBeGreaterThan(ways.parser);
  });

  it('leaves to the parser what it does not take, and reads the rest as the parser does', () => {
    const texts = [
      'a: 1\n\nb: 2\n', 'a: 1 # c\n', '# c\na: 1\n', 'a: &x 1\nb: *x\n', 'a: !!str 1\n', 'a: |\n  x\n', 'a: >\n  x\n', 'a: {b: 1}\n', 'a: [1, 2]\n',
      'a:\n  b: 1\n', 'a:\n- x\n', 'a:\n  - x\n  -y\n', 'a: 1\na: 2\n', 'a:\n', 'a: \n', 'a:  x\n', 'a:\tx\n', 'a: "x\\ny"\n', "a: 'x''y'\n", "a: 'x'y'\n",
      'a: "x" y\n', 'a: x: y\n', '"a": 1\n', '1: x\n', 'a: 1.0\n', 'a: 0x10\n', 'a: +1\n', 'a:\n  - b: 1\n    c: 2\n  - d: 3\n', 'a:\n  - b: 1\n    b: 2\n',
      'a:\n  - b: 1\n      c: 2\n', '---\na: 1\n', 'a: 1\n...\n', 'a: 1', '', 'a: x\r\n', '__proto__: 1\n', 'a:\n  - b: [1]\n',
    ];
    for (const t of texts) check(t);
    expect(plainYaml('a: 1\n\nb: 2\n')).toBeUndefined();
    expect(plainYaml('a: 1\na: 2\n')).toBeUndefined(); // the parser reports the repeated key
    expect(plainYaml('a:\n  - b: 1\n    c: 2\n  - d: 3\n')).toEqual({ a: [{ b: 1, c: 2 }, { d: 3 }] });
  });
});

/** Writes `doc` the fast way when it can, and holds it to the library's text. */
function write(doc: Record<string, unknown>): 'fast' | 'library' {
  const fast = plainYamlText(doc);
  if (fast === undefined) return 'library';
  expect(fast, JSON.stringify(doc)).toBe(YAML.stringify(doc, { lineWidth: 0 }));
  return 'fast';
}

/** The fields an import makes of every note of a corpus: its heading as the title, its folder as a tag. */
function corpusFields(corpus: 'jbranchaud-til' | 'tldr-pages'): Record<string, unknown>[] {
  return corpusNotes(corpus).map((n) => ({ title: /^# (.+)$/m.exec(n.text)?.[1]?.trim() ?? n.name, tags: [n.folder], aliases: [n.name.replace(/\.md$/, '')] }));
}

describe('plainYamlText', () => {
  it('writes exactly what YAML.stringify writes, awkward values included, or leaves it to the library', () => {
    const ways = { fast: 0, library: 0 };
    for (const v of AWKWARD) {
      for (const doc of [
        { id: 'kb-3lz8j75zeh', title: v, type: 'decision', tags: [v, 'b-c'], created: '2026-12-01T18:54:43Z' },
        { id: 'kb-3lz8j7dyfj', title: 'Link', tags: [], aliases: ['one', v], links: [{ rel: 'relates_to', to: v }], url: v, kernel: true, recurrences: 2 },
        { [`k${v.length}`]: v, seen: ['2026-12-01', '2026-12-01'], n: 0, f: false, neg: -3 },
        { title: v.length, big: 2 ** 60, float: 1.5, nothing: null, date: new Date(0), nested: { a: v }, deep: [[v]] },
      ]) ways[write(doc)]++;
    }
    // keys the core schema reads as another type, and halves of surrogate pairs: the library quotes or escapes them
    for (const key of ['true', 'False', 'null', 'NULL', '1', '0x1F', 'yes', 'k']) {
      for (const doc of [{ [key]: 'x' }, { links: [{ [key]: 'x', to: 'y' }] }, { a: 'x\uD800y' }, { a: ['\uDC00'] }, { a: 'pair 😀' }]) write(doc);
    }
    // both ways taken often: the awkward values go to the library, the plain ones are written here
    expect(ways.fast).toBeGreaterThan(50);
    expect(ways.library).toBeGreaterThan(50);
  });

  it.skipIf(!hasCorpus)("writes the real corpora's front matter (titles, tags, dates) as the library does", () => {
    let fast = 0;
    const all = [...corpusFields('jbranchaud-til'), ...corpusFields('tldr-pages')];
    for (const f of all) {
      const doc = { id: 'kb-3lz8j75zeh', type: 'reference', tags: [], ...f, created: '2026-12-01T18:54:43Z' };
      if (write(doc) === 'fast') fast++;
    }
    expect(fast).toBeGreaterThan(all.length / 2);
  });
});
