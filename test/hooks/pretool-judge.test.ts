/**
 * The prose gate, layer 2: the exact hooks.json command as a process with a stand-in `claude` first on PATH
 * that passes, fails with violations, prints garbage, reports an error, hangs past the timeout, crashes, or
 * runs the gate again. The right allow or deny every time; the hang costs no more than the timeout and leaves
 * no process behind; an identical retried call is answered from the verdict cache.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { kb, makeSandbox, processRunning as running, type Sandbox } from '../helpers/cli.js';
import { addKernel, parseDeny, pathWith, payload, runGate, STUBS, stubBin, stubCalls } from '../gate/support.js';

let sb: Sandbox;
let project: string;
let kernel: { id: string; path: string };
let log: string;
let n = 0;

const BODY = 'House style. Avoid corporate filler such as synergy or alignment; say what the thing does.';

beforeAll(async () => {
  sb = makeSandbox('gkb-judge-');
  kernel = await addKernel(sb, { title: 'House style', body: BODY, rules: [{ pattern: '\\bleverage\\b', message: 'Say "use".' }] });
  project = path.join(sb.root, 'project');
  fs.mkdirSync(project, { recursive: true });
});
afterAll(() => sb.cleanup());
beforeEach(() => {
  log = path.join(sb.root, `stub-${++n}.jsonl`);
});

/** A README write whose prose is unique to this call (so earlier verdicts are not reused by accident). */
function readme(words = `Our team values synergy between the storage layer and the planner (case ${n}).`): Record<string, unknown> {
  return payload('Write', { file_path: path.join(project, 'README.md'), content: `${words}\n` }, project);
}

function withStub(stub: string | undefined, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: pathWith(stub ? stubBin(sb, stub) : undefined, sb), STUB_LOG: log, ...extra };
}

describe('the judge is asked', () => {
  it('with hooks disabled, KB_PROSE_LINT=0 in its env, the model from KB_PROSE_LINT_MODEL, and the prose and rules on stdin', async () => {
    const r = await runGate(sb, readme(), withStub('pass.mjs', { KB_PROSE_LINT_MODEL: 'haiku' }));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const calls = stubCalls(log);
    expect(calls).toHaveLength(1);
    const call = calls[0]!;
    expect(call.KB_PROSE_LINT).toBe('0');
    expect(call.argv.slice(0, 7)).toEqual(['-p', '--model', 'haiku', '--output-format', 'json', '--settings', '{"disableAllHooks":true}']);
    // No tools, no MCP servers, no saved session, its own system prompt, and a schema for the verdict.
    expect(call.argv.slice(7, 12)).toEqual(['--tools', '', '--strict-mcp-config', '--no-session-persistence', '--system-prompt']);
    expect(call.argv[12]).toMatch(/^You are a copy editor/);
    expect(call.argv[13]).toBe('--json-schema');
    expect(JSON.parse(call.argv[14])).toMatchObject({ type: 'object', required: ['pass'], properties: { pass: { type: 'boolean' } } });
    expect(call.argv).toHaveLength(15);
    expect(call.stdin).toContain(`### ${kernel.id}: House style\n${BODY}`);
    expect(call.stdin).toContain('Patterns already enforced elsewhere: Say "use".');
    expect(call.stdin).toContain('[piece 1: README.md, from line 1]\nOur team values synergy');
    expect(call.stdin).toMatch(/"pass": true/);
  });

  it('with the default model, and only the comments of a source file', async () => {
    const code = [
      'const synergyFactor = computeAlignment("synergy everywhere in this string literal");',
      '// Combines the storage synergy score with the planner alignment score.',
      'export { synergyFactor };',
    ].join('\n');
    const r = await runGate(sb, payload('Write', { file_path: path.join(project, 'src/score.ts'), content: code }, project), withStub('pass.mjs'));
    expect(r.stdout).toBe('');
    const call = stubCalls(log)[0]!;
    expect(call.argv.slice(0, 3)).toEqual(['-p', '--model', 'sonnet']);
    expect(call.stdin).toContain('[piece 1: comment in src/score.ts:2, from line 2]\nCombines the storage synergy score with the planner alignment score.');
    expect(call.stdin).not.toContain('computeAlignment');
    expect(call.stdin).not.toContain('string literal');
  });

  it('with a gh pr body, and KB_PROSE_LINT_CLAUDE naming the executable directly', async () => {
    const cmd = `gh pr create --title "Planner" --body "This change improves synergy between the planner and storage, case ${n}."`;
    const r = await runGate(sb, payload('Bash', { command: cmd }, project), { PATH: pathWith(undefined, sb), STUB_LOG: log, KB_PROSE_LINT_CLAUDE: path.join(STUBS, 'pass.mjs') });
    expect(r.stdout).toBe('');
    const calls = stubCalls(log);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.stdin).toContain('[piece 1: gh pr create --body, from line 1]\nThis change improves synergy');
  });

  it('not when layer 1 already denies, when KB_PROSE_LINT=rules, or when the prose is too short', async () => {
    let r = await runGate(sb, readme(`We leverage synergy in the planner (case ${n}).`), withStub('pass.mjs'));
    expect(parseDeny(r).hookSpecificOutput.permissionDecisionReason).toContain('"leverage"');
    r = await runGate(sb, readme(), withStub('pass.mjs', { KB_PROSE_LINT: 'rules' }));
    expect(r.stdout).toBe('');
    r = await runGate(sb, payload('Bash', { command: 'git commit -m "fix typo"' }, project), withStub('pass.mjs'));
    expect(r.stdout).toBe('');
    expect(stubCalls(log)).toHaveLength(0);
  });
});

