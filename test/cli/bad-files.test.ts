/**
 * Input that is not a regular file, or too big, and a file system that refuses: every command ends with a clear
 * error and the documented exit code instead of hanging or an internal error (spec/errors.md, "Output"). Each
 * process is bounded by a generous run limit only to turn a hang into a failure; nothing here times anything.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemRefusal } from '../../src/core/errors.js';
import { CLI, expectCleanRepo, HOOK, kb, makeSandbox, run, type RunResult, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-badfiles-');
});
afterEach(() => sb.cleanup());

/** A git-kb run that must end by itself (a hang fails it at the run limit). */
async function ends(args: string[], options: { input?: string } = {}): Promise<RunResult> {
  const r = await run(process.execPath, [CLI, '--data', sb.data, ...args], { env: sb.env, input: options.input, timeoutMs: 30_000 });
  expect(r.code, `git-kb ${args.join(' ')} did not end: ${r.stderr}`).not.toBeNull();
  expect(r.stderr, args.join(' ')).not.toMatch(/internal error/);
  return r;
}

async function init(): Promise<void> {
  expect((await kb(sb, ['--data', sb.data, 'init'])).code).toBe(0);
}

describe('not a regular file, or too big', () => {
  it('add and edit --file refuse /dev/zero, a FIFO and a folder; stdin without end is cut at the limit', async () => {
    await init();
    const fifo = path.join(sb.root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    for (const f of ['/dev/zero', fifo, sb.root]) {
      const r = await ends(['add', '--type', 'decision', '--title', 'From a file', '--file', f, '--json']);
      expect(r.code, f).toBe(2);
      expect(JSON.parse(r.stderr).error.message).toMatch(/--file: .* is (a device|a FIFO|a folder)/);
    }
    const big = path.join(sb.root, 'big.md');
    fs.writeFileSync(big, 'x'.repeat(9 * 1024 * 1024));
    const tooBig = await ends(['add', '--type', 'decision', '--title', 'Big', '--file', big]);
    expect(tooBig.code).toBe(2);
    expect(tooBig.stderr).toMatch(/is 9\.0 MB; the limit is 8\.0 MB/);
    const id = JSON.parse((await ends(['add', '--type', 'decision', '--title', 'Small', '--json', 'body'])).stdout).id;
    const edit = await ends(['edit', id, '--file', '/dev/zero']);
    expect(edit.code).toBe(2);
    // stdin that never ends: read up to the limit, then refused.
    const zero = await new Promise<number | null>((resolve) => {
      const child = spawn('sh', ['-c', `exec "${process.execPath}" "${CLI}" --data "${sb.data}" add --type decision --title Zero --file - < /dev/zero`], { env: sb.env, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    expect(zero).toBe(2);
    const list = JSON.parse((await ends(['list', '--json'])).stdout);
    expect(list.entries.map((e: { title: string }) => e.title)).toEqual(['Small']);
    await expectCleanRepo(sb.data);
  });

  it('an entry file that is a FIFO: list, search, get and lint end, the other entries are served, lint names it', async () => {
    await init();
    const ok = JSON.parse((await ends(['add', '--type', 'decision', '--title', 'Otters hold hands', '--json', 'while sleeping'])).stdout).id;
    execFileSync('mkfifo', [path.join(sb.data, 'entries', 'kb-3zzzzzzzzz-fifo.md')]);
    expect(JSON.parse((await ends(['list', '--json'])).stdout).entries.map((e: { id: string }) => e.id)).toEqual([ok]);
    expect(JSON.parse((await ends(['search', 'otters', '--json'])).stdout).results.map((e: { id: string }) => e.id)).toEqual([ok]);
    expect((await ends(['get', ok])).code).toBe(0);
    const lint = await ends(['lint', '--json']);
    expect(lint.code).toBe(5);
    expect(lint.stdout).toMatch(/not a regular file/);
    // A write still lands.
    expect((await ends(['add', '--type', 'decision', '--title', 'Beavers build dams', 'in rivers'])).code).toBe(0);
  });

  it('hosts.yaml that is a FIFO: host commands and lint end with a clear refusal, and no session is summarised', async () => {
    await init();
    execFileSync('mkfifo', [path.join(sb.data, 'hosts.yaml')]);
    const list = await ends(['host', 'list', '--json']);
    expect(list.code).toBe(5);
    expect(JSON.parse(list.stderr).error.message).toMatch(/hosts\.yaml: cannot be read .*a FIFO/);
    const lint = await ends(['lint']);
    expect(lint.code).toBe(5);
    expect(lint.stdout).toMatch(/hosts\.yaml.*a FIFO/);
  });

  it('kb.json that is a FIFO does not hang a command', async () => {
    await init();
    fs.rmSync(path.join(sb.data, 'kb.json'));
    execFileSync('mkfifo', [path.join(sb.data, 'kb.json')]);
    await ends(['status']);
    await ends(['doctor']);
  });

  it('import passes over what it cannot list or read, and refuses a note over the limit by name', async () => {
    await init();
    const src = path.join(sb.root, 'notes');
    fs.mkdirSync(path.join(src, 'sub'), { recursive: true });
    fs.writeFileSync(path.join(src, 'good.md'), '# Good note\n\nfine\n');
    fs.writeFileSync(path.join(src, 'huge.md'), `# Huge\n\n${'y'.repeat(9 * 1024 * 1024)}\n`);
    execFileSync('mkfifo', [path.join(src, 'sub', 'pipe.md')]);
    const refused = await ends(['import', src, '--json']);
    expect(refused.code).toBe(5);
    expect(JSON.parse(refused.stderr).error.message).toMatch(/huge\.md:1: the note is 9\.0 MB; the limit is 8\.0 MB/);
    const r = await ends(['import', src, '--skip-invalid', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.imported).toBe(1);
    expect(JSON.stringify(out.skipped)).toMatch(/pipe\.md.*not a regular file/);
  });
});

describe('a file system that refuses', () => {
  it('maps EROFS, EACCES, EPERM and ENOSPC to NOT_WRITABLE (exit 4) naming the path', () => {
    for (const code of ['EROFS', 'EACCES', 'EPERM', 'ENOSPC']) {
      const err = Object.assign(new Error(`${code}: refused`), { code, syscall: 'open', path: '/data/entries/x.md' });
      const kbErr = systemRefusal(err)!;
      expect(kbErr.code).toBe('NOT_WRITABLE');
      expect(kbErr.exitCode).toBe(4);
      expect(kbErr.message).toContain('/data/entries/x.md');
      expect(kbErr.message).toContain(code);
    }
    expect(systemRefusal(new TypeError('x is undefined'))).toBeUndefined();
  });

  it('a write into a place the system refuses is a clear error, not an internal one', async () => {
    // /sys refuses a new folder even to root (EPERM or EROFS, depending on the machine); skipped where it does not.
    let refused = false;
    try {
      fs.mkdirSync('/sys/gkb-probe');
      fs.rmdirSync('/sys/gkb-probe');
    } catch (err) {
      refused = ['EPERM', 'EROFS', 'EACCES'].includes((err as NodeJS.ErrnoException).code ?? '');
    }
    if (!refused) return;
    const r = await run(process.execPath, [CLI, '--data', '/sys/gkb-data', 'add', '--type', 'decision', '--title', 'x', 'y', '--json'], { env: sb.env, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(4);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'NOT_WRITABLE' });
  });
});

describe('small bad values', () => {
  it('an empty --data, --limit 0, a title with U+2028, an unknown rel in --link, a lone surrogate: usage or invalid, nothing written', async () => {
    await init();
    const empty = await run(process.execPath, [CLI, '--data', '', 'add', '--type', 'decision', '--title', 'x', 'y'], { env: sb.env, timeoutMs: 30_000 });
    expect([empty.code, empty.stderr]).toEqual([2, 'git-kb: error: --data needs a folder; it was given an empty value\n']);
    expect(fs.existsSync(path.join(sb.home, '.git-kb', 'data'))).toBe(false);
    expect((await ends(['list', '--limit', '0'])).code).toBe(2);
    expect((await ends(['add', '--type', 'decision', '--title', 'one\u2028two', 'body'])).code).toBe(2);
    const rel = await ends(['add', '--type', 'decision', '--title', 'x', '--link', 'inspired_by:kb-0001', 'body']);
    expect(rel.code).toBe(2);
    expect(rel.stderr).toMatch(/unknown rel "inspired_by"/);
    expect(JSON.parse((await ends(['list', '--json'])).stdout).entries).toEqual([]);
  });
});

describe('more of what a hostile battery tried', () => {
  it('import /proc passes over what it cannot read, and imports nothing', async () => {
    await init();
    const r = await ends(['import', '/proc', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).imported).toBe(0);
  });

  it('a 50 MB entry file: the prompt hook and the Stop hook end with exit 0, list and search serve the rest', async () => {
    await init();
    const ok = JSON.parse((await ends(['add', '--type', 'decision', '--title', 'Otters hold hands', '--json', 'while sleeping'])).stdout).id;
    const big = path.join(sb.data, 'entries', 'kb-3zzzzzzzzy-huge.md');
    fs.writeFileSync(big, `---\nid: kb-3zzzzzzzzy\ntitle: Huge otters\ntype: decision\n---\n${'otters hold hands. '.repeat(50 * 1024 * 1024 / 19)}\n`);
    const env = { ...sb.env, GIT_KB_DATA: sb.data };
    const prompt = await run(process.execPath, [HOOK, 'prompt'], { env, input: JSON.stringify({ session_id: 's', cwd: sb.root, prompt: 'why do otters hold hands when sleeping' }), timeoutMs: 60_000 });
    expect(prompt.code).toBe(0);
    const stop = await run(process.execPath, [HOOK, 'stop'], { env, input: JSON.stringify({ session_id: 's', transcript_path: '/nonexistent', stop_hook_active: false }), timeoutMs: 60_000 });
    expect([stop.code, stop.stdout]).toEqual([0, '']);
    expect(JSON.parse((await ends(['list', '--json'])).stdout).entries.map((e: { id: string }) => e.id)).toEqual([ok]);
    expect(JSON.parse((await ends(['search', 'otters', '--json'])).stdout).results.map((e: { id: string }) => e.id)).toContain(ok);
  });

  it('a Stop hook with hosts.yaml a FIFO ends with exit 0 and writes nothing', async () => {
    await init();
    execFileSync('mkfifo', [path.join(sb.data, 'hosts.yaml')]);
    const t = path.join(sb.root, 't.jsonl');
    fs.writeFileSync(t, `${JSON.stringify({ type: 'user', sessionId: 's1', cwd: sb.root, uuid: 'u1', timestamp: '2026-05-01T10:00:00.000Z', message: { role: 'user', content: 'hello there' } })}\n`);
    const stop = await run(process.execPath, [HOOK, 'stop'], { env: { ...sb.env, GIT_KB_DATA: sb.data }, input: JSON.stringify({ session_id: 's1', transcript_path: t, stop_hook_active: false, last_assistant_message: '' }), timeoutMs: 60_000 });
    expect([stop.code, stop.stdout]).toEqual([0, '']);
    expect(fs.existsSync(path.join(sb.data, 'sessions'))).toBe(false);
  });
});

describe('did you mean', () => {
  it('a mistyped --type or rel names the likely one', async () => {
    await init();
    const t = await ends(['add', '--type', 'decison', '--title', 'x', 'y']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(/unknown --type "decison"; one of: .*; did you mean "decision"\?/);
    const l = await ends(['list', '--type', 'lesson']);
    expect(l.stderr).toMatch(/did you mean "lesson_learned"\?/);
    const r = await ends(['add', '--type', 'decision', '--title', 'x', '--link', 'relate_to:kb-0001', 'y']);
    expect(r.stderr).toMatch(/unknown rel "relate_to"; one of: .*; did you mean "relates_to"\?/);
  });
});
