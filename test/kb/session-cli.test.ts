/**
 * The session verbs run as processes: record (written, unchanged, forbidden, no prompts), list, show, catch-up;
 * and the secrets battery spread over a transcript, checked with the real git CLI over every object.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECRET_BATTERY } from '../fixtures/secrets.js';
import { expectCleanRepo, git, kb, kbJson, makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-sess-');
});
afterEach(() => sb.cleanup());

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'transcripts');
const run = (args: string[], input?: string) => kb(sb, ['--data', sb.data, ...args], { input });

async function commits(): Promise<number> {
  return Number((await git(sb.data, ['rev-list', '--count', 'HEAD'])).trim());
}

/** Writes transcript records (each with session, cwd, time, uuid) as a JSONL file and returns its path. */
function writeTranscript(file: string, sessionId: string, records: Record<string, unknown>[], options: { cwd?: string; start?: number } = {}): string {
  const start = options.start ?? Date.UTC(2026, 4, 1, 10, 0, 0);
  const text = records
    .map((r, i) => JSON.stringify({ sessionId, cwd: options.cwd ?? '/home/u/proj', gitBranch: 'main', uuid: `${sessionId}-${i}`, timestamp: new Date(start + i * 1000).toISOString(), ...r }))
    .join('\n');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${text}\n`);
  return file;
}

const prompt = (text: string): Record<string, unknown> => ({ type: 'user', message: { role: 'user', content: text } });
const reply = (text: string, id: string): Record<string, unknown> => ({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text }] } });
const toolUse = (id: string, name: string, input: unknown): Record<string, unknown> => ({ type: 'assistant', message: { id: `m-${id}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'tool_use', id, name, input }] } });
const toolResult = (id: string, content: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] }, toolUseResult: { stdout: content }, ...extra });

