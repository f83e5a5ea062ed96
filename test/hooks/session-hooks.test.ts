/**
 * The session hooks run as Claude Code runs them: the exact command of hooks/hooks.json through `sh -c`, JSON on
 * stdin. Stop writes and then debounces, PreCompact writes whatever the window, SessionEnd hands the last write
 * to a detached worker and returns at once, SessionStart catches up on transcripts never summarised; a forbidden
 * host leaves nothing; every bad input ends in exit 0 and no output; a Stop killed at any moment loses nothing.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, git, kbJson, makeSandbox, run, ROOT, type RunResult, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
/** A sandbox whose data repo is the one dataRepo() gives: made once by the CLI, copied for each test that needs it. */
let template: Sandbox;
beforeAll(async () => {
  template = makeSandbox('gkb-shook-template-');
  await kbJson(template, ['host', 'register', 'pop-os', '--marker', '192.168.1.20']);
});
afterAll(() => template?.cleanup());
beforeEach(() => {
  sb = makeSandbox('gkb-shook-');
});
afterEach(() => sb.cleanup());

const EVENTS = { 'session-start': 'SessionStart', stop: 'Stop', precompact: 'PreCompact', 'session-end': 'SessionEnd' } as const;
type Ev = keyof typeof EVENTS;

function command(event: string): string {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string; timeout?: number }[] }[]> };
  return config.hooks[event]![0]!.hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
}

function hookEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...sb.env, GIT_KB_DATA: sb.data, ...extra };
}

function runHook(ev: Ev, payload: unknown, options: { raw?: string; env?: NodeJS.ProcessEnv } = {}): Promise<RunResult> {
  const input = options.raw ?? JSON.stringify(payload);
  return run('sh', ['-c', command(EVENTS[ev])], { env: hookEnv(options.env), input, timeoutMs: 30_000 });
}

function payload(ev: Ev, sessionId: string, transcript: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { session_id: sessionId, transcript_path: transcript, cwd: '/home/u/proj', hook_event_name: EVENTS[ev], ...extra };
}