describe('verdicts', () => {
  it('a failing verdict denies with the judge\'s rule, the phrase and where it is; invented quotes are dropped', async () => {
    const r = await runGate(sb, readme(`Intro line.\nOur team values synergy between the storage layer and the planner (case ${n}).`), withStub('fail.mjs'));
    expect(r.code).toBe(0);
    const reason = parseDeny(r).hookSpecificOutput.permissionDecisionReason;
    expect(reason).toContain('model judge (claude -p, sonnet)');
    expect(reason).toContain('- README.md:2: "synergy" breaks No corporate filler; suggested: say what the thing does');
    expect(reason).not.toContain('words that appear nowhere');
  });

  it('a claude too old for the newer flags is asked again with the four every print-mode claude takes', async () => {
    const r = await runGate(sb, readme(), withStub('old-cli.mjs'));
    expect(parseDeny(r).hookSpecificOutput.permissionDecisionReason).toContain('"synergy" breaks No corporate filler');
    const calls = stubCalls(log);
    expect(calls.map((c) => c.refused)).toEqual(['--tools', null]);
    expect(calls[1]!.argv).toEqual(['-p', '--model', 'sonnet', '--output-format', 'json', '--settings', '{"disableAllHooks":true}']);
    expect(calls[1]!.stdin).toBe(calls[0]!.stdin);
  });

  it('a verdict quoting a secret from the prose denies but is not cached: no secret lands in the verdict file', async () => {
    const token = `ghp_${'Zx9Qw2Er4Ty6Ui8Op0As1Df3Gh5Jk7Lz9Xc2Vb'}`;
    const r = await runGate(sb, readme(`Configure the deploy with the token ${token} before you run it (case ${n}).`), withStub('fail.mjs', { STUB_QUOTE: token }));
    expect(r.code).toBe(0);
    expect(parseDeny(r).hookSpecificOutput.permissionDecisionReason).toContain('README.md:1:');
    const cache = path.join(sb.data, '.git', 'git-kb', 'gate-verdicts.json');
    if (fs.existsSync(cache)) expect(fs.readFileSync(cache, 'utf8')).not.toContain(token);
  });

  it('a failing verdict that quotes nothing found in the prose allows', async () => {
    const r = await runGate(sb, readme(), withStub('fail.mjs', { STUB_QUOTE: 'a phrase the author never wrote' }));
    expect(r.stdout).toBe('');
    expect(stubCalls(log)).toHaveLength(1);
  });

  it.each([
    ['garbage.sh', 'prose instead of JSON'],
    ['error-envelope.mjs', 'an error envelope'],
    ['crash.sh', 'a crash'],
  ])('%s (%s) allows silently', async (stub) => {
    const r = await runGate(sb, readme(), withStub(stub));
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    expect(stubCalls(log)).toHaveLength(1);
  });

  it('no claude anywhere, or one that cannot run, allows silently', async () => {
    let r = await runGate(sb, readme(), withStub(undefined));
    expect(r.stdout).toBe('');
    r = await runGate(sb, readme(), withStub(undefined, { KB_PROSE_LINT_CLAUDE: path.join(sb.root, 'missing', 'claude') }));
    expect(r.stdout).toBe('');
    const noexec = path.join(sb.root, 'noexec-claude');
    fs.writeFileSync(noexec, '#!/bin/sh\necho \'{"pass": false, "violations": [{"quote": "synergy"}]}\'\n', { mode: 0o644 });
    r = await runGate(sb, readme(), withStub(undefined, { KB_PROSE_LINT_CLAUDE: noexec }));
    expect(r.stdout).toBe('');
  });

  it('a judge that hangs costs no more than the timeout and leaves no process behind', async () => {
    const pids = path.join(sb.root, `pids-${n}`);
    const started = Date.now();
    const r = await runGate(sb, readme(), withStub('hang.sh', { KB_PROSE_LINT_TIMEOUT_MS: '1500', STUB_PIDS: pids }));
    const ms = Date.now() - started;
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(ms).toBeGreaterThanOrEqual(1_500); // it waited for the judge, up to its timeout, and then went on
    const left = fs.readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(left).toHaveLength(2);
    // Killed by the gate; gone once the kernel has delivered the signal: waited for (at most 10 s), not slept on.
    for (let i = 0; i < 200 && left.some(running); i++) await new Promise((res) => setTimeout(res, 50));
    for (const pid of left) expect(running(pid), `pid ${pid} still running`).toBe(false);
  });

  it('a judge that runs the gate again finds it off, so it cannot recurse', async () => {
    const r = await runGate(sb, readme(), withStub('recurse.mjs'));
    expect(r.stdout).toBe('');
    const calls = stubCalls(log);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.nested).toEqual({ status: 0, stdout: '' });
    // Without KB_PROSE_LINT=0 the same nested payload is denied by layer 1: the stand-in tested something real.
    const nested = await runGate(sb, payload('Write', { file_path: '/tmp/nested/README.md', content: 'We leverage synergy across every team in the company to move fast.\n' }, '/tmp/nested'), withStub(undefined));
    parseDeny(nested);
  });
});

