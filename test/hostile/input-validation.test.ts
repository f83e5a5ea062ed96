/**
 * Hostile battery (issue 16), inputs that should be refused or made safe (F17, F18, F19, F22, F26): invalid
 * UTF-8 on every input path, multi-line titles and odd tags, invalid --since dates, terminal escapes in titles,
 * and YAML keys that are collections. Entries that the CLI would refuse are written by hand and committed with
 * the real git, as a person or another tool would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, git, kb, makeSandbox, run, type RunResult, type Sandbox } from '../helpers/cli.js';
import { payload, runPromptHook } from '../hooks/prompt-support.js';
import { checkFreshness, indexFile } from '../../src/adapters/index/fresh.js';
import { openPromptIndex } from '../../src/adapters/index/prompt/delta.js';
import { readAllFiles } from '../../src/adapters/index/prompt/format.js';
import { stateDir } from '../../src/adapters/store/layout.js';
import { linePath, pathLine } from '../../src/core/text/path-line.js';
import { readStatTable, writeStatTable } from '../../src/adapters/index/stat-table.js';
import { seeded } from './support.js';
import { CONTROL, visible } from './support.js';

let sb: Sandbox;
let existing: string;
beforeAll(async () => {
  sb = makeSandbox('gkb-hinput-');
  const r = await kb(sb, ['--data', sb.data, '--json', 'add', '--type', 'decision', '--title', 'An entry to edit', '--', 'Plain body about the cafe.']);
  if (r.code !== 0) throw new Error(r.stderr);
  existing = JSON.parse(r.stdout).id;
});
afterAll(() => sb.cleanup());

const kbd = (args: string[], input?: string | Buffer): Promise<RunResult> => run(process.execPath, [CLI, '--data', sb.data, ...args], { env: sb.env, input, cwd: sb.root });
const head = async (): Promise<string> => (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();

/** Writes an entry file by hand and commits it with git (message as given). */
async function handEntry(rel: string, text: string | Buffer, message: string): Promise<void> {
  const abs = path.join(sb.data, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, text);
  await git(sb.data, ['add', '-A'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', message], sb.env);
}

/** Removes a hand-written entry again (and commits), so later tests see a clean repo. */
async function dropEntry(rel: string): Promise<void> {
  fs.rmSync(path.join(sb.data, rel), { force: true });
  await git(sb.data, ['add', '-A'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', `drop ${rel}`], sb.env);
}

function front(fields: string[], body = 'Body text.'): string {
  return ['---', ...fields, 'created: 2026-01-01T00:00:00Z', 'updated: 2026-01-01T00:00:00Z', '---', '', body, ''].join('\n');
}

describe('F17: invalid UTF-8 on every input path', () => {
  // "café au lait" in Latin-1: the é is the single byte 0xE9, not valid UTF-8.
  const LATIN1 = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from(' au lait, in Latin-1\n')]);

  it('F17: add --file, add on stdin, edit --file and import refuse invalid UTF-8 with an error naming the input; nothing committed', async () => {
    const file = path.join(sb.root, 'latin1-note.txt');
    fs.writeFileSync(file, LATIN1);
    const notes = path.join(sb.root, 'latin1-notes');
    fs.mkdirSync(notes, { recursive: true });
    fs.writeFileSync(path.join(notes, 'cafe-menu.md'), Buffer.concat([Buffer.from('# Menu\n\n'), LATIN1]));
    const before = await head();
    const attempts: { name: string; r: RunResult; names: RegExp }[] = [
      { name: 'add --file', r: await kbd(['add', '--type', 'decision', '--title', 'Latin one file', '--file', file]), names: /latin1-note\.txt|--file/ },
      { name: 'add (stdin)', r: await kbd(['add', '--type', 'decision', '--title', 'Latin one stdin'], LATIN1), names: /stdin/i },
      { name: 'edit --file', r: await kbd(['edit', existing, '--file', file]), names: /latin1-note\.txt|--file/ },
      { name: 'edit --file - (stdin)', r: await kbd(['edit', existing, '--file', '-'], LATIN1), names: /stdin|--file/i },
      { name: 'import', r: await kbd(['import', notes]), names: /cafe-menu\.md/ },
    ];
    const failures: string[] = [];
    for (const { name, r, names } of attempts) {
      if (r.code === 0) failures.push(`${name}: accepted (exit 0)`);
      else if (!/utf-?8|encoding/i.test(r.stderr) || !names.test(r.stderr)) failures.push(`${name}: exit ${r.code} but the error does not say invalid UTF-8 in the named input: ${r.stderr.trim().slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(await head(), 'something was committed').toBe(before);
    const stored = (await git(sb.data, ['grep', '-l', '\uFFFD', 'HEAD', '--', '.'], sb.env).catch(() => '')).trim();
    expect(stored, 'U+FFFD stored in an entry').toBe('');
  });
});

describe('F18: multi-line titles and odd tags', () => {
  it('F18: add refuses a multi-line --title (exit 2 or 5, a clear message) and commits nothing', async () => {
    const before = await head();
    const r = await kbd(['add', '--type', 'decision', '--title', 'first line of the title\nsecond line of the title', '--', 'body']);
    expect([2, 5], `exit ${r.code}: ${r.stdout}${r.stderr}`).toContain(r.code);
    expect(r.stderr).toMatch(/title/i);
    expect(r.stderr).toMatch(/line|newline/i);
    expect(await head()).toBe(before);
  });

  it('F18: tags with capitals or spaces are normalised (lower case, spaces to -) or refused', async () => {
    const r = await kbd(['--json', 'add', '--type', 'decision', '--title', 'Tag casing probe', '--tags', 'Foo Bar,BIG', '--', 'body']);
    if (r.code === 0) {
      const id = JSON.parse(r.stdout).id as string;
      const got = await kbd(['--json', 'get', id]);
      const text = got.stdout;
      expect(text, 'a tag kept its capitals or spaces').not.toMatch(/Foo Bar|BIG/);
      expect(text).toMatch(/foo-bar/);
      expect(text).toMatch(/\bbig\b/);
    } else {
      expect([2, 5]).toContain(r.code);
      expect(r.stderr).toMatch(/tag/i);
    }
  });

  it('F18: lint flags a hand-written entry with a multi-line title and tags with capitals and spaces', async () => {
    const rel = 'entries/kb-t0f18a-odd-title-and-tags.md';
    await handEntry(rel, front(['id: kb-t0f18a', 'title: "first line\\nsecond line"', 'type: decision', 'tags: [Foo Bar, BIG]']), 'hand-written entry');
    try {
      const lint = await kbd(['--json', 'lint']);
      const problems = (JSON.parse(lint.stdout).problems as { rule: string; file: string; message: string }[]).filter((p) => p.file === rel);
      expect(lint.code, 'lint exit').toBe(5);
      expect(problems.some((p) => /title/i.test(`${p.rule} ${p.message}`)), `no title problem: ${JSON.stringify(problems)}`).toBe(true);
      expect(problems.some((p) => /tag/i.test(`${p.rule} ${p.message}`)), `no tag problem: ${JSON.stringify(problems)}`).toBe(true);
    } finally {
      await dropEntry(rel);
    }
  });
});

describe('F19: --since the same for search and list', () => {
  for (const since of ['yesterday', '2026-13-45', 'not-a-date']) {
    it(`F19: search and list give the same outcome for --since ${since}`, async () => {
      const list = await kbd(['list', '--since', since]);
      const search = await kbd(['search', 'cafe', '--since', since]);
      expect({ search: search.code }, `list exited ${list.code} (${list.stderr.trim()}), search exited ${search.code} (${(search.stdout + search.stderr).trim()})`).toEqual({ search: list.code });
      if (list.code !== 0) expect(search.stderr).toMatch(/--since/);
    });
  }
});

describe('F22: terminal escapes in titles', () => {
  const ESC = '\x1b';
  const BEL = '\x07';
  const title = `evil ${ESC}[31mred${ESC}[0m ${ESC}]0;pwned${BEL} ${ESC}]8;;http://evil.example/${ESC}\\link${ESC}]8;;${ESC}\\ title`;
  const id = 'kb-t0f22a';
  const rel = `entries/${id}-evil-title.md`;

  beforeAll(async () => {
    // Written by hand (add may refuse it), committed with git; the commit subject carries the title, as
    // git-kb's own "add <id>: <title>" would on another machine.
    await handEntry(rel, front([`id: ${id}`, `title: ${JSON.stringify(title)}`, 'type: decision', 'tags: [escapes]'], 'The body mentions zebrafish.'), `add ${id}: ${title}`);
  });

  it('F22: list, search, history and error messages print no ESC or other control characters', async () => {
    const runs: [string, RunResult][] = [
      ['list', await kbd(['list'])],
      ['search', await kbd(['search', 'zebrafish'])],
      ['history', await kbd(['history', id])],
      ['get (bad id)', await kbd(['get', `kb-${ESC}]0;x${BEL}${ESC}[2J`])],
      ['search (query with escapes)', await kbd(['search', `${ESC}[2Jzebrafish${ESC}[0m`])],
      ['lint', await kbd(['lint'])],
    ];
    const failures: string[] = [];
    for (const [name, r] of runs) {
      for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
        const bad = text.split('\n').filter((l) => CONTROL.test(l.replace(/\t/g, '')));
        if (bad.length) failures.push(`${name} ${stream}: ${visible(bad[0]!).slice(0, 160)}`);
      }
    }
    // The entry is really there (the test is not vacuous).
    expect(runs[0]![1].stdout).toContain(id);
    expect(failures).toEqual([]);
  });
});

describe('bidi overrides and zero-width characters in a title', () => {
  // "Trojan source": U+202E makes what follows read backwards; U+200B makes "deploy" and "de\u200bploy" look alike.
  const title = 'Deploy \u202enoitcudorp\u202c to prod with de\u200bploy and \u2066isolate\u2069';
  const id = 'kb-t0bidi';
  const rel = `entries/${id}-bidi-title.md`;

  beforeAll(async () => {
    await handEntry(rel, front([`id: ${id}`, `title: ${JSON.stringify(title)}`, 'type: decision', 'tags: [bidi]'], 'The body mentions narwhals.'), `add ${id}: ${title}`);
  });

  it('list, search and get name them by code point on a terminal; --json keeps the title as it is', async () => {
    const shown = 'Deploy <U+202E>noitcudorp<U+202C> to prod with de<U+200B>ploy and <U+2066>isolate<U+2069>';
    for (const args of [['list'], ['search', 'narwhals'], ['get', id]]) {
      const r = await kbd(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toContain(shown);
      expect(r.stdout, args.join(' ')).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b]/);
    }
    const json = await kbd(['list', '--json']);
    expect(JSON.parse(json.stdout).entries.find((e: { id: string }) => e.id === id).title).toBe(title);
  });
});

describe('F26: a YAML key that is a collection', () => {
  const cases = [
    { id: 'kb-t0f26a', key: ['? [a, b]', ': 1'] },
    { id: 'kb-t0f26b', key: ['{a: 1}: x'] },
  ];

  it('F26: list, search and lint print no Node warning, and lint reports the entry with file and line', async () => {
    const rels: string[] = [];
    for (const c of cases) {
      const rel = `entries/${c.id}-collection-key.md`;
      rels.push(rel);
      await handEntry(rel, front([`id: ${c.id}`, 'title: Collection key in front matter', 'type: decision', 'tags: []', ...c.key], 'Body about quokkas.'), `add ${c.id}`);
    }
    try {
      const failures: string[] = [];
      const list = await kbd(['list']);
      const search = await kbd(['search', 'quokkas']);
      const lint = await kbd(['--json', 'lint']);
      for (const [name, r] of [['list', list], ['search', search], ['lint', lint]] as const) {
        if (/Warning|\(node:/.test(r.stderr)) failures.push(`${name} stderr: ${r.stderr.split('\n').find((l) => /Warning|\(node:/.test(l))}`);
      }
      const problems = JSON.parse(lint.stdout).problems as { rule: string; file: string; line?: number }[];
      for (const rel of rels) {
        const p = problems.find((x) => x.file === rel);
        if (!p) failures.push(`lint does not report ${rel}`);
        else if (!(typeof p.line === 'number' && p.line >= 2)) failures.push(`lint reports ${rel} without the line of the key (line ${p.line})`);
      }
      if (lint.code !== 5) failures.push(`lint exited ${lint.code}`);
      expect(failures).toEqual([]);
    } finally {
      for (const rel of rels) await dropEntry(rel);
    }
  });
});

describe('file names that break a line: a newline in an entry file name', () => {
  it('pathLine and linePath give back every path, and leave a plain one as it is', () => {
    const rand = seeded(7);
    const alphabet = ['a', 'n', '\\', '\n', '\t', '/', 'é', '\r'];
    for (let i = 0; i < 2000; i++) {
      const p = Array.from({ length: Math.floor(rand() * 12) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
      const line = pathLine(p);
      expect(line).not.toContain('\n');
      expect(linePath(line)).toBe(p);
    }
    expect(pathLine('entries/kb-1-a b\tc.md')).toBe('entries/kb-1-a b\tc.md');
  });

  it('a stat table escapes its paths only when one needs it, and says so: one written before reads as written', () => {
    const file = path.join(sb.root, 'table.v1');
    const st = { mtimeMs: 1, ctimeMs: 2, size: 3, ino: 4 };
    const paths = ['entries/a\nb.md', 'entries/back\\slash.md', 'entries/plain.md'];
    writeStatTable(file, 'test-table 1', {}, paths.map((p) => ({ path: p, ...st })));
    expect(readStatTable(file, 'test-table 1')!.paths).toEqual(paths);
    // a table of plain paths has no mark; one written before the escaping, with a backslash in a path, reads raw
    writeStatTable(file, 'test-table 1', {}, ['entries/x/a.md'].map((p) => ({ path: p, ...st })));
    const bytes = fs.readFileSync(file, 'latin1');
    expect(bytes).not.toContain('escaped');
    fs.writeFileSync(file, bytes.replace('entries/x/a.md', 'entries\\x\\a.md'), 'latin1');
    expect(readStatTable(file, 'test-table 1')!.paths).toEqual(['entries\\x\\a.md']);
  });

  it('are one file to every cache: search and list are served as stored, the prompt index stays fresh', async () => {
    // NOTE: a backslash is read as a folder separator (safeJoin, as on Windows); a name with `\n` in it
    // is still written escaped in every line-oriented cache.
    const rels = ['entries/kb-0nl0001a-line\nbreak.md', 'entries/kb-0nl0002a-line\nbreak\nagain.md'];
    await handEntry(rels[0]!, front(['id: kb-0nl0001a', 'title: Quokka habits', 'type: decision', 'tags: []'], 'Quokkas sleep by day.'), 'add a newline name');
    await handEntry(rels[1]!, front(['id: kb-0nl0002a', 'title: Quokka diet', 'type: decision', 'tags: []'], 'Quokkas eat leaves.'), 'add another');
    try {
      const ids = async (args: string[]): Promise<string[]> => {
        const r = await kbd(['--json', ...args]);
        expect(r.code, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout) as { results?: { id: string }[]; entries?: { id: string }[] } | { id: string }[];
        const list = Array.isArray(out) ? out : (out.results ?? out.entries ?? []);
        return list.map((e) => e.id).filter((id) => id.startsWith('kb-0')).sort();
      };
      const ino = (name: string): number => fs.statSync(path.join(stateDir(sb.data), name)).ino;
      expect(await ids(['search', 'quokka'])).toEqual(['kb-0nl0001a', 'kb-0nl0002a']);
      const searchBase = ino('search.v9');
      expect(await ids(['search', 'quokka'])).toEqual(['kb-0nl0001a', 'kb-0nl0002a']);
      expect(ino('search.v9')).toBe(searchBase); // served as stored, not rebuilt
      expect(await ids(['list'])).toEqual(['kb-0nl0001a', 'kb-0nl0002a']);
      const summary = ino('summary.v1');
      expect(await ids(['list'])).toEqual(['kb-0nl0001a', 'kb-0nl0002a']);
      expect(ino('summary.v1')).toBe(summary);
      // folders changed a while ago: an index built now records its key (one of this instant is not recorded)
      const then = new Date(Date.now() - 10_000);
      for (const d of ['', 'entries']) fs.utimesSync(path.join(sb.data, d), then, then);
      const r = await runPromptHook(sb, payload('what do quokka habits look like', 's-names'));
      expect(r.code).toBe(0);
      const reader = openPromptIndex(sb.data, indexFile(sb.data))!;
      expect(reader).toBeDefined();
      const files = readAllFiles(reader).map((f) => f[0]);
      for (const rel of rels) expect(files).toContain(rel);
      expect(checkFreshness(sb.data, reader).fresh).toBe(true);
    } finally {
      for (const rel of rels) await dropEntry(rel);
    }
  });
});
