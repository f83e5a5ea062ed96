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

it('a prompt with a fake secret leaves no fragment of it (nor its words) in the debug log; the log is 600 in a 700 folder', { timeout: 30_000 }, async () => {
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