describe('the verdict cache', () => {
  it('answers an identical retried call without a second model call, for a deny and for a pass', async () => {
    const call = readme();
    const first = await runGate(sb, call, withStub('fail.mjs'));
    const second = await runGate(sb, call, withStub('fail.mjs'));
    expect(second.stdout).toBe(first.stdout);
    parseDeny(second);
    expect(stubCalls(log)).toHaveLength(1);

    const fine = readme(`The planner reads statistics from storage to pick a join order (case ${n}).`);
    await runGate(sb, fine, withStub('pass.mjs'));
    const again = await runGate(sb, fine, withStub('pass.mjs'));
    expect(again.stdout).toBe('');
    expect(stubCalls(log)).toHaveLength(2);
  });

  it('asks again when the prose, the model or the kernel changes, and after an error', async () => {
    const call = readme();
    await runGate(sb, call, withStub('pass.mjs'));
    await runGate(sb, readme(`A different sentence about storage and the planner (case ${n}).`), withStub('pass.mjs'));
    await runGate(sb, call, withStub('pass.mjs', { KB_PROSE_LINT_MODEL: 'opus' }));
    expect(stubCalls(log)).toHaveLength(3);
    const edit = await kb(sb, ['--data', sb.data, 'edit', kernel.id, '--append', 'Also: no exclamation marks.']);
    expect(edit.code).toBe(0);
    await runGate(sb, call, withStub('pass.mjs'));
    expect(stubCalls(log)).toHaveLength(4);
    const odd = readme(`Words the judge cannot parse an answer about, case ${n}.`);
    await runGate(sb, odd, withStub('garbage.sh'));
    await runGate(sb, odd, withStub('garbage.sh'));
    expect(stubCalls(log)).toHaveLength(6);
  });
});
