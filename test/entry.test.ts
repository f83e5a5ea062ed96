/**
 * The entry format as pure functions: ids, file names, slugs, paths, parsing (never evaluating), every validation
 * rule with its line, and formatting that round-trips and keeps what a person wrote.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KbError } from '../src/core/errors.js';
import {
  entryPath,
  formatEntry,
  idFromFileName,
  idFromPath,
  interpretEntry,
  isValidHostKey,
  isValidId,
  lineOfKey,
  newId,
  parseEntry,
  slugify,
  splitEntry,
  updateEntryText,
  wikiLinks,
} from '../src/core/format/entry.js';

const FILE = 'entries/kb-0001-x.md';
const ok = (fields: string, body = 'Body.\n'): string => `---\n${fields}\n---\n\n${body}`;
const base = 'id: kb-0001\ntitle: A title\ntype: decision';

function problemsOf(text: string, file = FILE, idExists?: (id: string) => boolean) {
  return parseEntry(text, file, idExists ? { idExists } : {}).problems;
}

describe('ids', () => {
  it('mints kb- plus ten base-36 characters that sort by time, and accepts legacy kb-NNNN', () => {
    const a = newId(new Date('2025-01-01T00:00:00Z'), () => 0);
    const b = newId(new Date('2025-01-01T00:00:01Z'), () => 0.999);
    expect(a).toMatch(/^kb-[0-9a-z]{10}$/);
    expect(a.endsWith('0000')).toBe(true);
    expect(b.endsWith('zzzz')).toBe(true);
    expect(a < b).toBe(true);
    expect(newId(new Date('2019-01-01'))).toMatch(/^kb-000000[0-9a-z]{4}$/);
    const many = new Set(Array.from({ length: 2000 }, () => newId()));
    expect(many.size).toBeGreaterThan(1990);
    for (const id of ['kb-0001', 'kb-3lvn4j5c8r', 'kb-a']) expect(isValidId(id), id).toBe(true);
    // In a v1 repo: decimal digits only (v1's scripts read `kb-` and digits), still sorting by time.
    const d1 = newId(new Date('2025-01-01T00:00:00Z'), () => 0, true);
    const d2 = newId(new Date('2025-01-01T00:00:01Z'), () => 0.999, true);
    expect(d1).toBe(`kb-${String(Date.UTC(2025, 0, 1) / 1000 - Date.UTC(2020, 0, 1) / 1000).padStart(10, '0')}000000`);
    expect(d2).toMatch(/^kb-\d{10}999999$/);
    expect(d1 < d2 && isValidId(d1)).toBe(true);
    for (const id of ['kb-', 'KB-0001', 'kb-00_1', 'kb-0001/../x', '../kb-1', 'kb-1 ', 42, undefined, `kb-${'a'.repeat(40)}`]) expect(isValidId(id), String(id)).toBe(false);
  });

  it('reads the id from a file name, with or without a slug', () => {
    expect(idFromFileName('kb-0001-some-slug.md')).toBe('kb-0001');
    expect(idFromFileName('kb-3lvn4j5c8r-hello-world.md')).toBe('kb-3lvn4j5c8r');
    expect(idFromFileName('kb-0042.md')).toBe('kb-0042');
    expect(idFromFileName('kb-3lvn4j5c8r.md')).toBe('kb-3lvn4j5c8r');
    for (const name of ['notes.md', 'kb-0001-x.txt', 'KB-0001-x.md', '.kb-0001-x.md.123.tmp', 'kb--x.md']) expect(idFromFileName(name), name).toBeUndefined();
    expect(idFromPath('entries/kb-0001-some-slug.md')).toBe('kb-0001');
    expect(idFromPath('hosts/db-1/kb-0042.md')).toBe('kb-0042');
    expect(idFromPath('kb-0007-top.md')).toBe('kb-0007');
    for (const p of ['kb-0001/notes.md', 'entries/', '']) expect(idFromPath(p), p).toBeUndefined();
  });

  it('validates host keys', () => {
    for (const k of ['web-1', 'db_2', 'a']) expect(isValidHostKey(k)).toBe(true);
    for (const k of ['', '-x', 'Web', '../x', 'a/b', 'a'.repeat(65)]) expect(isValidHostKey(k), k).toBe(false);
  });
});

describe('file names and paths', () => {
  it('slugifies titles to lowercase ASCII words, at most 50 characters', () => {
    expect(slugify('Prefer small, focused commits!')).toBe('prefer-small-focused-commits');
    expect(slugify('Café crème à Orléans')).toBe('cafe-creme-a-orleans');
    expect(slugify('Größenänderung: Ærø, Łódź')).toBe('grossenanderung-aero-lodz');
    expect(slugify('日本語')).toBe('entry');
    expect(slugify('   ')).toBe('entry');
    const long = slugify('a very long title that keeps going and going well past the fifty character limit');
    expect(long.length).toBeLessThanOrEqual(50);
    expect(long).not.toMatch(/-$/);
    expect(slugify('../../etc/passwd')).toBe('etc-passwd');
  });

  it('places entries by type: entries/, hosts/<key>/, sessions/<yyyy>/<mm>/', () => {
    expect(entryPath({ id: 'kb-1', title: 'T t', type: 'decision' })).toBe('entries/kb-1-t-t.md');
    expect(entryPath({ id: 'kb-1', title: 'T', type: 'host_fact', host: 'web-1' })).toBe('hosts/web-1/kb-1-t.md');
    expect(entryPath({ id: 'kb-1', title: 'T', type: 'session_summary', created: '2025-03-04T05:06:07Z' })).toBe('sessions/2025/03/kb-1.md');
    expect(() => entryPath({ id: 'kb-1', title: 'T', type: 'host_fact', host: '../../x' })).toThrow(KbError);
    expect(() => entryPath({ id: 'kb-1', title: 'T', type: 'host_fact' })).toThrow(/host key/);
  });

  it('finds [[id]] links in a body', () => {
    expect(wikiLinks('See [[kb-0001]], [[kb-abc|alias]] and [[kb-0001#part]]; not [[Other]] or [kb-2].')).toEqual(['kb-0001', 'kb-abc']);
  });
});

describe('splitEntry', () => {
  it('splits front matter and body, normalising CRLF and a BOM, with the body line', () => {
    const raw = splitEntry('\uFEFF---\r\nid: kb-0001\r\ntitle: T\r\n---\r\n\r\nLine one\r\nLine two\r\n', FILE);
    expect(raw.data).toEqual({ id: 'kb-0001', title: 'T' });
    expect(raw.body).toBe('Line one\nLine two\n');
    expect(raw.bodyLine).toBe(6);
    expect(splitEntry('---\nid: kb-1\n---\nNo blank line\n', FILE).bodyLine).toBe(4);
    expect(splitEntry('---\n---\n', FILE).data).toEqual({});
  });

  it('keeps dates and version-like values as written, and never shares parsed objects between calls', () => {
    const text = '---\nid: kb-0001\ncreated: 2026-06-22\nversion: "1.10"\n---\n';
    const one = splitEntry(text, FILE);
    expect(one.data.created).toBe('2026-06-22');
    expect(one.data.version).toBe('1.10');
    (one.data as Record<string, unknown>).title = 'mutated';
    expect(splitEntry(text, FILE).data.title).toBeUndefined();
  });

  it('refuses what is not an entry, naming the file and line', () => {
    const cases: [string, RegExp][] = [
      ['no front matter\n', /^entries\/kb-0001-x\.md:1: no front matter/],
      ['---\nid: kb-1\nno closing fence\n', /:1: front matter is not closed/],
      ['---\n- a\n- b\n---\n', /:2: front matter must be a YAML mapping/],
      ['---\njust a string\n---\n', /:2: front matter must be a YAML mapping/],
      ['---\nid: kb-1\ntitle: a: b\n---\n', /:3: malformed YAML front matter/],
      ['---\nid: kb-1\ntype: x\ntags: [a, b\n---\n', /:4: malformed YAML front matter/],
      ['---\nid: kb-1\nid: kb-2\n---\n', /:3: malformed YAML front matter: Map keys must be unique/],
      ['---\nid: \u0000\n---\n', /:1: binary content/],
      ['---toml\nid = 1\n---\n', /:1: front matter in "toml" is refused/],
    ];
    for (const [text, message] of cases) {
      let err: unknown;
      try {
        splitEntry(text, FILE);
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(text)).toBeInstanceOf(KbError);
      expect((err as KbError).code).toBe('INVALID_ENTRY');
      expect((err as KbError).message, JSON.stringify(text)).toMatch(message);
      expect((err as KbError).data.file).toBe(FILE);
    }
  });

  it('names the line a flow list, flow map or quoted value was left open on, in a sentence that ends cleanly', () => {
    // The YAML parser notices the missing `]`, `}` or quote where the next key starts: a line or more below.
    const cases: [string, number, RegExp][] = [
      ['---\nid: kb-0001\ntitle: T\ntype: decision\ntags: [oops\naliases:\n  - T\ncreated: 2026-01-01\n---\n\nBody.\n', 5, /end with a \]$/],
      ['---\nid: kb-0001\ntags: {a\ntype: decision\n---\n', 3, /end with a \}$/],
      ['---\nid: kb-0001\ntitle: "abc\ntype: decision\n---\n', 3, /Missing closing "quote$/],
      ['---\nid: kb-0001\nlinks:\n  - {rel: relates_to, to: [kb-1\n  - x\ntype: d\n---\n', 4, /malformed YAML front matter: /],
      ['---\nid: kb-1\nid: kb-2\n---\n', 3, /Map keys must be unique$/],
    ];
    for (const [text, line, end] of cases) {
      let err: KbError | undefined;
      try {
        splitEntry(text, FILE);
      } catch (e) {
        err = e as KbError;
      }
      expect(err, JSON.stringify(text)).toBeInstanceOf(KbError);
      expect(err!.data.line, JSON.stringify(text)).toBe(line);
      expect(err!.message.startsWith(`${FILE}:${line}: malformed YAML front matter: `), err!.message).toBe(true);
      expect(err!.message, JSON.stringify(text)).toMatch(end);
      expect(err!.message).not.toMatch(/at line \d+, column \d+|:$/);
      // lint's finding carries the same line and message
      const found = problemsOf(text).find((p) => p.rule === 'parse');
      expect(found?.line).toBe(line);
      expect(found?.message).not.toMatch(/column \d+:?$/);
    }
  });

  it('never evaluates ---js or ---javascript front matter', () => {
    const marker = path.join(os.tmpdir(), `gkb-entry-js-${process.pid}`);
    fs.rmSync(marker, { force: true });
    for (const fence of ['---js', '---javascript', '--- js', '---JS']) {
      const text = `${fence}\n{ title: (function(){ require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); return 'pwned'; })() }\n---\nbody\n`;
      expect(() => splitEntry(text, FILE), fence).toThrow(/never evaluated/);
      const parsed = parseEntry(text, FILE);
      expect(parsed.entry).toBeUndefined();
      expect(parsed.problems).toEqual([expect.objectContaining({ rule: 'parse', line: 1, file: FILE })]);
    }
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('interpretEntry rules', () => {
  it('accepts a complete entry and reads every field', () => {
    const text = ok(
      `${base}\ntags: [a, b]\naliases: [alt]\nlinks:\n  - rel: relates_to\n    to: kb-0002\nurl: https://example.com\napplies_to: [coding]\nkernel: true\nrules:\n  - pattern: "\\\\butilize\\\\b"\n    message: say use\ncreated: 2024-01-01\nupdated: 2024-02-02T10:00:00Z\ncustom: kept`,
      'See [[kb-0002]].\n',
    );
    const { entry, problems } = parseEntry(text, FILE, { idExists: (id) => id === 'kb-0002' });
    expect(problems).toEqual([]);
    expect(entry).toMatchObject({
      id: 'kb-0001',
      title: 'A title',
      type: 'decision',
      tags: ['a', 'b'],
      aliases: ['alt'],
      links: [{ rel: 'relates_to', to: 'kb-0002' }],
      url: 'https://example.com',
      appliesTo: ['coding'],
      kernel: true,
      rules: [{ pattern: '\\butilize\\b', message: 'say use' }],
      created: '2024-01-01',
      updated: '2024-02-02T10:00:00Z',
      body: 'See [[kb-0002]].\n',
      path: FILE,
    });
    expect(entry!.data.custom).toBe('kept');
  });

  it('reports each broken rule with its line', () => {
    const cases: [string, string, number, string?][] = [
      ['title: T\ntype: decision', 'id-missing', 2],
      ['id: KB-1\ntitle: T\ntype: decision', 'id-invalid', 2],
      ['id: kb-0002\ntitle: T\ntype: decision', 'id-mismatch', 2],
      [`${base.replace('title: A title', 'title: ""')}`, 'title-missing', 3],
      ['id: kb-0001\ntitle: T\ntype: musing', 'type-unknown', 4],
      ['id: kb-0001\ntitle: T', 'type-unknown', 2],
      [`${base}\ntags: {a: 1}`, 'tags-invalid', 5],
      [`${base}\nlinks: kb-0002`, 'links-invalid', 5],
      [`${base}\nlinks:\n  - rel: inspired_by\n    to: kb-0002`, 'rel-unknown', 5],
      [`${base}\nlinks:\n  - rel: relates_to\n    to: ../x`, 'link-invalid', 5],
      ['id: kb-0001\ntitle: T\ntype: bookmark', 'url-missing', 2],
      [`${base}\nurl: not a url`, 'url-invalid', 5],
      [`${base}\napplies_to: [dancing]`, 'activity-unknown', 5],
      [`${base}\nkernel: "yes"`, 'kernel-invalid', 5],
      [`${base}\nhost: ../x`, 'host-invalid', 5],
      ['id: kb-0001\ntitle: T\ntype: host_fact', 'host-missing', 2],
      [`${base}\naliases: {a: b}`, 'aliases-invalid', 5],
      [`${base}\nrules:\n  - pattern: "(a+)+"\n    message: m`, 'rule-invalid', 5],
      [`${base}\nrules:\n  - pattern: "(unclosed"\n    message: m`, 'rule-invalid', 5],
      [`${base}\ncreated: last tuesday`, 'date-invalid', 5],
    ];
    for (const [fields, rule, line] of cases) {
      const problems = problemsOf(ok(fields));
      const p = problems.find((x) => x.rule === rule);
      expect(p, `${rule} in ${JSON.stringify(problems)}`).toBeDefined();
      expect(p!.line, rule).toBe(line);
      expect(p!.file).toBe(FILE);
    }
    expect(problemsOf(ok(base), 'entries/notes.md').map((p) => p.rule)).toContain('file-name');
  });

  it('reports a typed link from an entry to itself (link-self), at the links line', () => {
    const problems = problemsOf(ok(`${base}\nlinks:\n  - rel: relates_to\n    to: kb-0002\n  - rel: part_of\n    to: kb-0001`), FILE, () => true);
    expect(problems.map((p) => [p.rule, p.line])).toEqual([['link-self', 5]]);
    expect(problems[0]!.message).toContain('kb-0001');
  });

  it('reads the front matter text a bounded number of times however many problems share a key (not once per link)', () => {
    // NOTE: an operation count, not a timing: 5,000 links to itself once split the front matter 5,000 times to
    // find the links line, quadratic in the file's size (F4: 40,000 links took minutes).
    const reads = (n: number): { count: number; problems: number; lines: Set<number> } => {
      const raw = splitEntry(ok(`${base}\nlinks:\n${'  - {rel: relates_to, to: kb-0001}\n'.repeat(n)}`), FILE);
      let count = 0;
      const frontmatter = raw.frontmatter;
      const counted = { ...raw, get frontmatter() { count++; return frontmatter; } };
      const { problems } = interpretEntry(counted, FILE, { idExists: () => true });
      return { count, problems: problems.filter((p) => p.rule === 'link-self').length, lines: new Set(problems.map((p) => p.line ?? 0)) };
    };
    const small = reads(10);
    const large = reads(5000);
    expect(small.problems).toBe(10);
    expect(large.problems).toBe(5000);
    expect([...large.lines]).toEqual([5]);
    expect(large.count).toBe(small.count);
  });

  it('checks links against the repo only when asked, in front matter and in the body', () => {
    const text = ok(`${base}\nlinks:\n  - rel: relates_to\n    to: kb-0404`, 'One.\nSee [[kb-0405]].\n');
    expect(problemsOf(text)).toEqual([]);
    const problems = problemsOf(text, FILE, () => false);
    expect(problems.map((p) => [p.rule, p.line])).toEqual([
      ['link-dangling', 5],
      ['link-dangling', 11],
    ]);
  });

  it('gives each body link its own line: at a line start, after a blank line, two on one line, and on the last line', () => {
    const body = '[[kb-0405]] first\n\nthen [x](kb-0406-y.md)\n[[kb-0407]] and [[kb-0408]]\nlast [[kb-0409]]';
    const problems = problemsOf(ok(base, body), FILE, () => false);
    expect(problems.filter((p) => p.rule === 'link-dangling').map((p) => [p.message.slice(0, 24), p.line])).toEqual([
      ['[[kb-0405]] in the body ', 7],
      ['[x](kb-0406-y.md) in the', 9],
      ['[[kb-0407]] in the body ', 10],
      ['[[kb-0408]] in the body ', 10],
      ['[[kb-0409]] in the body ', 11],
    ]);
  });

  it('finds the line of a top-level key', () => {
    expect(lineOfKey('id: x\ntitle: y\ntype: z\n', 'type')).toBe(4);
    expect(lineOfKey('id: x\n', 'missing')).toBe(2);
  });
});

describe('formatting', () => {
  it('formats a new entry in field order, leaving out empty lists and false flags, and parses back', () => {
    const text = formatEntry({ updated: 'u', created: 'c', title: 'T', id: 'kb-0001', type: 'decision', tags: [], links: [], kernel: false, extra: 'x', url: undefined }, 'Body\r\n\r\n\n');
    expect(text).toBe('---\nid: kb-0001\ntitle: T\ntype: decision\ntags: []\ncreated: c\nupdated: u\nextra: x\n---\n\nBody\n');
    expect(parseEntry(text, FILE).entry).toMatchObject({ id: 'kb-0001', body: 'Body\n' });
    expect(formatEntry({ id: 'kb-0001', title: 'T', type: 'decision' }, '')).toBe('---\nid: kb-0001\ntitle: T\ntype: decision\n---\n');
  });

  it('quotes what YAML would otherwise change, and keeps awkward titles intact', () => {
    for (const title of ['1.10', 'yes', 'null', '- dash', 'a: b', '#hash', "it's \"quoted\"", '@at', '*star']) {
      const text = formatEntry({ id: 'kb-0001', title, type: 'decision', version: '1.10' }, '');
      const entry = parseEntry(text, FILE).entry!;
      expect(entry.title, title).toBe(title);
      expect(entry.data.version).toBe('1.10');
    }
  });

  it('updates fields in place, keeping comments, unknown fields and key order', () => {
    const before = '---\nid: kb-0001\n# why this exists\ntitle: Old\ntype: decision\ncustom: keep\ntags: [a]\n---\n\nBody.\n';
    const after = updateEntryText(before, FILE, { title: 'New', tags: ['a', 'b'], url: undefined, updated: '2025-01-01' });
    expect(after).toContain('# why this exists');
    expect(after).toContain('custom: keep');
    expect(after.indexOf('title: New')).toBeLessThan(after.indexOf('custom: keep'));
    expect(after).toMatch(/\nupdated: 2025-01-01\n---\n\nBody\.\n$/);
    expect(parseEntry(after, FILE).entry).toMatchObject({ title: 'New', tags: ['a', 'b'] });
    const cleared = updateEntryText(after, FILE, { custom: undefined }, 'New body');
    expect(cleared).not.toContain('custom');
    expect(cleared).toMatch(/---\n\nNew body\n$/);
  });
});