let clock = Date.UTC(2026, 4, 1, 10, 0, 0);
function line(sessionId: string, rec: Record<string, unknown>): string {
  clock += 1000;
  return `${JSON.stringify({ sessionId, cwd: '/home/u/proj', gitBranch: 'main', uuid: `${sessionId}-${clock}`, timestamp: new Date(clock).toISOString(), ...rec })}\n`;
}
const userLine = (sid: string, text: string): string => line(sid, { type: 'user', message: { role: 'user', content: text } });
const replyLine = (sid: string, text: string): string => line(sid, { type: 'assistant', message: { id: `m-${clock}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text }] } });

/** Appends one finished turn (prompt and reply) to a transcript. */
function turn(file: string, sid: string, prompt: string, reply = `done: ${prompt}`): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.appendFileSync(file, userLine(sid, prompt) + replyLine(sid, reply));
}

async function commits(): Promise<number> {
  return Number((await git(sb.data, ['rev-list', '--count', 'HEAD'])).trim());
}

function summaries(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith('.md')) out.push(fs.readFileSync(path.join(d, e.name), 'utf8'));
    }
  };
  walk(path.join(sb.data, 'sessions'));
  return out;
}

async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out waiting');
}

/** The repo has no running writer: no lock, no journal. */
function idle(): boolean {
  const s = path.join(sb.data, '.git', 'git-kb');
  return !fs.existsSync(path.join(s, 'write.lock')) && !fs.existsSync(path.join(s, 'journal.json'));
}

/** The data repo as `git-kb host register pop-os --marker 192.168.1.20` leaves it (a `cp -a` of the template's). */
async function dataRepo(): Promise<void> {
  const r = await run('cp', ['-a', template.data, sb.data]);
  expect(r.code, r.stderr).toBe(0);
}

describe('hooks.json wiring', () => {
  it('wires the four session events to the hook entry, SessionEnd with a short timeout', () => {
    const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]> };
    for (const [ev, name] of Object.entries(EVENTS)) {
      expect(config.hooks[name]![0]!.hooks[0]!.command).toBe(`node "\${CLAUDE_PLUGIN_ROOT}/bin/git-kb-hook" ${ev}`);
    }
    expect(config.hooks.SessionEnd![0]!.hooks[0]!.timeout).toBeLessThanOrEqual(2);
  });
});

describe('Stop and PreCompact', () => {
  it('a transcript over 4 MB is summarised by a detached worker, not inside the Stop hook (one of 15.5 MB took 11 s of its 13)', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'projects', 'p', 'sess-big-1.jsonl');
    const reply = `${'a long tool transcript line of build output '.repeat(100)}`;
    while (!fs.existsSync(t) || fs.statSync(t).size <= 4.5 * 1024 * 1024) turn(t, 'sess-big-1', 'why does the nightly build fail on arm64', reply);
    const debug = path.join(sb.root, 'debug.jsonl');
    const r = await runHook('stop', payload('stop', 'sess-big-1', t, { stop_hook_active: false }), { env: { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debug } });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    const records = fs.readFileSync(debug, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    // Before (over 16 MB only): this Stop parsed and summarised it inline.
    expect(records.some((x) => x.event === 'stop' && x.outcome === 'worker')).toBe(true);
    await until(() => summaries().some((x) => x.includes('why does the nightly build fail on arm64')) && idle(), 120_000);
  });

  it('Stop writes the summary at once, then commits at most once per debounce window; PreCompact writes anyway', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'projects', 'p', 'sess-stop-1.jsonl');
    turn(t, 'sess-stop-1', 'why is the gallery page slow on phones');
    const n0 = await commits();
    const first = await runHook('stop', payload('stop', 'sess-stop-1', t, { stop_hook_active: false }));
    expect([first.code, first.stdout, first.stderr]).toEqual([0, '', '']);
    expect(await commits()).toBe(n0 + 1);
    expect(summaries()).toHaveLength(1);
    expect(summaries()[0]).toContain('1. why is the gallery page slow on phones');

    // Four more turns inside the window: no commit storm.
    for (let i = 2; i <= 5; i++) {
      turn(t, 'sess-stop-1', `follow-up question number ${i}`);
      const r = await runHook('stop', payload('stop', 'sess-stop-1', t));
      expect([r.code, r.stdout]).toEqual([0, '']);
    }
    expect(await commits()).toBe(n0 + 1);
    const state = JSON.parse(fs.readFileSync(path.join(sb.data, '.git', 'git-kb', 'sessions', 'sess-stop-1.json'), 'utf8'));
    expect(state.outcome).toBe('pending');

    // A Stop after the window (here: a window of 0 s) writes the latest state, every turn included.
    const late = await runHook('stop', payload('stop', 'sess-stop-1', t), { env: { KB_SESSION_DEBOUNCE_S: '0' } });
    expect(late.code).toBe(0);
    expect(await commits()).toBe(n0 + 2);
    expect(summaries()[0]).toContain('5. follow-up question number 5');

    // PreCompact ignores the window.
    turn(t, 'sess-stop-1', 'one more before compaction');
    await runHook('precompact', payload('precompact', 'sess-stop-1', t, { trigger: 'auto' }));
    expect(await commits()).toBe(n0 + 3);
    expect(summaries()[0]).toContain('6. one more before compaction');

    // Nothing new: no write, no commit.
    await runHook('precompact', payload('precompact', 'sess-stop-1', t, { trigger: 'manual' }));
    expect(await commits()).toBe(n0 + 3);
    await expectCleanRepo(sb.data);
  });

  it('a Stop write leaves the prompt index fresh, so the next prompt does not rebuild it', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'sess-idx.jsonl');
    turn(t, 'sess-idx', 'a question about the release checklist');
    const prompt = (text: string, env: NodeJS.ProcessEnv = {}): Promise<RunResult> =>
      run('sh', ['-c', command('UserPromptSubmit')], { env: hookEnv(env), input: JSON.stringify({ session_id: 'other', cwd: '/x', prompt: text }) });
    await prompt('the first prompt builds the prompt index of this repo'); // a repo whose prompt hook never ran has none
    const n = await commits();
    await runHook('stop', payload('stop', 'sess-idx', t));
    expect(await commits()).toBe(n + 1);
    const debug = path.join(sb.root, 'debug.jsonl');
    const r = await prompt('how do we cut a release of the widgets app', { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debug });
    expect(r.code).toBe(0);
    const rec = JSON.parse(fs.readFileSync(debug, 'utf8').trim().split('\n').pop()!);
    expect(rec.index).toBe('fresh');
  });

  it('a transcript that names a forbidden host produces no summary, now or later, and the hook never points to one', async () => {
    await dataRepo();
    await kbJson(sb, ['host', 'register', 'hssh', '--forbidden', '--marker', 'webspace.example.net']);
    const n0 = await commits();
    const t = path.join(sb.root, 'sess-forb.jsonl');
    turn(t, 'sess-forb', 'check the deploy of the site', 'the site is on webspace.example.net, deploy went fine');
    await runHook('stop', payload('stop', 'sess-forb', t));
    turn(t, 'sess-forb', 'and the other thing too');
    await runHook('precompact', payload('precompact', 'sess-forb', t));
    await runHook('session-end', payload('session-end', 'sess-forb', t, { reason: 'other' }));
    await new Promise((r) => setTimeout(r, 1500));
    await until(idle);
    expect(await commits()).toBe(n0);
    expect(summaries()).toEqual([]);
    const recent = await run('sh', ['-c', command('UserPromptSubmit')], { env: hookEnv(), input: JSON.stringify({ session_id: 'next', cwd: '/home/u/proj', prompt: 'what did we do last time with the site deploy' }) });
    expect(recent.stdout).not.toMatch(/hssh|webspace|check the deploy/);
  });
});

describe('hostile transcripts', () => {
  /** A tool call whose input holds `text` under `depth` nested lists, as one transcript line (built as text: too deep for JSON.stringify). */
  const deepCall = (sid: string, text: string, depth: number): string => {
    const head = line(sid, { type: 'assistant', message: { id: `m-deep-${clock}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'tool_use', id: `tu-${clock}`, name: 'Bash', input: { command: 'ls', extra: 'NESTED' } }] } });
    return head.replace('"NESTED"', `${'['.repeat(depth)}${JSON.stringify(text)}${']'.repeat(depth)}`);
  };

  it('a record nested 20,000 levels deep is summarised, and a forbidden host inside it still blocks the summary', async () => {
    await dataRepo();
    await kbJson(sb, ['host', 'register', 'hdeep', '--forbidden', '--marker', 'deep.example.net']);
    const ok = path.join(sb.root, 'sess-deep.jsonl');
    turn(ok, 'sess-deep', 'tidy the flaky gallery test');
    fs.appendFileSync(ok, deepCall('sess-deep', 'nothing to see', 20_000));
    turn(ok, 'sess-deep', 'and now the carousel test');
    const r = await runHook('stop', payload('stop', 'sess-deep', ok));
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(summaries()).toHaveLength(1);
    expect(summaries()[0]).toContain('2. and now the carousel test');

    const bad = path.join(sb.root, 'sess-deep-forb.jsonl');
    turn(bad, 'sess-deep-forb', 'check the deploy');
    fs.appendFileSync(bad, deepCall('sess-deep-forb', 'ssh deploy@deep.example.net', 20_000));
    await runHook('stop', payload('stop', 'sess-deep-forb', bad));
    expect(summaries()).toHaveLength(1);
    await expectCleanRepo(sb.data);
  });

  it('a FIFO in place of the session state, the id map or the budget state is not waited on: Stop still writes the summary', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'sess-fifo.jsonl');
    turn(t, 'sess-fifo', 'why does the carousel flicker');
    const state = path.join(sb.data, '.git', 'git-kb');
    fs.mkdirSync(path.join(state, 'sessions'), { recursive: true });
    for (const f of [path.join(state, 'sessions', 'sess-fifo.json'), path.join(state, 'ids.v2'), path.join(state, 'sessions', 'budget-blocks.json')]) {
      fs.rmSync(f, { force: true });
      await run('mkfifo', [f]);
    }
    const r = await runHook('stop', payload('stop', 'sess-fifo', t));
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(summaries().some((s) => s.includes('1. why does the carousel flicker'))).toBe(true);
    await expectCleanRepo(sb.data);
  });
});

