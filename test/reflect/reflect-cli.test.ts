/**
 * `git-kb reflect` with its real model child: `claude -p` (the pinned devDependency) answered by the stand-in model
 * API with scripted proposals, one of each case (good, already known, invented quote, secret, forbidden host, over
 * budget, a --help restatement, a new lesson), on a recorded transcript of a session on build-box.lan. Checked: each
 * proposal kept or dropped with its reason; one commit naming the session, read with the real git CLI; the same
 * session reflected again adds nothing; `--auto` makes no second model call; a transcript naming a forbidden host
 * gets no model call; the transcript's secret reaches no git object, debug log, dry-run output or model request.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, kb } from '../helpers/cli.js';
import { startModelApi, textsOf, type ModelApi } from '../helpers/model-api.js';
import { CLAUDE, makeClaudeSandbox, removeSandbox, type ClaudeSandbox } from '../e2e/claude-support.js';
import { expectedDecisions, FIXTURE, FIXTURE_SESSION, FIXTURE_TOKEN, HOSTS_YAML, isReflectRequest, PROPOSALS, structuredReply } from './support.js';

let api: ModelApi;
let sb: ClaudeSandbox;
let debugFile: string;
let knownId: string;
let env: NodeJS.ProcessEnv;
const outputs: string[] = [];

async function reflect(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await kb(sb, ['--data', sb.data, 'reflect', ...args], { env: { ...env, ...extraEnv } });
  outputs.push(r.stdout, r.stderr);
  return r;
}

const reflectRequests = (): number => api.requests.filter((r) => r.messages && isReflectRequest(r)).length;

beforeAll(async () => {
  api = await startModelApi((req) => (isReflectRequest(req) ? structuredReply(req, { proposals: PROPOSALS }) : 'OK.'));
  sb = makeClaudeSandbox(api, 'gkb-reflect-');
  debugFile = path.join(sb.root, 'debug.jsonl');
  env = sb.claudeEnv({ KB_REFLECT_CLAUDE: CLAUDE, KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debugFile });
  const run = async (args: string[]): Promise<string> => {
    const r = await kb(sb, ['--data', sb.data, ...args], { env });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  await run(['init']);
  fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), HOSTS_YAML);
  const kbJson = JSON.parse(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8'));
  fs.writeFileSync(path.join(sb.data, 'kb.json'), `${JSON.stringify({ ...kbJson, budgets: { host_chars: 600 } }, null, 2)}\n`);
  await git(sb.data, ['add', '-A'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', 'hosts and budgets'], sb.env);
  knownId = await run(['host', 'add', 'build-box', '--title', 'CI cache disk', 'The CI cache /var/cache/ci on build-box is its own 200G disk, /dev/sdb1.']);
  expect(knownId).toMatch(/^kb-/);
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await removeSandbox(sb);
});

describe('git-kb reflect on a recorded transcript', () => {
  it('--dry-run lists every proposal kept or dropped with its reason, and writes nothing', async () => {
    const head = await git(sb.data, ['rev-parse', 'HEAD'], sb.env);
    const r = await reflect(['--dry-run', '--transcript', FIXTURE, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('dry-run');
    expect(out.sessionId).toBe(FIXTURE_SESSION);
    const got = out.proposals.map((p: { decision: string; reason: string }) => [p.decision, p.reason]);
    expectedDecisions(knownId).forEach(([decision, reason], i) => {
      expect(got[i][0], `proposal ${i + 1}: ${got[i][1]}`).toBe(decision);
      expect(got[i][1].startsWith(reason), `proposal ${i + 1}: ${got[i][1]}`).toBe(true);
    });
    // The forbidden proposal is withheld whole; the secret one shown redacted; the over-budget host asked to compact.
    expect(out.proposals[4]).toMatchObject({ title: '(withheld)', text: '(withheld)' });
    expect(out.proposals[3].text).toContain('[REDACTED:');
    expect(out.compact).toEqual(['/git-kb compact host:build-box']);
    expect(await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).toBe(head);

    // The human form says the same, one reason a proposal.
    const text = await reflect(['--dry-run', '--transcript', FIXTURE]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('dry run: nothing written');
    expect(text.stdout.match(/^(kept|dropped) /gm)).toHaveLength(PROPOSALS.length);
    expect(text.stdout).toContain('why: quote not in the transcript');
    expect(text.stdout).not.toContain('vault.prod');

    // The child was the real CLI with the reflection prompt, and the transcript's secret never reached the model.
    const asked = api.requests.filter((q) => q.messages && isReflectRequest(q));
    expect(asked.length).toBeGreaterThan(0);
    expect(textsOf(asked[0]!).join('\n')).toContain("0 3 * * * /opt/ci/cleanup.sh --keep-days 30");
    for (const q of asked) expect(q.raw).not.toContain(FIXTURE_TOKEN);
  }, 90_000);

  it('commits the kept proposals once, in one commit naming the session; the same session again adds nothing', async () => {
    const before = Number((await git(sb.data, ['rev-list', '--count', 'HEAD'], sb.env)).trim());
    const r = await reflect(['--transcript', FIXTURE, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.status).toBe('reflected');
    expect(out.kept).toEqual({ host_facts: 1, lessons: 1, recurrences: 0 });
    expect(Number((await git(sb.data, ['rev-list', '--count', 'HEAD'], sb.env)).trim())).toBe(before + 1);
    const message = await git(sb.data, ['log', '-1', '--format=%B'], sb.env);
    expect(message.split('\n')[0]).toBe(`reflect ${FIXTURE_SESSION}: 1 host fact, 1 lesson`);
    const files = (await git(sb.data, ['show', '--name-only', '--format=', 'HEAD'], sb.env)).trim().split('\n').sort();
    expect(files).toHaveLength(2);
    expect(files.some((f) => f.startsWith('hosts/build-box/'))).toBe(true);
    expect(files.some((f) => f.startsWith('entries/'))).toBe(true);
    const fact = fs.readFileSync(path.join(sb.data, out.proposals[0].path), 'utf8');
    expect(fact).toContain("root's crontab");
    expect(fact).toContain(`From session ${FIXTURE_SESSION}`);
    expect(fs.readFileSync(path.join(sb.data, out.proposals[7].path), 'utf8')).toContain('pattern_key: cron-root-vs-user');

    // Again, on demand: the model is asked, but every proposal is known now.
    const again = await reflect(['--transcript', FIXTURE, '--json']);
    expect(again.code, again.stderr).toBe(0);
    const second = JSON.parse(again.stdout);
    expect(second.kept).toEqual({ host_facts: 0, lessons: 0, recurrences: 0 });
    expect(second.proposals[0].reason).toMatch(/^known: kb-/);
    expect(second.proposals[7].reason).toMatch(/^known: kb-\S+ \(already recorded from this session\)$/);
    expect(second.commit).toBeUndefined();
    expect(Number((await git(sb.data, ['rev-list', '--count', 'HEAD'], sb.env)).trim())).toBe(before + 1);

    // And as the hooks' worker: the state says done, so no model call at all.
    const calls = reflectRequests();
    const auto = await reflect(['--session', FIXTURE_SESSION, '--transcript', FIXTURE, '--auto', '--json']);
    expect(auto.code, auto.stderr).toBe(0);
    expect(JSON.parse(auto.stdout)).toMatchObject({ status: 'skipped', reason: 'already reflected' });
    expect(reflectRequests()).toBe(calls);
  }, 120_000);

  it('records a lesson another session already taught as a recurrence of its entry, in one commit naming that session', async () => {
    const other = '3a0c5e1a-2b3c-4d5e-8f90-1a2b3c4d5e72';
    const t = path.join(sb.root, 'other.jsonl');
    fs.writeFileSync(t, fs.readFileSync(FIXTURE, 'utf8').replaceAll(FIXTURE_SESSION, other));
    const r = await reflect(['--transcript', t, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.kept).toEqual({ host_facts: 0, lessons: 0, recurrences: 1 });
    expect(out.proposals[0].reason).toMatch(/^known: kb-/);
    expect(out.proposals[7]).toMatchObject({ decision: 'kept', reason: `recurrence of ${out.proposals[7].id}` });
    expect((await git(sb.data, ['log', '-1', '--format=%s'], sb.env)).trim()).toBe(`reflect ${other}: 0 host facts, 0 lessons, 1 recurrence`);
    const lesson = fs.readFileSync(path.join(sb.data, out.proposals[7].path), 'utf8');
    expect(lesson).toContain('recurrences: 2');
    expect(lesson).toContain(`From session ${other}`);
  }, 60_000);

  it('gives a transcript that names a forbidden host no reflection and no model call', async () => {
    const forbidden = path.join(sb.root, 'forbidden.jsonl');
    const lines = fs.readFileSync(FIXTURE, 'utf8').replace('Find out why', 'Compare with vault.prod.example.com and find out why').replaceAll(FIXTURE_SESSION, '9e0c5e1a-2b3c-4d5e-8f90-1a2b3c4d5e70');
    fs.writeFileSync(forbidden, lines);
    const calls = reflectRequests();
    const r = await reflect(['--transcript', forbidden, '--json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'forbidden', proposals: [] });
    expect(r.stdout + r.stderr).not.toContain('vault.prod');
    expect(reflectRequests()).toBe(calls);
  }, 60_000);

  it('skips a session that did no real work, with no model call', async () => {
    const idle = path.join(sb.root, 'idle.jsonl');
    const first = fs.readFileSync(FIXTURE, 'utf8').split('\n').slice(0, 2).join('\n').replaceAll(FIXTURE_SESSION, '5e0c5e1a-2b3c-4d5e-8f90-1a2b3c4d5e71');
    fs.writeFileSync(idle, `${first}\n`);
    const calls = reflectRequests();
    const r = await reflect(['--transcript', idle, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).reason).toMatch(/^no real work/);
    expect(reflectRequests()).toBe(calls);
  }, 60_000);

  it('takes a session as session show does: a unique prefix of 8 or more characters found under the projects folder', async () => {
    const sessionId = '7e0c5e1a-2b3c-4d5e-8f90-1a2b3c4d5e72';
    const projects = path.join(String(env.CLAUDE_CONFIG_DIR ?? path.join(String(env.HOME), '.claude')), 'projects', '-work-demo');
    fs.mkdirSync(projects, { recursive: true });
    const first = fs.readFileSync(FIXTURE, 'utf8').split('\n').slice(0, 2).join('\n').replaceAll(FIXTURE_SESSION, sessionId);
    fs.writeFileSync(path.join(projects, `${sessionId}.jsonl`), `${first}\n`);
    const calls = reflectRequests();
    const r = await reflect(['--session', sessionId.slice(0, 8), '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ sessionId, reason: expect.stringMatching(/^no real work/) });
    expect(reflectRequests()).toBe(calls);
    const short = await reflect(['--session', sessionId.slice(0, 5), '--json']);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 8 characters');
    const notSummary = await reflect(['--session', 'kb-0000000000', '--json']);
    expect(notSummary.code).toBe(3);
    expect(notSummary.stderr).toContain('not a session summary');
  }, 60_000);

  it('lets the secret reach no git object, debug log or output', async () => {
    const objects = await git(sb.data, ['cat-file', '--batch-all-objects', '--batch'], sb.env);
    expect(objects).toContain("root's crontab");
    expect(objects).not.toContain(FIXTURE_TOKEN);
    const log = fs.readFileSync(debugFile, 'utf8');
    expect(log).toContain('"event":"reflect"');
    expect(log).toContain('quote not in the transcript');
    expect(log).not.toContain(FIXTURE_TOKEN);
    expect(log).not.toContain('vault.prod');
    for (const o of outputs) expect(o).not.toContain(FIXTURE_TOKEN);
    // Nor any derived state under .git/git-kb (indexes, caches, state).
    const derived = path.join(sb.data, '.git', 'git-kb');
    for (const f of fs.readdirSync(derived, { recursive: true }).map(String)) {
      const p = path.join(derived, f);
      if (fs.statSync(p).isFile()) expect(fs.readFileSync(p).includes(FIXTURE_TOKEN), p).toBe(false);
    }
  });
});
