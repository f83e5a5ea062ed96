/**
 * Secret scanning on every write: each item of the battery (test/fixtures/secrets.ts) is refused by `add` (in the
 * body, title, tags and url), `edit` (--body, --append, --title) and `import` (a folder holding it), with exit 5,
 * code SECRET_DETECTED and a message naming the kind and where, never echoing the secret; and afterwards no
 * secret appears anywhere in the data repo: not in any commit, tree or blob (reachable or not), nor in any file.
 * Each item goes through the CLI once per verb (its field taken in turn) and through the same write called in
 * process in every field, against the same data repos.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, kb, makeSandbox, run, type RunResult, type Sandbox } from '../helpers/cli.js';
import { SECRET_BATTERY, type BatteryItem } from '../fixtures/secrets.js';
import { readSettings } from '../../src/adapters/config/settings.js';
import { addEntry } from '../../src/app/add.js';
import { editEntry } from '../../src/app/edit.js';
import { KbError } from '../../src/core/errors.js';
import { commitCount, headOf, kbj, pool, type Added } from './support.js';

let sb: Sandbox;
const settings = readSettings({});
/** Writes take the repo's lock, so each worker gets its own data repo (and entry to edit) to run side by side. */
const WORKERS = 4;
const repos: { dir: string; target: Added }[] = [];

beforeAll(async () => {
  sb = makeSandbox();
  for (let w = 0; w < WORKERS; w++) {
    const dir = path.join(sb.root, `data-${w}`);
    const target = await kbj<Added>(sb, ['add', '--type', 'decision', '--title', 'Entry that edits try to leak into', '--', 'Harmless text.'], { data: dir });
    repos.push({ dir, target });
  }
});
afterAll(() => sb.cleanup());

/** Runs git-kb on worker w's data repo, with --json. */
const kbw = (w: number, args: string[], input?: string): Promise<RunResult> => kb(sb, ['--data', repos[w]!.dir, '--json', ...args], { input });

/** Checks one refusal: exit 5, SECRET_DETECTED, the kind and the place named, the secret itself not echoed. */
function expectRefused(r: RunResult, item: BatteryItem, where: RegExp, label: string): void {
  expect(r.code, `${label}: ${r.stdout}${r.stderr}`).toBe(5);
  expect(r.stdout, label).toBe('');
  const e = JSON.parse(r.stderr).error as { code: string; message: string };
  expect(e.code, label).toBe('SECRET_DETECTED');
  expect(e.message, label).toContain(item.kind);
  expect(e.message, label).toMatch(where);
  expect(r.stderr, `${label} echoes the secret`).not.toContain(item.secret);
}

/** The same refusal, thrown by a write called in process: SECRET_DETECTED, the kind and the place, no secret. */
function expectRefusedError(err: unknown, item: BatteryItem, where: RegExp, label: string): void {
  expect(err, label).toBeInstanceOf(KbError);
  const e = err as KbError;
  expect(e.code, label).toBe('SECRET_DETECTED');
  expect(e.message, label).toContain(item.kind);
  expect(e.message, label).toMatch(where);
  expect(e.message, `${label} echoes the secret`).not.toContain(item.secret);
}

const items = SECRET_BATTERY.map((item, i) => ({ item, i }));
/** Hundreds of processes: generous, since the machine may be shared with other test runs. */
const SLOW = { timeout: 300_000 };
const entryPlace = /at entries\/kb-[0-9a-z]+-[a-z0-9-]+\.md:\d+:\d+/;
const targetPlace = (w: number): RegExp => new RegExp(`at ${repos[w]!.target.path.replace(/[.]/g, '\\.')}:\\d+:\\d+`);
/** Every item, with the worker (data repo) it runs on. */
const work = <T>(fn: (x: { item: BatteryItem; i: number; w: number }) => Promise<T>): Promise<T[]> => {
  const byWorker = Array.from({ length: WORKERS }, (_, w) => items.filter(({ i }) => i % WORKERS === w));
  return Promise.all(byWorker.map((list, w) => pool(list, 1, ({ item, i }) => fn({ item, i, w })))).then((r) => r.flat());
};