describe('which session a transcript is', () => {
  it('Stop and catch-up name a transcript filed under another name alike: one summary, not one per name', async () => {
    // Before: Stop keyed the session by its payload, catch-up by the file name: a second summary under "renamed".
    await dataRepo();
    const sid = 'abab1212-0000-4000-8000-000000000012';
    const t = path.join(sb.home, '.claude', 'projects', '-home-u-proj', 'renamed.jsonl');
    turn(t, sid, 'why does the thumbnail cache never expire');
    const r = await runHook('stop', payload('stop', sid, t, { stop_hook_active: false }));
    expect([r.code, r.stdout]).toEqual([0, '']);
    expect(summaries()).toHaveLength(1);
    const up = await kbJson(sb, ['session', 'catch-up']);
    expect(up).toMatchObject({ written: [], failed: [] });
    expect(summaries()).toHaveLength(1);
    // The session goes on; its SessionEnd worker and the next catch-up update the same summary.
    turn(t, sid, 'and the avatar cache as well');
    await runHook('session-end', payload('session-end', sid, t, { reason: 'other' }), { env: { KB_SESSION_DEBOUNCE_S: '0' } });
    await until(() => summaries().some((s) => s.includes('2. and the avatar cache as well')) && idle());
    expect(await kbJson(sb, ['session', 'catch-up'])).toMatchObject({ looked: 0, written: [] });
    expect(summaries()).toHaveLength(1);
    expect(summaries()[0]).toContain(`session_id: ${sid}`);
    await expectCleanRepo(sb.data);
  });
});

