/**
 * The prompt hook with no data repo (spec/hooks.md, "No data repo yet"): once per session, one line saying how to
 * start, to the model (additionalContext) and to the user (systemMessage); nothing on the session's later prompts,
 * nothing once a data repo exists, and silence (exit 0) when the marker cannot be written. Run through the exact
 * command of hooks/hooks.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kb, makeSandbox, type RunResult, type Sandbox } from '../helpers/cli.js';
import { payload, runPromptHook } from './prompt-support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

/** The hook with the default data repo (~/.git-kb/data of the sandbox's HOME). */
const prompt = (text: string, session: unknown, env: NodeJS.ProcessEnv = {}): Promise<RunResult> => runPromptHook(sb, payload(text, session), { env: { GIT_KB_DATA: '', ...env } });

function hintOf(r: RunResult): string | undefined {
  expect([r.code, r.stderr]).toEqual([0, '']);
  if (r.stdout === '') return undefined;
  const out = JSON.parse(r.stdout) as { systemMessage: string; hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  expect(Object.keys(out).sort()).toEqual(['hookSpecificOutput', 'systemMessage']);
  expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
  expect(out.hookSpecificOutput.additionalContext).toBe(out.systemMessage);
  expect(out.systemMessage.split('\n')).toHaveLength(1);
  return out.systemMessage;
}

describe('prompt hook, no data repo yet', () => {
  it('says how to start once per session, on any prompt but a slash command, and not once a data repo exists', async () => {
    sb = makeSandbox('gkb-hint-');
    expect(hintOf(await prompt('/help', 's1'))).toBeUndefined(); // a slash command neither hints nor uses the session's hint
    expect(hintOf(await prompt('hi', 's1'))).toBe('git-kb: no knowledge base yet (no data repo at ~/.git-kb/data); `git-kb init` starts one, and the first `git-kb add` creates it there too.');
    expect(hintOf(await prompt('how do I rebase onto main without losing the merge commits?', 's1'))).toBeUndefined();
    expect(hintOf(await prompt('hi', 's1'))).toBeUndefined();
    // another session hears it once too; as the plugin (CLAUDE_PLUGIN_ROOT set), the slash command is named first
    const plugin = { CLAUDE_PLUGIN_ROOT: path.join(sb.root, 'plugin') };
    expect(hintOf(await prompt('how do I rebase onto main without losing the merge commits?', 's2', plugin))).toBe(
      'git-kb: no knowledge base yet (no data repo at ~/.git-kb/data); `/git-kb init` (or `git-kb init` in a shell) starts one, and the first `git-kb add` creates it there too.',
    );
    expect(hintOf(await prompt('and the second prompt of that session', 's2', plugin))).toBeUndefined();
    // the hint wrote only its marker: no data repo was made
    expect(fs.readdirSync(path.join(sb.home, '.git-kb'))).toEqual(['hinted']);
    expect(fs.readdirSync(path.join(sb.home, '.git-kb', 'hinted')).sort()).toEqual(['s1.json', 's2.json']);

    // once there is a data repo, a new session gets no hint (and no output for a prompt nothing matches)
    expect((await kb(sb, ['init', '--json'], { env: { GIT_KB_DATA: '' } })).code).toBe(0);
    expect(hintOf(await prompt('how do I rebase onto main without losing the merge commits?', 's3'))).toBeUndefined();
  }, 60_000);

  it('names the data repo it looked for (GIT_KB_DATA), and hints on every prompt when there is no session id', async () => {
    sb = makeSandbox('gkb-hint-');
    const data = path.join(sb.root, 'notes');
    const r = await runPromptHook(sb, payload('where did my notes go?', undefined), { env: { GIT_KB_DATA: data } });
    expect(hintOf(r)).toContain(`(no data repo at ${data})`);
    expect(hintOf(await runPromptHook(sb, { prompt: 'where did my notes go?' }, { env: { GIT_KB_DATA: data } }))).toContain('git-kb init');
    expect(hintOf(await runPromptHook(sb, { prompt: 'where did my notes go?' }, { env: { GIT_KB_DATA: data } }))).toContain('git-kb init');
  });

  it('a data repo that is there but cannot be read (its .git a link loop) gets no "no knowledge base yet" hint: silence, exit 0', async () => {
    sb = makeSandbox('gkb-hint-');
    const data = path.join(sb.root, 'notes');
    fs.mkdirSync(data);
    fs.symlinkSync('.git', path.join(data, '.git')); // ELOOP on stat, as EACCES would be for another user
    // Before: the false hint that no knowledge base exists and that `git-kb add` would create one.
    expect(hintOf(await runPromptHook(sb, payload('where did my notes go?', 's9'), { env: { GIT_KB_DATA: data } }))).toBeUndefined();
  });

  it('stays silent (exit 0) when it cannot remember the hint: no line on every prompt', async () => {
    sb = makeSandbox('gkb-hint-');
    fs.writeFileSync(path.join(sb.home, '.git-kb'), 'a file where the folder would be');
    expect(hintOf(await prompt('how do I rebase onto main without losing the merge commits?', 's1'))).toBeUndefined();
    fs.rmSync(path.join(sb.home, '.git-kb'));
    fs.mkdirSync(path.join(sb.home, '.git-kb', 'hinted'), { recursive: true });
    fs.chmodSync(path.join(sb.home, '.git-kb', 'hinted'), 0o500);
    try {
      if (process.getuid?.() !== 0) expect(hintOf(await prompt('how do I rebase onto main without losing the merge commits?', 's1'))).toBeUndefined();
    } finally {
      fs.chmodSync(path.join(sb.home, '.git-kb', 'hinted'), 0o700);
    }
  });
});
