/**
 * Hostile battery (issue 16), secrets that get past the scanner by a side door (F4, F5, F6, F7, F8): the file-name
 * slug made from a redacted title, a note whose file name is a token, the would-be path in a refusal, a password
 * in a remote URL, and `host forbid` with a secret. Every secret is built at runtime (test/fixtures/secrets.ts),
 * and every check is case-insensitive: a slug lower-cases what it copies.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, kb, makeSandbox, type RunResult, type Sandbox } from '../helpers/cli.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { SECRET_BATTERY, type BatteryItem } from '../fixtures/secrets.js';
import { everythingIn, fragmentsIn, holds } from './support.js';

let sb: Sandbox;
let server: GitServer | undefined;
beforeEach(() => {
  sb = makeSandbox('gkb-hsecret-');
});
afterEach(async () => {
  await server?.stop();
  server = undefined;
  sb.cleanup();
});

const kbd = (args: string[], data = sb.data): Promise<RunResult> => kb(sb, ['--data', data, ...args]);

/** Battery items that fit on one line (a heading, a title, a file name). */
const oneLine = SECRET_BATTERY.filter((s) => !/[\n\r]/.test(s.text) && !/[\n\r]|\\n/.test(s.secret));
const byKind = (kind: string, prefix?: string): BatteryItem => SECRET_BATTERY.find((s) => s.kind === kind && (!prefix || s.secret.startsWith(prefix)))!;

/** Where in a repo (objects, paths, index, files) the secret, or a long part of it, shows up, in any case. */
async function leaks(dir: string, item: { secret: string }, extra: string[] = []): Promise<string[]> {
  if (!fs.existsSync(dir)) return [];
  const all = await everythingIn(dir, sb.env);
  const hits: string[] = [];
  if (holds(all, item.secret)) hits.push('the secret or a 16-character piece of it');
  for (const e of extra) if (all.toLowerCase().includes(e.toLowerCase())) hits.push('its random part');
  return hits;
}

describe('F4: import --redact and the title slug', () => {
  it('F4: a secret in a note\'s heading is in no path or object after import --redact (any case), and the entry lints clean', async () => {
    const notes = path.join(sb.root, 'notes');
    fs.mkdirSync(notes);
    // The finding's note (an AWS key id as the whole heading), then every one-line battery item as a heading.
    const aws = byKind('AWS access key id', 'AKIA');
    fs.writeFileSync(path.join(notes, 'a.md'), `# ${aws.secret}\n\nx\n`);
    oneLine.forEach((item, i) => fs.writeFileSync(path.join(notes, `n${i}.md`), `# ${item.text}\n\nA note about item ${i}.\n`));
    const r = await kbd(['import', '--redact', notes]);
    expect(r.code, r.stderr).toBe(0);
    const paths = (await git(sb.data, ['ls-tree', '-r', '--name-only', 'HEAD'], sb.env)).trim();
    const entryTexts = fs.readdirSync(path.join(sb.data, 'entries')).map((f) => fs.readFileSync(path.join(sb.data, 'entries', f), 'utf8')).join('\n');
    const failures: string[] = [];
    if (holds(paths, aws.secret)) failures.push('the AWS key id of a heading-only note is in a file name');
    let inScope = 0;
    for (const item of [aws, ...oneLine]) {
      // Only items whose content was redacted (the scanner caught them) are in scope here: those must be gone
      // from every path and object too, in any case.
      if (holds(entryTexts, item.secret)) continue;
      inScope++;
      if (fragmentsIn(paths, item.secret) > 0) failures.push(`${item.kind}: a piece of it is in a file name`);
      else if ((await leaks(sb.data, item)).length) failures.push(`${item.kind}: left in an object of the data repo`);
    }
    expect(inScope, 'items redacted in the entry text').toBeGreaterThanOrEqual(20);
    // The redacted titles are entries like any other: lint passes (a `[REDACTED:...]` title is a string, not a list).
    const lint = await kbd(['--json', 'lint']);
    const problems = JSON.parse(lint.stdout).problems as { rule: string; file: string; message: string }[];
    const rules = [...new Set(problems.map((p) => p.rule))];
    if (lint.code !== 0) failures.push(`lint exited ${lint.code}: ${problems.length} problem(s), rules ${rules.join(', ')}`);
    expect(failures).toEqual([]);
  });
});