describe('SessionEnd and SessionStart', () => {
  it('SessionEnd leaves a summary committed within the window pending (its turns are searchable already); past the window a detached worker writes it', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'sess-end.jsonl');
    turn(t, 'sess-end', 'first question of the session');
    await runHook('stop', payload('stop', 'sess-end', t));
    turn(t, 'sess-end', 'last question before quitting about zanzibar tiles');
    await runHook('stop', payload('stop', 'sess-end', t)); // debounced: pending
    const n = await commits();
    const r = await runHook('session-end', payload('session-end', 'sess-end', t, { reason: 'prompt_input_exit' }));
    expect([r.code, r.stdout]).toEqual([0, '']);
    await new Promise((res) => setTimeout(res, 1000));
    expect(await commits()).toBe(n); // within the window: no worker, no commit
    const found = await kbJson(sb, ['search', 'zanzibar tiles']);
    expect(found.sessions).toEqual([expect.objectContaining({ session_id: 'sess-end', turn: 2, kind: 'prompt' })]);
    // Past the window, SessionEnd hands the write to a worker.
    await runHook('session-end', payload('session-end', 'sess-end', t, { reason: 'prompt_input_exit' }), { env: { KB_SESSION_DEBOUNCE_S: '0' } });
    await until(async () => (await commits()) === n + 1 && idle());
    expect(summaries()[0]).toContain('2. last question before quitting');
    // Already current: SessionEnd starts nothing.
    await runHook('session-end', payload('session-end', 'sess-end', t, { reason: 'other' }), { env: { KB_SESSION_DEBOUNCE_S: '0' } });
    await new Promise((res) => setTimeout(res, 1000));
    expect(await commits()).toBe(n + 1);
    await expectCleanRepo(sb.data);
  });

  it('a one-prompt session makes one commit: SessionEnd after the Stop only moves the end time, and writes nothing', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'sess-one.jsonl');
    const stateFile = path.join(sb.data, '.git', 'git-kb', 'sessions', 'sess-one.json');
    const caughtUp = (): boolean => fs.existsSync(stateFile) && JSON.parse(fs.readFileSync(stateFile, 'utf8')).size === fs.statSync(t).size;
    turn(t, 'sess-one', 'what does the retry helper do');
    const n = await commits();
    await runHook('stop', payload('stop', 'sess-one', t));
    expect(await commits()).toBe(n + 1);
    const before = summaries()[0];
    // What Claude Code appends after the last Stop, before SessionEnd: records with later times and no prompt.
    fs.appendFileSync(t, line('sess-one', { type: 'system', subtype: 'stop_hook_summary', content: '' }) + line('sess-one', { type: 'last-prompt', lastPrompt: 'what does the retry helper do' }));
    // The worker (past the window; within it SessionEnd starts none) finds the summary unchanged.
    await runHook('session-end', payload('session-end', 'sess-one', t, { reason: 'prompt_input_exit' }), { env: { KB_SESSION_DEBOUNCE_S: '0' } });
    await until(() => caughtUp() && idle());
    expect(await commits()).toBe(n + 1);
    expect(summaries()[0]).toBe(before);
    expect(JSON.parse(fs.readFileSync(stateFile, 'utf8')).outcome).toBe('unchanged');
  });

  it('the SessionEnd worker leaves the prompt index fresh after it commits', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'sess-fresh.jsonl');
    const prompt = (text: string, env: NodeJS.ProcessEnv = {}): Promise<RunResult> =>
      run('sh', ['-c', command('UserPromptSubmit')], { env: hookEnv(env), input: JSON.stringify({ session_id: 'other', cwd: '/x', prompt: text }) });
    await prompt('the first prompt builds the prompt index of this repo');
    turn(t, 'sess-fresh', 'how is the cache invalidated');
    const n = await commits();
    await runHook('session-end', payload('session-end', 'sess-fresh', t, { reason: 'other' }));
    await until(async () => (await commits()) === n + 1 && idle());
    const debug = path.join(sb.root, 'debug.jsonl');
    await prompt('how do we cut a release of the widgets app', { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debug });
    expect(JSON.parse(fs.readFileSync(debug, 'utf8').trim().split('\n').pop()!).index).toBe('fresh');
  });

  it('SessionStart catches up on transcripts under ~/.claude/projects never summarised, at most once per interval', async () => {
    await dataRepo();
    const projects = path.join(sb.home, '.claude', 'projects', '-home-u-proj');
    const ids = ['aaaa1111-0000-4000-8000-000000000001', 'bbbb2222-0000-4000-8000-000000000002'];
    for (const id of ids) turn(path.join(projects, `${id}.jsonl`), id, `an earlier session ${id.slice(0, 4)} about the parser`);
    const current = 'cccc3333-0000-4000-8000-000000000003';
    turn(path.join(projects, `${current}.jsonl`), current, 'the session that is starting now');
    const r = await runHook('session-start', { session_id: current, transcript_path: path.join(projects, `${current}.jsonl`), cwd: '/home/u/proj', hook_event_name: 'SessionStart', source: 'startup' });
    expect([r.code, r.stdout]).toEqual([0, '']);
    await until(() => summaries().length === 2 && idle());
    expect(summaries().some((s) => s.includes(current))).toBe(false);
    // A second start within the interval starts no catch-up, even with work to do.
    const late = 'dddd4444-0000-4000-8000-000000000004';
    turn(path.join(projects, `${late}.jsonl`), late, 'a session that ended without any hook');
    await runHook('session-start', { session_id: 'eeee', cwd: '/x', hook_event_name: 'SessionStart', source: 'resume' });
    await new Promise((res) => setTimeout(res, 1500));
    expect(summaries()).toHaveLength(2);
    await runHook('session-start', { session_id: 'ffff', cwd: '/x', hook_event_name: 'SessionStart', source: 'startup' }, { env: { KB_SESSION_CATCHUP_MIN: '0' } });
    await until(() => summaries().length === 4 && idle()); // the late one, and the session that was starting before
    await expectCleanRepo(sb.data);
  });
});