describe('session record', () => {
  it('writes one summary in one commit, then reports it unchanged, then updates it when the transcript grows', async () => {
    const t = path.join(sb.root, 'session.jsonl');
    fs.copyFileSync(path.join(FIXTURES, 'coding-session.jsonl'), t);
    const a = await kbJson(sb, ['session', 'record', '--transcript', t]);
    expect(a).toMatchObject({ status: 'written', sessionId: '3f1c9a2e-7b4d-4e8a-9c61-0d2f5b7e8a14' });
    expect(a.path).toBe(`sessions/2026/03/${a.id}.md`);
    expect(await git(sb.data, ['log', '-1', '--format=%s'])).toBe(`session ${a.id}: Fix cent rounding in invoice totals\n`);
    expect((await git(sb.data, ['show', '--name-only', '--format=', 'HEAD'])).trim()).toBe(a.path);
    const n = await commits();
    const b = await kbJson(sb, ['session', 'record', '--transcript', t]);
    expect(b).toMatchObject({ status: 'unchanged', id: a.id });
    expect(await commits()).toBe(n);
    fs.appendFileSync(t, `${JSON.stringify({ type: 'user', sessionId: a.sessionId, cwd: '/home/dana/src/invoice-api', uuid: 'extra-1', timestamp: '2026-03-02T09:30:00.000Z', message: { role: 'user', content: 'now add a changelog entry for the rounding fix' } })}\n`);
    const c = await kbJson(sb, ['session', 'record', '--transcript', t]);
    expect(c).toMatchObject({ status: 'written', id: a.id, path: a.path });
    const text = fs.readFileSync(path.join(sb.data, a.path), 'utf8');
    expect(text).toContain('turns: 4');
    expect(text).toContain('4. now add a changelog entry for the rounding fix');
    expect(await commits()).toBe(n + 1);
    expect((await run(['lint'])).code).toBe(0);
    await expectCleanRepo(sb.data);
  });

  it('is found by search, list, show (by entry id or session id) and get', async () => {
    for (const f of ['coding-session.jsonl', 'slash-commands.jsonl', 'subagent-compact.jsonl']) await kbJson(sb, ['session', 'record', '--transcript', path.join(FIXTURES, f)]);
    const list = await kbJson(sb, ['session', 'list']);
    expect(list.sessions.map((s: { title: string }) => s.title)).toEqual(['Review PR 12 (lazy thumbnails)', 'date-tz audit', 'Fix cent rounding in invoice totals']); // by end, newest first
    const only = await kbJson(sb, ['session', 'list', '--cwd', '/home/dana/src/widgets/']);
    expect(only.sessions).toHaveLength(1);
    expect(only.sessions[0]).toMatchObject({ project: 'widgets', branch: 'main', turns: 5, session_id: 'c47e1b09-5d2a-4f3e-b8c1-9a6d0e3f7b25' });
    const byId = await kbJson(sb, ['session', 'show', only.sessions[0].id]);
    const bySession = await kbJson(sb, ['session', 'show', 'c47e1b09']);
    expect(bySession).toEqual(byId);
    expect(byId.text).toContain('1. /review 12');
    const found = await kbJson(sb, ['search', 'cent rounding invoice']);
    expect(found.results[0].type).toBe('session_summary');
    const typed = await kbJson(sb, ['list', '--type', 'session_summary']);
    expect(typed.entries).toHaveLength(3);
    expect((await run(['session', 'show', 'zzzzzzzz'])).code).toBe(3);
    expect((await run(['session', 'show', 'abc'])).code).toBe(2);
  });

  it('writes nothing for a transcript that names a forbidden host, wherever it is named', async () => {
    await kbJson(sb, ['host', 'register', 'hssh', '--forbidden', '--marker', 'webspace.example.net']);
    await kbJson(sb, ['host', 'forbid', '/seedbox-\\d+/']);
    const before = await commits();
    const places: [string, Record<string, unknown>[]][] = [
      ['a prompt', [prompt('upload the site to hssh tonight')]],
      ['a tool output', [prompt('check the deploy log'), toolUse('t1', 'Bash', { command: 'tail deploy.log' }), toolResult('t1', 'rsync to webspace.example.net: done')]],
      ['a subagent', [prompt('find the mirror config'), { type: 'assistant', isSidechain: true, message: { role: 'assistant', model: 'm', content: [{ type: 'text', text: 'it points at seedbox-12' }] } }]],
    ];
    for (const [where, records] of places) {
      const t = writeTranscript(path.join(sb.root, `${where.replace(/ /g, '-')}.jsonl`), `sess-${where.length}`, records);
      const r = await run(['session', 'record', '--transcript', t, '--json']);
      expect(r.code, where).toBe(5);
      expect(JSON.parse(r.stdout)).toMatchObject({ status: 'forbidden' });
      expect(r.stdout).not.toMatch(/webspace|seedbox-12/);
    }
    expect(await commits()).toBe(before);
    expect(fs.existsSync(path.join(sb.data, 'sessions'))).toBe(false);
  });

  it('refuses to write while hosts.yaml is invalid (forbidden hosts cannot be told)', async () => {
    await kbJson(sb, ['host', 'register', 'box']);
    fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), 'hosts:\n  box:\n    forbiden: true\n');
    const r = await run(['session', 'record', '--transcript', path.join(FIXTURES, 'coding-session.jsonl')]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('hosts.yaml:3:');
    expect(fs.existsSync(path.join(sb.data, 'sessions'))).toBe(false);
  });

  it('says why there is no summary for a transcript without prompts, and fails clearly on a missing file', async () => {
    const t = writeTranscript(path.join(sb.root, 'empty.jsonl'), 'sess-empty', [reply('hello', 'm1')]);
    const r = await run(['session', 'record', '--transcript', t]);
    expect([r.code, r.stdout]).toEqual([0, 'no summary: no-prompts (the transcript holds no prompt of yours)\n']);
    // A file that is no transcript at all (a README given by mistake) is told so.
    const readme = path.join(sb.root, 'README.md');
    fs.writeFileSync(readme, '# A readme\n\nNot a transcript.\n');
    const wrong = await run(['session', 'record', '--transcript', readme]);
    expect(wrong.stdout).toBe('no summary: no-session-id (the file holds no session id: is it a Claude Code transcript (a .jsonl file under ~/.claude/projects)?)\n');
    const missing = await run(['session', 'record', '--transcript', path.join(sb.root, 'nope.jsonl')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toMatch(/cannot read transcript .*nope\.jsonl: ENOENT/);
  });
});

describe('session catch-up', () => {
  it('summarises every recent transcript under ~/.claude/projects once, leaving excluded and subagent files alone', async () => {
    const projects = path.join(sb.home, '.claude', 'projects');
    const ids = ['11111111-aaaa-4aaa-8aaa-000000000001', '22222222-bbbb-4bbb-8bbb-000000000002', '33333333-cccc-4ccc-8ccc-000000000003'];
    ids.forEach((id, i) => writeTranscript(path.join(projects, '-home-u-proj', `${id}.jsonl`), id, [prompt(`question number ${i} about the parser`), reply(`answer ${i}`, `m${i}`)]));
    writeTranscript(path.join(projects, '-home-u-proj', 'agent-5a5a.jsonl'), 'agent', [prompt('a subagent transcript file')]);
    writeTranscript(path.join(projects, '-home-u-other', '44444444-dddd-4ddd-8ddd-000000000004.jsonl'), '44444444-dddd-4ddd-8ddd-000000000004', [reply('no prompt here', 'm9')]);
    await kbJson(sb, ['host', 'register', 'box']); // a data repo
    const r = await kbJson(sb, ['session', 'catch-up', '--exclude', ids[2]!]);
    expect(r).toMatchObject({ looked: 3, written: expect.any(Array), unchanged: 0, skipped: 1, forbidden: 0, failed: [], left: 0 });
    expect(r.written).toHaveLength(2);
    const list = await kbJson(sb, ['session', 'list']);
    expect(list.sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual(ids.slice(0, 2));
    const again = await kbJson(sb, ['session', 'catch-up']);
    expect(again).toMatchObject({ looked: 1, current: 3, written: [expect.any(String)] }); // only the one excluded before
    const third = await kbJson(sb, ['session', 'catch-up']);
    expect(third).toMatchObject({ looked: 0, current: 4, written: [] });
  });

  /** The session ids of the summaries in the data repo, one per summary file. */
  function summarySessions(): string[] {
    const out: string[] = [];
    const walk = (d: string): void => {
      if (!fs.existsSync(d)) return;
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(path.join(d, e.name));
        else if (e.name.endsWith('.md')) out.push(/^session_id: (.+)$/m.exec(fs.readFileSync(path.join(d, e.name), 'utf8'))?.[1] ?? '?');
      }
    };
    walk(path.join(sb.data, 'sessions'));
    return out.sort();
  }

  it('a renamed copy of a recorded transcript is the same session: no second summary, and the copy that grew updates the one summary', async () => {
    // Before: catch-up named a session by its file name, so each copy got a summary of its own.
    const projects = path.join(sb.home, '.claude', 'projects');
    const id = '55555555-eeee-4eee-8eee-000000000005';
    const original = writeTranscript(path.join(projects, '-home-u-proj', `${id}.jsonl`), id, [prompt('why does the importer drop the last row'), reply('an off-by-one in the batch loop', 'm1')]);
    const a = await kbJson(sb, ['session', 'record', '--transcript', original]);
    expect(a).toMatchObject({ status: 'written', sessionId: id });
    // Copied under other names (a backup beside it; another machine's folder), with newer times than the original.
    const later = new Date(Date.now() + 60_000);
    for (const copy of [path.join(projects, '-home-u-proj', 'importer-fix.jsonl'), path.join(projects, '-mnt-laptop-proj', 'session.jsonl')]) {
      fs.mkdirSync(path.dirname(copy), { recursive: true });
      fs.copyFileSync(original, copy);
      fs.utimesSync(copy, later, later);
    }
    const n = await commits();
    const r = await kbJson(sb, ['session', 'catch-up']);
    expect(r).toMatchObject({ written: [], copies: 2, failed: [] });
    expect(summarySessions()).toEqual([id]);
    expect(await commits()).toBe(n);
    expect(await kbJson(sb, ['session', 'catch-up'])).toMatchObject({ looked: 0, written: [], copies: 2 });
    // The session went on in one of the copies: it holds the most, so it is the session's transcript now.
    const grown = path.join(projects, '-mnt-laptop-proj', 'session.jsonl');
    fs.appendFileSync(grown, `${JSON.stringify({ type: 'user', sessionId: id, cwd: '/home/u/proj', uuid: `${id}-late`, timestamp: '2026-05-01T10:05:00.000Z', message: { role: 'user', content: 'and the header row too?' } })}\n`);
    const g = await kbJson(sb, ['session', 'catch-up']);
    expect(g).toMatchObject({ written: [a.id], copies: 2 });
    expect(summarySessions()).toEqual([id]);
    expect(fs.readFileSync(path.join(sb.data, a.path), 'utf8')).toContain('2. and the header row too?');
    expect(await kbJson(sb, ['session', 'catch-up'])).toMatchObject({ looked: 0, written: [] });
    await expectCleanRepo(sb.data);
  });

  it('a transcript named other than its session is summarised once, under the session its lines name; record and catch-up agree', async () => {
    // Before: catch-up took the file name for the session, record the lines: two summaries of one transcript.
    const projects = path.join(sb.home, '.claude', 'projects', '-home-u-proj');
    const first = '66666666-ffff-4fff-8fff-000000000006';
    const second = '77777777-aaaa-4aaa-8aaa-000000000007';
    const foo = writeTranscript(path.join(projects, 'foo.jsonl'), first, [prompt('rename the config loader'), reply('renamed', 'm1')]);
    const bar = writeTranscript(path.join(projects, 'bar.jsonl'), second, [prompt('bump the parser dependency'), reply('bumped', 'm2')]);
    await kbJson(sb, ['host', 'register', 'box']); // a data repo
    // record first, then catch-up
    const b = await kbJson(sb, ['session', 'record', '--transcript', bar]);
    expect(b).toMatchObject({ status: 'written', sessionId: second });
    const r = await kbJson(sb, ['session', 'catch-up']);
    expect(r).toMatchObject({ written: [expect.any(String)], failed: [] });
    expect(summarySessions()).toEqual([first, second]);
    // catch-up first, then record: the same summary, unchanged; a --session-id naming another session does not
    // move it (the transcript's own id wins: it names the session on every path).
    const f = await kbJson(sb, ['session', 'record', '--transcript', foo]);
    expect(f).toMatchObject({ status: 'unchanged', sessionId: first, id: r.written[0] });
    expect(await kbJson(sb, ['session', 'record', '--transcript', foo, '--session-id', 'foo'])).toMatchObject({ status: 'unchanged', sessionId: first, id: r.written[0] });
    expect(await kbJson(sb, ['session', 'catch-up'])).toMatchObject({ looked: 0, current: 2, written: [] });
    expect(summarySessions()).toEqual([first, second]);
    // --exclude names a session by its id (or by its file name): either leaves it alone.
    fs.appendFileSync(foo, `${JSON.stringify({ type: 'user', sessionId: first, cwd: '/home/u/proj', uuid: 'foo-late', timestamp: '2026-05-01T10:09:00.000Z', message: { role: 'user', content: 'one more' } })}\n`);
    expect(await kbJson(sb, ['session', 'catch-up', '--exclude', first])).toMatchObject({ looked: 0, written: [] });
    expect(await kbJson(sb, ['session', 'catch-up', '--exclude', 'foo'])).toMatchObject({ looked: 0, written: [] });
    expect(await kbJson(sb, ['session', 'catch-up'])).toMatchObject({ written: [r.written[0]] });
    expect(summarySessions()).toEqual([first, second]);
  });

  it('a resumed session whose file begins with the history it copied is its own session, named by its last lines', async () => {
    const projects = path.join(sb.home, '.claude', 'projects', '-home-u-proj');
    const old = '88888888-bbbb-4bbb-8bbb-000000000008';
    const resumed = '99999999-cccc-4ccc-8ccc-000000000009';
    await kbJson(sb, ['host', 'register', 'box']); // a data repo
    const records = [prompt('profile the slow report query'), reply('it scans the whole orders table', 'm1')];
    writeTranscript(path.join(projects, `${old}.jsonl`), old, records);
    const t = path.join(projects, `${resumed}.jsonl`);
    writeTranscript(t, old, records);
    const own = fs.readFileSync(writeTranscript(path.join(sb.root, 'own.jsonl'), resumed, [prompt('now add the index'), reply('added', 'm2')], { start: Date.UTC(2026, 4, 2, 9, 0, 0) }), 'utf8');
    fs.appendFileSync(t, own);
    const r = await kbJson(sb, ['session', 'catch-up']);
    expect(r).toMatchObject({ written: [expect.any(String), expect.any(String)], copies: 0 });
    expect(summarySessions()).toEqual([old, resumed]);
    expect(await kbJson(sb, ['session', 'record', '--transcript', t])).toMatchObject({ status: 'unchanged', sessionId: resumed });
  });
});

describe('secrets battery: nothing survives anywhere in the data repo', () => {
  it(`${SECRET_BATTERY.length} secrets over prompts, tool inputs, tool outputs, .env reads, recaps and replies leave no trace in any object`, async () => {
    expect(SECRET_BATTERY.length).toBeGreaterThanOrEqual(25);
    const records: Record<string, unknown>[] = [];
    const single = SECRET_BATTERY.filter((b) => !b.secret.includes('\n'));
    SECRET_BATTERY.forEach((b, i) => {
      switch (i % 6) {
        case 0: // a prompt (the first one is also the title and the commit message)
          records.push(prompt(`${i === 0 ? '' : 'please check this: '}${b.text}`));
          break;
        case 1: // a Bash tool input, kept (redacted) in Commands
          records.push(toolUse(`tb${i}`, 'Bash', { command: b.text }), toolResult(`tb${i}`, 'ok'));
          break;
        case 2: // a tool output, never stored
          records.push(toolUse(`to${i}`, 'Bash', { command: 'cat config.log' }), toolResult(`to${i}`, `log follows\n${b.text}\n`));
          break;
        case 3: // Write and Edit inputs
          records.push(toolUse(`tw${i}`, i % 2 ? 'Write' : 'Edit', { file_path: `/home/u/proj/conf/${i}.conf`, content: b.text, old_string: 'x', new_string: b.text }), toolResult(`tw${i}`, 'File written'));
          break;
        case 4: // a compact recap
          records.push({ type: 'user', isCompactSummary: true, message: { role: 'user', content: `Summary so far: ${b.text}` } });
          break;
        default: // the model's reply
          records.push(reply(`Found it: ${b.text}`, `mr${i}`));
      }
    });
    // .env and key-file reads whose values come back bare, where no pattern could tell them from words.
    const envLines = single.map((b, i) => `VALUE_${i}=${b.secret}`).join('\n');
    records.push(toolUse('tenv', 'Read', { file_path: '/home/u/proj/.env' }), toolResult('tenv', envLines, { toolUseResult: { type: 'text', file: { filePath: '/home/u/proj/.env', content: envLines } } }));
    records.push(toolUse('tcat', 'Bash', { command: 'cat ~/.aws/credentials' }), toolResult('tcat', `[default]\naws_secret_access_key = ${single[3]!.secret}`));
    for (const [i, b] of single.entries()) records.push(prompt(`is ${b.secret} still valid (${i})?`));
    records.push(reply(`The values are ${single.slice(0, 5).map((b) => b.secret).join(', ')}.`, 'mlast'));
    const t = writeTranscript(path.join(sb.root, 'secrets.jsonl'), 'sess-secrets-1', records);

    const r = await kbJson(sb, ['session', 'record', '--transcript', t]);
    expect(r.status).toBe('written');
    expect(r.redactions).toBeGreaterThanOrEqual(SECRET_BATTERY.length);
    await kbJson(sb, ['session', 'record', '--transcript', t]); // and again (unchanged)
    const text = fs.readFileSync(path.join(sb.data, r.path), 'utf8');
    expect(text).toContain('[REDACTED:');
    expect(text).toContain('.env (secret file: contents never stored)');

    // Every object of the repo, every revision's files, every patch and message, and every file on disk.
    const objects = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: sb.data, env: sb.env, maxBuffer: 256 * 1024 * 1024 }).stdout.toString('utf8');
    const patches = await git(sb.data, ['log', '-p', '--all', '--format=%H %s%n%b'], sb.env);
    expect(objects.length).toBeGreaterThan(1000);
    expect(patches).toContain('[REDACTED:');
    const onDisk: string[] = [];
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (!p.includes(`${path.sep}objects${path.sep}`)) onDisk.push(fs.readFileSync(p, 'latin1'));
      }
    };
    // The turn log, its search index and what search and session show print; the archive, inflated.
    const searched = (await run(['search', 'log follows', 'Found it', '--tool-output', '--json'])).stdout;
    const shown = (await run(['session', 'show', 'sess-secrets-1', '--grep', 'REDACTED', '--json'])).stdout + (await run(['session', 'show', 'sess-secrets-1', '--turn', '1'])).stdout;
    expect(JSON.parse(searched).sessions.length + JSON.parse(searched).results.length).toBeGreaterThan(0);
    expect(shown).toContain('[REDACTED:');
    onDisk.push(searched, shown);
    walk(sb.data);
    const archive = path.join(sb.home, '.git-kb', 'archive');
    expect(fs.statSync(archive).mode & 0o777).toBe(0o700);
    for (const n of fs.readdirSync(archive)) {
      const f = path.join(archive, n);
      expect(fs.statSync(f).mode & 0o777, n).toBe(0o600);
      onDisk.push(n.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(f)).toString('latin1') : fs.readFileSync(f, 'latin1'));
    }
    expect(onDisk.some((f) => f.includes('log follows'))).toBe(true); // tool output is in the archive and the log
    const revs = (await git(sb.data, ['rev-list', '--all'], sb.env)).trim().split('\n');
    const source = fs.readFileSync(t, 'utf8');
    for (const b of SECRET_BATTERY) {
      // The distinctive part of the secret (PEM blocks: a body line).
      const needle = b.secret.includes('\n') ? b.secret.split('\n')[2]! : b.secret;
      expect(source.includes(JSON.stringify(needle).slice(1, -1)), `${b.kind} is in the transcript`).toBe(true);
      expect(objects.includes(needle), `${b.kind} in a git object`).toBe(false);
      expect(patches.includes(needle), `${b.kind} in git log -p`).toBe(false);
      expect(onDisk.some((f) => f.includes(needle) || f.includes(JSON.stringify(needle).slice(1, -1))), `${b.kind} in a file of the data repo, the archive or an output`).toBe(false);
      const grep = spawnSync('git', ['grep', '-F', '-q', '-e', needle, ...revs], { cwd: sb.data, env: sb.env });
      expect(grep.status, `${b.kind} found by git grep`).toBe(1);
    }
  });
});