describe('F5: a note whose file name is a token', () => {
  const tokens = [byKind('GitHub token', 'ghp'), byKind('Stripe secret key', 'sk'), byKind('npm token', 'npm')];
  /** The random part after the provider prefix: survives `_` turned into spaces and lower-casing. */
  const tail = (s: string): string => s.slice(s.lastIndexOf('_') + 1);

  it('F5: without --redact the import is refused and nothing of the token is stored', async () => {
    const failures: string[] = [];
    for (const [i, item] of tokens.entries()) {
      const notes = path.join(sb.root, `notes-${i}`);
      fs.mkdirSync(notes);
      fs.writeFileSync(path.join(notes, `${item.secret}.md`), 'Some harmless body text.\n');
      const data = path.join(sb.root, `data-${i}`);
      const r = await kbd(['import', notes], data);
      const hits = await leaks(data, item, [tail(item.secret)]);
      if (r.code === 0) failures.push(`${item.kind}: import exited 0`);
      if (hits.length) failures.push(`${item.kind}: stored in ${hits.length} place(s) of the data repo`);
      if (holds(r.stdout + r.stderr, item.secret) || (r.stdout + r.stderr).toLowerCase().includes(tail(item.secret).toLowerCase())) failures.push(`${item.kind}: echoed in the output`);
    }
    expect(failures).toEqual([]);
  });

  it('F5: with --redact the token is redacted from title and file name, in no object or path', async () => {
    const failures: string[] = [];
    for (const [i, item] of tokens.entries()) {
      const notes = path.join(sb.root, `notes-${i}`);
      fs.mkdirSync(notes);
      fs.writeFileSync(path.join(notes, `${item.secret}.md`), 'Some harmless body text.\n');
      const data = path.join(sb.root, `data-${i}`);
      const r = await kbd(['import', '--redact', notes], data);
      if (r.code !== 0) failures.push(`${item.kind}: import --redact exited ${r.code}: ${r.stderr.trim()}`);
      const hits = await leaks(data, item, [tail(item.secret)]);
      if (hits.length) failures.push(`${item.kind}: stored in ${hits.length} place(s) of the data repo`);
    }
    expect(failures).toEqual([]);
  });
});

describe('import --redact: values the YAML writer escapes, and the body', () => {
  it('redacts a secret in a front matter value with a tab (written escaped) and one in the body: in no object or path', async () => {
    const notes = path.join(sb.root, 'notes-escaped');
    fs.mkdirSync(notes);
    const aws = byKind('AWS access key id', 'AKIA');
    const fieldSecrets = ['S3cr3tXq9wZ7', 'Abc123Def456Ghi789Jkl'];
    // Apart: a note whose body is clean (its fields alone hold secrets), and one whose body holds one.
    fs.writeFileSync(path.join(notes, 'a.md'), `---\ntitle: "prod db password:\\t'${fieldSecrets[0]}'"\nsource: "token:\\t'${fieldSecrets[1]}'"\n---\nA clean body.\n`);
    fs.writeFileSync(path.join(notes, 'b.md'), `# Deploy\n\nThe deploy key is ${aws.secret} for now.\n`);
    const data = path.join(sb.root, 'data-escaped');
    const r = await kbd(['--json', 'import', '--redact', notes], data);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { imported: number; redacted: { file: string; count: number }[] };
    expect(out.imported).toBe(2);
    // a.md: the title, the alias import adds from it (Obsidian finds a note by its aliases) and the source.
    expect(out.redacted.map((x) => [x.file, x.count])).toEqual([['a.md', 3], ['b.md', 1]]);
    for (const secret of [...fieldSecrets, aws.secret]) expect(await leaks(data, { secret }), secret).toEqual([]);
  });
});

describe('a secret behind a YAML escape in a front matter value', () => {
  it('refuses an import without --redact, and lint reports a hand-written file that holds one', async () => {
    const notes = path.join(sb.root, 'notes-escaped-refused');
    fs.mkdirSync(notes);
    const secret = 'S3cr3tXq9wZ7';
    const front = `---\ntitle: "prod db password:\\t'${secret}'"\n`;
    fs.writeFileSync(path.join(notes, 'a.md'), `${front}---\nA clean body.\n`);
    const data = path.join(sb.root, 'data-escaped-refused');
    const r = await kbd(['import', notes], data);
    expect(r.code, r.stdout).toBe(5);
    expect(r.stderr).toMatch(/password/);
    expect(await leaks(data, { secret })).toEqual([]);
    // written by hand and committed with plain git: lint names the file and the line
    await kbd(['add', '--type', 'decision', '--title', 'Another note', '--', 'x'], data);
    const rel = 'entries/kb-esc00001-hand.md';
    fs.writeFileSync(path.join(data, rel), `---\nid: kb-esc00001\ntitle: "prod db password:\\t'${secret}'"\ntype: decision\ntags: []\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\nA clean body.\n`);
    const lint = await kbd(['--json', 'lint'], data);
    expect(lint.code).not.toBe(0);
    const problems = JSON.parse(lint.stdout).problems as { rule: string; file: string; line: number }[];
    expect(problems.filter((p) => p.rule === 'secret').map((p) => [p.file, p.line])).toEqual([[rel, 3]]);
    expect(lint.stdout + lint.stderr).not.toContain(secret);
  });
});

