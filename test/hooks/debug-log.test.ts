/**
 * The hooks' debug log (spec/hooks.md, "Debug log"): counts, ids, signals and scores only. A prompt holding a
 * secret (and words matching an entry) leaves no piece of the secret or of the prompt in the log, and the log is
 * created with mode 600 in a folder with mode 700.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { hook, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { SECRET_BATTERY } from '../fixtures/secrets.js';
import { fragmentsIn } from '../hostile/support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-debuglog-');
});
afterEach(() => sb.cleanup());

it('a prompt with a fake secret leaves no fragment of it (nor its words) in the debug log; the log is 600 in a 700 folder', async () => {
  const r = await kb(sb, ['--data', sb.data, 'add', '--type', 'pattern_convention', '--title', 'Rebase onto main before merging', '--tags', 'git,rebase', '--', 'Always rebase.']);
  expect(r.code, r.stderr).toBe(0);
  const item = SECRET_BATTERY.find((s) => s.kind === 'GitHub token')!;
  const folder = path.join(sb.root, 'logs');
  const file = path.join(folder, 'debug.jsonl');
  const env = { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: file, GIT_KB_DATA: sb.data };
  const prompt = `please rebase onto main with the zanzibarword token ${item.secret} now`;
  for (let i = 0; i < 2; i++) {
    const h = await hook(sb, 'prompt', { session_id: 'sess-debug', hook_event_name: 'UserPromptSubmit', cwd: sb.root, prompt }, { env });
    expect(h.code).toBe(0);
  }
  const log = fs.readFileSync(file, 'utf8');
  expect(log.trim().split('\n').length).toBeGreaterThan(0);
  expect(log.toLowerCase()).not.toContain(item.secret.toLowerCase());
  expect(fragmentsIn(log, item.secret)).toBe(0);
  expect(log).not.toContain('zanzibarword');
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
});

/** Runs one prompt through the hook with debugging on and the default log file (under the sandbox's TMPDIR). */
async function promptWithDefaultLog(sessionId = 'sess-default'): Promise<void> {
  const h = await hook(sb, 'prompt', { session_id: sessionId, hook_event_name: 'UserPromptSubmit', cwd: sb.root, prompt: 'rebase onto main' }, { env: { KB_HOOK_DEBUG: '1', GIT_KB_DATA: sb.data } });
  expect(h.code).toBe(0);
  expect(h.stdout).toBe('');
}

it('the default log is one folder per user in the temp folder; a link or a hard link planted there is not written through', async () => {
  expect((await kb(sb, ['--data', sb.data, 'init'])).code).toBe(0);
  const tmp = sb.env.TMPDIR!;
  const own = path.join(tmp, `git-kb-hooks-${process.getuid!()}`);
  await promptWithDefaultLog();
  expect(fs.statSync(own).mode & 0o777).toBe(0o700);
  expect(JSON.parse(fs.readFileSync(path.join(own, 'debug.jsonl'), 'utf8').trim()).event).toBe('prompt');
  fs.rmSync(own, { recursive: true });

  // Another user's plants, in the per-user folder and in the folder older versions used.
  const victim = path.join(sb.root, 'victim.txt');
  fs.writeFileSync(victim, 'precious\n');
  for (const dir of [own, path.join(tmp, 'git-kb-hooks')]) {
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.symlinkSync(victim, path.join(dir, 'debug.jsonl'));
  }
  await promptWithDefaultLog();
  fs.rmSync(path.join(own, 'debug.jsonl'));
  fs.linkSync(victim, path.join(own, 'debug.jsonl'));
  await promptWithDefaultLog();
  expect(fs.readFileSync(victim, 'utf8')).toBe('precious\n');
});

it('the default log is not written into a folder others may write', async () => {
  expect((await kb(sb, ['--data', sb.data, 'init'])).code).toBe(0);
  const own = path.join(sb.env.TMPDIR!, `git-kb-hooks-${process.getuid!()}`);
  fs.mkdirSync(own);
  fs.chmodSync(own, 0o777);
  await promptWithDefaultLog();
  expect(fs.readdirSync(own)).toEqual([]);
});

it('a record over the size limit is shortened, never cut: every line stays one JSON object', async () => {
  expect((await kb(sb, ['--data', sb.data, 'init'])).code).toBe(0);
  await promptWithDefaultLog('s'.repeat(40_000));
  const lines = fs.readFileSync(path.join(sb.env.TMPDIR!, `git-kb-hooks-${process.getuid!()}`, 'debug.jsonl'), 'utf8').trim().split('\n');
  expect(lines.length).toBeGreaterThan(0);
  for (const l of lines) {
    expect(l.length).toBeLessThanOrEqual(16 * 1024);
    const rec = JSON.parse(l) as { event?: string; session?: string };
    expect(rec.event).toBe('prompt');
    expect(rec.session).toMatch(/^s{256}… \(40000 characters\)$/);
  }
});