describe('fail-open', () => {
  it('every bad input ends in exit 0 and no output, quickly, and writes nothing', async () => {
    await dataRepo();
    const good = path.join(sb.root, 'good.jsonl');
    turn(good, 'sess-good', 'a perfectly normal question about tests');
    const dirPath = path.join(sb.root, 'a-dir');
    fs.mkdirSync(dirPath);
    const binary = path.join(sb.root, 'binary.jsonl');
    fs.writeFileSync(binary, Buffer.from([0, 1, 2, 255, 254, 10, 123, 0]));
    const n0 = await commits();
    const cases: [string, { payload?: unknown; raw?: string; env?: NodeJS.ProcessEnv }][] = [
      ['empty stdin', { raw: '' }],
      ['not JSON', { raw: '{"session_id": ' }],
      ['a JSON array', { raw: '[1,2,3]' }],
      ['no session id', { payload: { transcript_path: good } }],
      ['no transcript path', { payload: { session_id: 'x1' } }],
      ['a number as session id', { payload: { session_id: 42, transcript_path: good } }],
      ['an object as transcript path', { payload: { session_id: 'x2', transcript_path: { p: 1 } } }],
      ['a missing transcript', { payload: { session_id: 'x3', transcript_path: path.join(sb.root, 'nope.jsonl') } }],
      ['a directory as transcript', { payload: { session_id: 'x4', transcript_path: dirPath } }],
      ['a binary transcript', { payload: { session_id: 'x5', transcript_path: binary } }],
      ['no data repo', { payload: { session_id: 'x6', transcript_path: good }, env: { GIT_KB_DATA: path.join(sb.root, 'no-repo') } }],
      ['sessions turned off', { payload: { session_id: 'x7', transcript_path: good }, env: { KB_SESSIONS: '0' } }],
      ['sessions turned off, any spelling', { payload: { session_id: 'x8', transcript_path: good }, env: { KB_SESSIONS: ' Off ' } }],
      ['a session id with path characters', { payload: { session_id: '../../etc/passwd', transcript_path: binary } }],
    ];
    for (const ev of Object.keys(EVENTS) as Ev[]) {
      for (const [what, c] of cases) {
        const r = await runHook(ev, c.payload ?? {}, { raw: c.raw, env: c.env });
        expect([r.code, r.stdout], `${ev}: ${what}`).toEqual([0, '']);
      }
    }
    await new Promise((res) => setTimeout(res, 1000));
    await until(idle);
    expect(await commits()).toBe(n0);
    expect(fs.existsSync(path.join(sb.root, 'no-repo'))).toBe(false); // hooks never create a data repo
  });

  it('a corrupt state file, an invalid hosts.yaml or a busy lock never break a hook (and an invalid hosts.yaml writes nothing)', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'sess-x.jsonl');
    turn(t, 'sess-x', 'a question for the corrupt state case');
    const stateDir = path.join(sb.data, '.git', 'git-kb', 'sessions');
    fs.mkdirSync(stateDir, { recursive: true });
    fs.writeFileSync(path.join(stateDir, 'sess-x.json'), '{"sessionId": "sess-x", "committedAt": ');
    const ok = await runHook('stop', payload('stop', 'sess-x', t));
    expect([ok.code, ok.stdout]).toEqual([0, '']);
    expect(summaries()).toHaveLength(1);
    const n = await commits();
    fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), 'hosts:\n  pop-os:\n    forbiden: true\n');
    turn(t, 'sess-x', 'another question');
    const bad = await runHook('precompact', payload('precompact', 'sess-x', t));
    expect([bad.code, bad.stdout]).toEqual([0, '']);
    expect(await commits()).toBe(n);
    await git(sb.data, ['checkout', 'hosts.yaml'], sb.env);
    fs.writeFileSync(path.join(sb.data, '.git', 'git-kb', 'write.lock'), `${process.pid}\nhost\n${Date.now()}\n`);
    const before = await commits();
    const busy = await runHook('stop', payload('stop', 'sess-y', t), { env: { KB_SESSION_DEBOUNCE_S: '0' } });
    expect([busy.code, busy.stdout]).toEqual([0, '']);
    // A held lock is waited for 2 s at most (spec/sessions.md), then the write is left pending, never blocked on.
    expect(busy.ms).toBeGreaterThanOrEqual(1900);
    expect(await commits()).toBe(before);
    fs.rmSync(path.join(sb.data, '.git', 'git-kb', 'write.lock'));
  });

  it('a Stop killed at any moment loses nothing: the next hook finishes the summary and the repo stays valid', async () => {
    await dataRepo();
    const t = path.join(sb.root, 'sess-kill.jsonl');
    const delays = [20, 60, 100, 150, 200, 260, 330, 420];
    for (const [i, delay] of delays.entries()) {
      turn(t, 'sess-kill', `question ${i + 1} before a kill at ${delay} ms`);
      await new Promise<void>((resolve) => {
        const child = spawn('sh', ['-c', `exec ${command('Stop')}`], { env: hookEnv({ KB_SESSION_DEBOUNCE_S: '0' }), stdio: ['pipe', 'ignore', 'ignore'] });
        child.stdin.end(JSON.stringify(payload('stop', 'sess-kill', t)));
        const timer = setTimeout(() => child.kill('SIGKILL'), delay);
        child.on('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    // A lock left by a killed process is broken once its holder is seen dead; the next Stop recovers any journal.
    turn(t, 'sess-kill', 'the last question');
    const r = await runHook('stop', payload('stop', 'sess-kill', t), { env: { KB_SESSION_DEBOUNCE_S: '0' } });
    expect(r.code).toBe(0);
    await until(idle);
    const all = summaries();
    expect(all).toHaveLength(1);
    for (let i = 1; i <= delays.length; i++) expect(all[0]).toContain(`${i}. question ${i} before a kill`);
    expect(all[0]).toContain(`${delays.length + 1}. the last question`);
    await expectCleanRepo(sb.data);
  });
});

describe('SessionStart and PATH', () => {
  it('puts the plugin bin/ on the PATH of Bash through CLAUDE_ENV_FILE once, only when it is missing', async () => {
    const envFile = path.join(sb.root, 'session-env.sh');
    const bin = path.join(ROOT, 'bin');
    const r = await runHook('session-start', payload('session-start', 's-path', path.join(sb.root, 'none.jsonl'), { source: 'startup' }), { env: { CLAUDE_ENV_FILE: envFile, KB_SESSIONS: '0', PATH: '/usr/bin:/bin' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(fs.readFileSync(envFile, 'utf8')).toBe(`export PATH='${bin}':"$PATH"\n`);
    // Sourced by bash, git-kb is found.
    const found = await run('bash', ['-c', `. ${JSON.stringify(envFile)} && command -v git-kb`], { env: { PATH: '/usr/bin:/bin' } });
    expect(found.stdout.trim()).toBe(path.join(bin, 'git-kb'));
    // Not twice, and not when bin/ is on PATH already.
    await runHook('session-start', payload('session-start', 's-path', path.join(sb.root, 'none.jsonl'), { source: 'resume' }), { env: { CLAUDE_ENV_FILE: envFile, KB_SESSIONS: '0', PATH: '/usr/bin:/bin' } });
    expect(fs.readFileSync(envFile, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    const other = path.join(sb.root, 'other-env.sh');
    await runHook('session-start', payload('session-start', 's-path2', path.join(sb.root, 'none.jsonl'), { source: 'startup' }), { env: { CLAUDE_ENV_FILE: other, KB_SESSIONS: '0', PATH: `${bin}:/usr/bin:/bin` } });
    expect(fs.existsSync(other)).toBe(false);
  });

  it('writes a plugin folder whose name holds $(…), backquotes and quotes as one literal word', async () => {
    // A copy of the plugin (bin/, dist/, package.json) under a hostile folder name, run from there.
    const root = path.join(sb.root, `plug $(touch pwned) \`touch pwned2\` 'q' "$HOME"`);
    fs.mkdirSync(root);
    for (const part of ['bin', 'dist', 'package.json']) fs.cpSync(path.join(ROOT, part), path.join(root, part), { recursive: true });
    const envFile = path.join(sb.root, 'hostile-env.sh');
    const r = await run(process.execPath, [path.join(root, 'bin', 'git-kb-hook'), 'session-start'], {
      env: hookEnv({ CLAUDE_ENV_FILE: envFile, KB_SESSIONS: '0', PATH: '/usr/bin:/bin' }),
      input: JSON.stringify(payload('session-start', 's-hostile', path.join(sb.root, 'none.jsonl'), { source: 'startup' })),
    });
    expect(r.code).toBe(0);
    const found = await run('bash', ['-c', `. ${JSON.stringify(envFile)} && command -v git-kb`], { env: { PATH: '/usr/bin:/bin', HOME: sb.home }, cwd: sb.root });
    expect(found.stdout.trim()).toBe(path.join(root, 'bin', 'git-kb'));
    expect(fs.existsSync(path.join(sb.root, 'pwned'))).toBe(false);
    expect(fs.existsSync(path.join(sb.root, 'pwned2'))).toBe(false);
  });

  it('leaves a CLAUDE_ENV_FILE that is a FIFO or a device alone, without waiting on it', async () => {
    const fifo = path.join(sb.root, 'env-fifo');
    await run('mkfifo', [fifo]);
    for (const envFile of [fifo, '/dev/zero', '/dev/null']) {
      const r = await runHook('session-start', payload('session-start', 's-fifo', path.join(sb.root, 'none.jsonl'), { source: 'startup' }), { env: { CLAUDE_ENV_FILE: envFile, KB_SESSIONS: '0', PATH: '/usr/bin:/bin' } });
      expect(r.code, envFile).toBe(0);
      expect(r.stdout, envFile).toBe('');
    }
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
  });
});
