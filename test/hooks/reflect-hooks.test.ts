/**
 * Reflection from the session hooks, run as Claude Code runs them (the command of hooks/hooks.json through `sh -c`,
 * JSON on stdin), with a stand-in reflection child that records its calls: PreCompact starts a detached
 * `git-kb reflect --auto` worker that commits the kept fact once, naming the session; SessionEnd after it makes no
 * second model call; KB_REFLECT=0 and a forbidden host start no model call; the hooks print nothing and exit 0.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, kb, makeSandbox, run, ROOT, type RunResult, type Sandbox } from '../helpers/cli.js';
import { pathWith, STUBS, stubCalls } from '../gate/support.js';
import { FIXTURE, FIXTURE_SESSION, GOOD_FACT, HOSTS_YAML } from '../reflect/support.js';

let sb: Sandbox;
let log: string;
let env: NodeJS.ProcessEnv;
beforeEach(async () => {
  sb = makeSandbox('gkb-rhook-');
  log = path.join(sb.root, 'stub.jsonl');
  const answer = path.join(sb.root, 'answer.json');
  fs.writeFileSync(answer, JSON.stringify({ proposals: [GOOD_FACT] }));
  const debug = path.join(sb.root, 'debug.jsonl');
  env = { ...sb.env, GIT_KB_DATA: sb.data, PATH: pathWith(undefined, sb), KB_REFLECT_CLAUDE: path.join(STUBS, 'reflect.mjs'), REFLECT_STUB_ANSWER: answer, STUB_LOG: log, KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debug };
  expect((await kb(sb, ['--data', sb.data, 'init'], { env })).code).toBe(0);
  fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), HOSTS_YAML);
  await git(sb.data, ['add', '-A'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', 'hosts'], sb.env);
});
afterEach(() => sb.cleanup());

const EVENTS = { precompact: 'PreCompact', 'session-end': 'SessionEnd' } as const;

function command(event: string): string {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  return config.hooks[event]![0]!.hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
}

function runHook(ev: keyof typeof EVENTS, transcript: string, extra: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const payload = { session_id: FIXTURE_SESSION, transcript_path: transcript, cwd: '/home/dana/src/ci-scripts', hook_event_name: EVENTS[ev] };
  return run('sh', ['-c', command(EVENTS[ev])], { env: { ...env, ...extra }, input: JSON.stringify(payload), timeoutMs: 30_000 });
}

async function commits(): Promise<string[]> {
  return (await git(sb.data, ['log', '--format=%s'], sb.env)).trim().split('\n');
}

/** Waits until nothing git-kb started in the sandbox runs any more (the detached workers). */
async function settled(ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  const busy = (): boolean =>
    fs.readdirSync('/proc').some((pid) => {
      if (!/^\d+$/.test(pid) || Number(pid) === process.pid) return false;
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(sb.data);
      } catch {
        return false;
      }
    });
  while (busy() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
  expect(busy()).toBe(false);
}

function transcript(text = fs.readFileSync(FIXTURE, 'utf8')): string {
  const t = path.join(sb.root, 'projects', 'ci-scripts', `${FIXTURE_SESSION}.jsonl`);
  fs.mkdirSync(path.dirname(t), { recursive: true });
  fs.writeFileSync(t, text);
  return t;
}

describe('reflection from the hooks', () => {
  it('PreCompact starts a worker that commits the kept fact once; SessionEnd after it asks the model nothing', async () => {
    const t = transcript();
    const r = await runHook('precompact', t);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    await settled();
    expect(stubCalls(log).map((c) => [c.stub, c.KB_REFLECT, c.KB_PROSE_LINT])).toEqual([['reflect', '0', '0']]);
    const subjects = await commits();
    expect(subjects[0]).toBe(`reflect ${FIXTURE_SESSION}: 1 host fact, 0 lessons`);
    expect(subjects.filter((s) => s.startsWith('reflect '))).toHaveLength(1);

    const end = await runHook('session-end', t);
    expect([end.code, end.stdout]).toEqual([0, '']);
    await settled();
    expect(stubCalls(log)).toHaveLength(1);
    expect((await commits()).filter((s) => s.startsWith('reflect '))).toHaveLength(1);
  });

  it('starts no model call with KB_REFLECT=0, no worker for a session without a tool call, and no model call for a transcript that names a forbidden host', async () => {
    const t = transcript();
    await runHook('precompact', t, { KB_REFLECT: '0' });
    await runHook('session-end', t, { KB_REFLECT: 'off' });
    await settled();
    expect(stubCalls(log)).toEqual([]);

    // A session of prompts and replies only: the hooks start no worker at all.
    const talk = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l && !l.includes('"tool_use"') && !l.includes('"tool_result"')).join('\n');
    const quiet = transcript(`${talk}\n`);
    await runHook('precompact', quiet);
    await runHook('session-end', quiet);
    await settled();
    const debug = fs.readFileSync(env.KB_HOOK_DEBUG_FILE!, 'utf8');
    expect(debug.match(/"reflect":"no tool call"/g)).toHaveLength(2);
    expect(debug).not.toContain('"event":"reflect"');

    const forbidden = transcript(fs.readFileSync(FIXTURE, 'utf8').replace('Find out why', 'Compare with vault.prod.example.com, then find out why'));
    await runHook('precompact', forbidden);
    await runHook('session-end', forbidden);
    await settled();
    expect(stubCalls(log)).toEqual([]);
    expect((await commits()).some((s) => s.startsWith('reflect '))).toBe(false);
  });
});