describe('F8: the refusal of a secret in a title', () => {
  it('F8: the error (text and --json) never holds the secret, not even lower-cased in the would-be path', async () => {
    await kbd(['init']);
    const items = [byKind('AWS access key id', 'AKIA'), byKind('GitHub token', 'ghp'), byKind('Stripe secret key', 'sk'), byKind('npm token', 'npm'), byKind('Slack token', 'xoxb'), byKind('GitLab token')];
    const failures: string[] = [];
    for (const item of items) {
      for (const json of [false, true]) {
        const r = await kbd([...(json ? ['--json'] : []), 'add', '--type', 'decision', '--title', `deploy key ${item.secret}`, '--', 'the body']);
        if (r.code === 0) failures.push(`${item.kind}${json ? ' --json' : ''}: accepted`);
        if (holds(r.stdout + r.stderr, item.secret)) failures.push(`${item.kind}${json ? ' --json' : ''}: the secret (or a 16-character piece of it, any case) is in the output`);
      }
    }
    expect(failures).toEqual([]);
  });
});

describe('F7: a password in a remote URL', () => {
  const PASSWORD = ['Sup3r', 'Secret', 'Passw0rd', '91'].join('');

  it('F7: init --remote masks the password (text and --json)', async () => {
    const url = `https://dana:${PASSWORD}@git.example.com/dana/kb.git`;
    const text = await kbd(['init', '--remote', url], path.join(sb.root, 'd1'));
    expect(text.code, text.stderr).toBe(0);
    const json = await kbd(['--json', 'init', '--remote', url], path.join(sb.root, 'd2'));
    expect(json.code, json.stderr).toBe(0);
    expect(text.stdout + text.stderr, 'text output').not.toContain(PASSWORD);
    expect(json.stdout + json.stderr, '--json output').not.toContain(PASSWORD);
  });

  it('F7: init --clone masks the password (text and --json)', async () => {
    server = await startGitServer({ auth: { username: 'dana', password: PASSWORD } });
    server.createBare('kb');
    const url = server.repoUrl('kb').replace('http://', `http://dana:${PASSWORD}@`);
    const text = await kbd(['init', '--clone', url], path.join(sb.root, 'c1'));
    expect(text.code, text.stderr).toBe(0);
    const json = await kbd(['--json', 'init', '--clone', url], path.join(sb.root, 'c2'));
    expect(json.code, json.stderr).toBe(0);
    expect(text.stdout + text.stderr, 'text output').not.toContain(PASSWORD);
    expect(json.stdout + json.stderr, '--json output').not.toContain(PASSWORD);
  });
});

describe('F6: host forbid with a secret', () => {
  it('F6: host forbid <secret> is refused and commits nothing; host register still works afterwards', async () => {
    await kbd(['init']);
    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    const failures: string[] = [];
    for (const item of [byKind('AWS access key id', 'AKIA'), byKind('GitHub token', 'ghp')]) {
      const r = await kbd(['host', 'forbid', item.secret]);
      if (r.code === 0) failures.push(`${item.kind}: host forbid exited 0: ${r.stdout.trim()}`);
      if (holds(r.stdout + r.stderr, item.secret)) failures.push(`${item.kind}: echoed in the output`);
      const hits = await leaks(sb.data, item);
      if (hits.length) failures.push(`${item.kind}: stored in ${hits.length} place(s) of the data repo`);
    }
    expect(failures).toEqual([]);
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim(), 'HEAD moved').toBe(head);
    const reg = await kbd(['host', 'register', 'pop-os', '--marker', '192.168.1.20']);
    expect(reg.code, reg.stderr).toBe(0);
  });
});