describe('secrets are refused on every write', () => {
  it('has a battery of at least 30 real-looking secrets', () => {
    expect(SECRET_BATTERY.length).toBeGreaterThanOrEqual(30);
    expect(new Set(SECRET_BATTERY.map((s) => s.kind)).size).toBeGreaterThanOrEqual(20);
  });

  // Each item goes through the CLI in one field (the fields taken in turn, so each field sees a fifth or a third of
  // the battery, every kind of item among them), and through the same write in process in every field, against the
  // same data repo: the CLI proves the path from argv and stdin to the refusal and its printing; the battery is
  // proved field by field where it costs no process each (a few hundred processes took minutes of the suite).
  const ADD_FIELDS: { label: string; where: RegExp; cli: (i: number, t: string) => { args: string[]; input?: string }; app?: (t: string) => { type: string; title: string; body?: string; tags?: string; url?: string } }[] = [
    { label: 'add body (stdin)', where: entryPlace, cli: (i: number, t: string) => ({ args: ['add', '--type', 'factual_reference', '--title', `Body note ${i}`], input: t }), app: (t: string) => ({ type: 'factual_reference', title: 'Body note', body: t }) },
    { label: 'add body (argument)', where: entryPlace, cli: (i: number, t: string) => ({ args: ['add', '--type', 'factual_reference', '--title', `Body note ${i}`, '--', t] }), app: undefined },
    { label: 'add title', where: /in the title/, cli: (_i: number, t: string) => ({ args: ['add', '--type', 'factual_reference', '--title', t] }), app: (t: string) => ({ type: 'factual_reference', title: t, body: 'Harmless.' }) },
    { label: 'add tags', where: /in the tags/, cli: (i: number, t: string) => ({ args: ['add', '--type', 'factual_reference', '--title', `Tag note ${i}`, '--tags', `ops,${t}`] }), app: (t: string) => ({ type: 'factual_reference', title: 'Tag note', tags: `ops,${t}`, body: 'Harmless.' }) },
    { label: 'add url', where: /in the url/, cli: (i: number, t: string) => ({ args: ['add', '--type', 'bookmark', '--title', `Url note ${i}`, '--url', t] }), app: (t: string) => ({ type: 'bookmark', title: 'Url note', url: t, body: 'Harmless.' }) },
  ];
  const EDIT_FLAGS = [
    { flag: '--body', key: 'body' },
    { flag: '--append', key: 'append' },
    { flag: '--title', key: 'title' },
  ] as const;

  it('add refuses each one in the body (stdin, and an argument), title, tags and url', SLOW, async () => {
    await work(async ({ item, i, w }) => {
      const f = ADD_FIELDS[i % ADD_FIELDS.length]!;
      const { args, input } = f.cli(i, item.text);
      expectRefused(await kbw(w, args, input), item, f.where, `#${i} ${f.label}`);
      for (const g of ADD_FIELDS) {
        if (!g.app) continue;
        const err = await addEntry({ settings, data: repos[w]!.dir, ...g.app(item.text) }).then(() => undefined, (e: unknown) => e);
        expectRefusedError(err, item, g.where, `#${i} ${g.label} (in process)`);
      }
    });
  });

  it('edit refuses each one in --body, --append and --title', SLOW, async () => {
    await work(async ({ item, i, w }) => {
      const where = (flag: string): RegExp => (flag === '--title' ? /in the title/ : targetPlace(w));
      const { flag } = EDIT_FLAGS[i % EDIT_FLAGS.length]!;
      expectRefused(await kbw(w, ['edit', repos[w]!.target.id, flag, item.text]), item, where(flag), `#${i} edit ${flag}`);
      for (const { flag: g, key } of EDIT_FLAGS) {
        const err = await editEntry({ settings, data: repos[w]!.dir, id: repos[w]!.target.id, [key]: item.text }).then(() => undefined, (e: unknown) => e);
        expectRefusedError(err, item, where(g), `#${i} edit ${g} (in process)`);
      }
    });
  });

  it('import refuses a folder holding any one of them, naming the note and the kind', SLOW, async () => {
    // A folder per item (every fourth: each is also in the folder of all below), beside a harmless note.
    await work(async ({ item, i, w }) => {
      if (i % 4 !== 0) return;
      const dir = path.join(sb.root, `import-${i}`);
      fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'harmless.md'), '# Harmless\n\nNothing to see.\n');
      fs.writeFileSync(path.join(dir, 'sub', `leaky-${i}.md`), `# Leaky note ${i}\n\nSome context first.\n\n${item.text}\n`);
      expectRefused(await kbw(w, ['import', dir]), item, new RegExp(`sub/leaky-${i}\\.md`), `#${i} import`);
    });
    const all = path.join(sb.root, 'import-all');
    fs.mkdirSync(all);
    for (const { item, i } of items) fs.writeFileSync(path.join(all, `note-${String(i).padStart(2, '0')}.md`), `---\ntitle: Note ${i}\n---\n\n${item.text}\n`);
    const r = await kbw(0, ['import', all]);
    expect(r.code).toBe(5);
    const e = JSON.parse(r.stderr).error as { code: string; message: string };
    expect(e.code).toBe('SECRET_DETECTED');
    for (const { item, i } of items) {
      const line = e.message.split('\n').find((l) => l.startsWith(`note-${String(i).padStart(2, '0')}.md`) && l.includes(item.kind));
      expect(line, `#${i} ${item.kind} named in the import refusal`).toBeDefined();
    }
    for (const { item } of items) expect(r.stderr).not.toContain(item.secret);
  });

  it('left no trace of any secret anywhere in the data repos', async () => {
    // Needles: each secret, and each long line of a multi-line secret (PEM blocks, JSON-escaped keys).
    const needles = new Set<string>();
    for (const { secret } of SECRET_BATTERY) {
      needles.add(secret);
      for (const part of secret.split(/\n|\\n/)) if (part.length >= 16 && !/^-----(BEGIN|END) /.test(part)) needles.add(part);
    }
    const patterns = path.join(sb.root, 'needles.txt');
    fs.writeFileSync(patterns, [...needles].join('\n'));
    for (const { dir, target } of repos) {
      expect(await commitCount(sb, dir)).toBe(2);
      expect(await headOf(sb, dir)).toBe(target.commit);
      await expectCleanRepo(dir);
      const git = (args: string[]) => run('git', args, { cwd: dir, env: sb.env });
      const log = await git(['log', '-p', '--all', '--format=raw', '--reflog']);
      expect(log.code).toBe(0);
      const objects = await git(['cat-file', '--batch-all-objects', '--batch', '--unordered']);
      expect(objects.code).toBe(0);
      expect(objects.stdout).toContain(target.id); // the dump really holds the repo's content
      const revs = (await git(['rev-list', '--all'])).stdout.trim().split('\n');
      const grep = await git(['grep', '-F', '-I', '-f', patterns, ...revs]);
      expect(grep.code, `git grep found: ${grep.stdout}`).toBe(1); // 1: no match
      const files: string[] = [];
      const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          const p = path.join(d, e.name);
          if (e.isDirectory()) walk(p);
          else files.push(p);
        }
      };
      walk(dir);
      const raw = files.map((f) => fs.readFileSync(f).toString('latin1'));
      for (const n of needles) {
        expect(log.stdout.includes(n), `git log -p --all holds ${n.slice(0, 6)}…`).toBe(false);
        expect(objects.stdout.includes(n), `an object holds ${n.slice(0, 6)}…`).toBe(false);
        const latin = Buffer.from(n, 'utf8').toString('latin1');
        expect(raw.findIndex((t) => t.includes(latin)), `a file under the data repo holds ${n.slice(0, 6)}…`).toBe(-1);
      }
    }
  });
});
