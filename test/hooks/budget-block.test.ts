/**
 * The Stop hook's budget block (spec/memory.md), run as Claude Code runs it: the exact command of hooks/hooks.json
 * through `sh -c`, the Stop payload on stdin. Over a budget it blocks the turn once with {"decision":"block",
 * "reason"} naming the entries and the /git-kb compact command, and then stays quiet through the cooldown (per
 * budget); never when stop_hook_active is true; never with a broken kb.json; the session summary is still
 * written; every failure is exit 0 and no output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, git, kb, makeSandbox, run, ROOT, type RunResult, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
let kernelId: string;
let bigId: string;

function command(): string {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  return config.hooks.Stop![0]!.hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
}
function stop(extra: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}, raw?: string): Promise<RunResult> {
  const transcript = path.join(sb.root, 'transcript.jsonl');
  const input = raw ?? JSON.stringify({ session_id: 's-budget-1', transcript_path: transcript, cwd: '/home/u/proj', hook_event_name: 'Stop', stop_hook_active: false, ...extra });
  return run('sh', ['-c', command()], { env: { ...sb.env, GIT_KB_DATA: sb.data, ...env }, input, timeoutMs: 30_000 });
}
const kbJsonFile = (): string => path.join(sb.data, 'kb.json');
async function setBudgets(budgets: Record<string, number> | string): Promise<void> {
  const base = JSON.parse(fs.readFileSync(kbJsonFile(), 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(kbJsonFile(), typeof budgets === 'string' ? budgets : `${JSON.stringify({ ...base, budgets }, null, 2)}\n`);
  await git(sb.data, ['add', 'kb.json'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', 'budgets'], sb.env);
}
async function add(args: string[]): Promise<string> {
  const r = await kb(sb, ['--data', sb.data, 'add', ...args]);
  if (r.code !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}
function block(r: RunResult): { decision: string; reason: string } {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { decision: string; reason: string };
}
const blocksFile = (): string => path.join(sb.data, '.git', 'git-kb', 'sessions', 'budget-blocks.json');
function writeTranscript(): void {
  const sid = 's-budget-1';
  const rec = (r: Record<string, unknown>, t: number) => `${JSON.stringify({ sessionId: sid, cwd: '/home/u/proj', gitBranch: 'main', uuid: `${sid}-${t}`, timestamp: new Date(Date.UTC(2026, 4, 1, 10, 0, t)).toISOString(), ...r })}\n`;
  fs.writeFileSync(path.join(sb.root, 'transcript.jsonl'), rec({ type: 'user', message: { role: 'user', content: 'Fix the flaky websocket test in the gateway' } }, 1) + rec({ type: 'assistant', message: { id: 'm1', role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: 'Fixed the race in the fixture teardown.' }] } }, 2));
}

beforeEach(async () => {
  sb = makeSandbox('gkb-budget-');
  const init = await kb(sb, ['--data', sb.data, 'init']);
  expect(init.code, init.stderr).toBe(0);
  kernelId = await add(['--kernel', '--type', 'pattern_convention', '--title', 'House style', '--', 'Write plain English. '.repeat(10)]);
  bigId = await add(['--type', 'lesson_learned', '--title', 'A long lesson', '--', 'Long words about retries. '.repeat(20)]);
  writeTranscript();
});
afterEach(() => sb.cleanup());

async function quiet0(p: Promise<RunResult>): Promise<void> {
  const r = await p;
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
}

describe('Stop hook budget block', () => {
  it('blocks once over the kernel budget, naming the entries and the command, then stays quiet through the cooldown', async () => {
    await setBudgets({ kernel_chars: 100 });
    const first = block(await stop());
    expect(first.decision).toBe('block');
    expect(first.reason).toContain(`kernel_chars: kernel is 210 of 100 characters (${kernelId} "House style" (210))`);
    expect(first.reason).toContain('Run: /git-kb compact kernel');
    expect(first.reason).not.toContain(bigId); // the entry budget (3000) is kept
    // The session summary was still written, as one commit, and the repo is clean.
    expect((await git(sb.data, ['log', '-1', '--format=%s'])).trim()).toMatch(/^session/);
    await expectCleanRepo(sb.data);
    // The block state lives under .git, never in a commit.
    expect(JSON.parse(fs.readFileSync(blocksFile(), 'utf8'))).toEqual({ kernel_chars: expect.any(Number), checked_at: expect.any(Number), checked_sig: expect.any(String) });
    expect(await git(sb.data, ['ls-files'])).not.toContain('budget-blocks');
    for (let i = 0; i < 2; i++) {
      const again = await stop();
      expect(again.code).toBe(0);
      expect(again.stdout).toBe('');
    }
  });

  it('blocks again after the cooldown, and once per budget: a second budget over during the first one\'s cooldown still blocks once', async () => {
    await setBudgets({ kernel_chars: 100 });
    expect(block(await stop()).reason).toContain('/git-kb compact kernel');
    await setBudgets({ kernel_chars: 100, entry_chars: 300 });
    const second = block(await stop());
    expect(second.reason).toMatch(new RegExp(`entry_chars: ${bigId} is \\d+ of 300 characters \\(${bigId} "A long lesson"`));
    expect(second.reason).toContain(`Run: /git-kb compact ${bigId}`);
    expect(second.reason).not.toContain('compact kernel'); // the kernel's block is cooling down
    expect((await stop()).stdout).toBe('');
    // Past the cooldown (KB_BUDGET_COOLDOWN_MIN, here 0): both again, in one block.
    const third = block(await stop({}, { KB_BUDGET_COOLDOWN_MIN: '0' }));
    expect(third.reason).toContain('/git-kb compact kernel');
    expect(third.reason).toContain(`/git-kb compact ${bigId}`);
    // The state written an hour "ago" with a 30-minute cooldown: due again.
    fs.writeFileSync(blocksFile(), JSON.stringify({ kernel_chars: Date.now() - 3_600_000, entry_chars: Date.now() }));
    const fourth = block(await stop({}, { KB_BUDGET_COOLDOWN_MIN: '30' }));
    expect(fourth.reason).toContain('/git-kb compact kernel');
    expect(fourth.reason).not.toContain(bigId);
  });

  it('never asks again about an entry graded FLOOR until it grows past that size (issue 29)', async () => {
    const links = (n: number): string => Array.from({ length: n }, (_, i) => `- [note ${i}](https://example.com/notes/${i})`).join('\n');
    const index = await add(['--type', 'lesson_learned', '--title', 'Index of notes', '--', links(12)]);
    await setBudgets({ entry_chars: 300 });
    expect(block(await stop()).reason).toContain(`Run: /git-kb compact ${index}`);
    const head = (await git(sb.data, ['rev-parse', 'HEAD'])).trim();
    const check = await kb(sb, ['--data', sb.data, '--json', 'compact', 'check', index, '--baseline', head]);
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout).verdict).toBe('FLOOR');
    // Past the cooldown: the other entry still over its budget is named, the one at FLOOR is not.
    const again = block(await stop({}, { KB_BUDGET_COOLDOWN_MIN: '0' }));
    expect(again.reason).toContain(`/git-kb compact ${bigId}`);
    expect(again.reason).not.toContain(index);
    // It grows: asked again.
    const grown = await kb(sb, ['--data', sb.data, 'edit', index, '--body', links(14)]);
    expect(grown.code, grown.stderr).toBe(0);
    expect(block(await stop({}, { KB_BUDGET_COOLDOWN_MIN: '0' })).reason).toContain(`/git-kb compact ${index}`);
  });

  it('asks once for an entry over its budget; a rewrite that follows references/compact.md passes the grade and ends it (issue 29)', async () => {
    const tail = ', and the long story of how it was found, which a compaction may cut freely';
    const body = ['## CI', `- pnpm: always use --frozen-lockfile${tail}`, `- Research/theory: lockfiles drift when installs resolve anew${tail}`, `- a linkless bullet about caches${tail}`].join('\n');
    const id = await add(['--type', 'lesson_learned', '--title', 'CI lessons', '--', body]);
    await setBudgets({ entry_chars: 300 });
    const head = (await git(sb.data, ['rev-parse', 'HEAD'])).trim();
    expect(block(await stop()).reason).toContain(`Run: /git-kb compact ${id}`);
    const short = ['## CI', '- pnpm: use --frozen-lockfile in CI, every job', '- Research/theory: lockfiles drift when installs resolve anew', '- a linkless bullet about caches, kept warm between jobs'].join('\n');
    expect((await kb(sb, ['--data', sb.data, 'edit', id, '--body', short])).code).toBe(0);
    const check = await kb(sb, ['--data', sb.data, '--json', 'compact', 'check', id, '--baseline', head]);
    expect(check.code, check.stdout).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ verdict: 'PASS', defects: [] });
    const after = await stop({}, { KB_BUDGET_COOLDOWN_MIN: '0' });
    expect(after.stdout).not.toContain(id);
  });

  it('holds each entry to its type\'s budget: a long reference does not block, a lesson as long does', async () => {
    const ref = await add(['--type', 'factual_reference', '--title', 'Runbook', '--', 'Step by step through the failover. '.repeat(90)]);
    const lesson = await add(['--type', 'lesson_learned', '--title', 'Long lesson', '--', 'Step by step through the failover. '.repeat(90)]);
    const r = block(await stop());
    expect(r.reason).toContain(`/git-kb compact ${lesson}`);
    expect(r.reason).not.toContain(ref);
  });

  it('blocks over a host budget with the host target', async () => {
    const fact = await add(['--type', 'host_fact', '--host', 'db-1', '--title', 'Data directory', '--', 'PGDATA lives on the big disk. '.repeat(5)]);
    await setBudgets({ host_chars: 50 });
    const r = block(await stop());
    expect(r.reason).toContain(`host_chars: host:db-1 is 150 of 50 characters (${fact} "Data directory" (150))`);
    expect(r.reason).toContain('Run: /git-kb compact host:db-1');
  });

  it('never blocks when stop_hook_active is true, and then blocks on the next ordinary Stop', async () => {
    await setBudgets({ kernel_chars: 100 });
    for (const active of [true, 'true', 1]) {
      const r = await stop({ stop_hook_active: active });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
    }
    expect(fs.existsSync(blocksFile())).toBe(false);
    expect(block(await stop()).decision).toBe('block');
  });

  it('never blocks within budget, with a broken kb.json, with invalid budgets, with KB_BUDGET_BLOCK=0, or on bad stdin', async () => {
    const quiet = async (r: Promise<RunResult>): Promise<void> => {
      const x = await r;
      expect(x.code).toBe(0);
      expect(x.stdout).toBe('');
      expect(x.stderr).toBe('');
    };
    await quiet(stop());
    await setBudgets({ kernel_chars: 100 });
    await quiet(stop({}, { KB_BUDGET_BLOCK: '0' }));
    fs.writeFileSync(kbJsonFile(), '{"budgets": {"kernel_chars": 100}'); // not JSON
    await quiet(stop());
    fs.writeFileSync(kbJsonFile(), JSON.stringify({ version: 1, budgets: { kernel_chars: -5 } }));
    await quiet(stop());
    fs.writeFileSync(kbJsonFile(), JSON.stringify({ version: 1, budgets: 'small' }));
    await quiet(stop());
    await quiet(stop({}, {}, 'not json'));
    await quiet(stop({}, {}, ''));
    const state = fs.existsSync(blocksFile()) ? (JSON.parse(fs.readFileSync(blocksFile(), 'utf8')) as Record<string, unknown>) : {};
    expect(Object.keys(state).filter((k) => k.endsWith('_chars'))).toEqual([]);
  });

  it('does not look at the sizes again while the repo is unchanged (the check interval), and does after a commit', async () => {
    await quiet0(stop());
    // An uncommitted hand edit puts the kernel over its budget: neither kb.json nor the branch changed.
    const file = (await git(sb.data, ['ls-files', 'entries'])).split('\n').find((f) => f.includes(kernelId))!;
    fs.appendFileSync(path.join(sb.data, file), 'More words. '.repeat(600));
    await quiet0(stop());
    // Committed: the branch moved, so the next Stop looks and blocks.
    await git(sb.data, ['commit', '-qam', 'hand edit'], sb.env);
    expect(block(await stop()).reason).toContain('/git-kb compact kernel');
  });

  it('does not block when the block cannot be recorded (it would repeat every turn)', async () => {
    await setBudgets({ kernel_chars: 100 });
    const dir = path.dirname(blocksFile());
    fs.mkdirSync(dir, { recursive: true });
    fs.mkdirSync(blocksFile()); // a directory where the state file goes: the rename fails
    const r = await stop();
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
  });
});
