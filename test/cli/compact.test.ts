/**
 * `git-kb compact check TARGET --baseline REV` grades a rewrite against the target's text at REV (exit 0 PASS or
 * FLOOR, 1 DEFECTS, 2 cannot grade), appends a ledger row per round and puts the baseline back after the second
 * failed round; `git-kb compact rollback` restores the target byte for byte as a new commit.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitCount, headOf, initRepo, kbd, kbj, subjects, type Added } from './support.js';

let sb: Sandbox;
let e: Added;
let k1: Added;
let k2: Added;
const long = (s: string): string => `${s} and a long tail of words that a shorter rewrite can drop without losing anything at all`;
const BODY = ['## Build', long('- [[Build Cache]] caches: keep them warm'), long('- **never** skip the lint step'), '## Deploy', long('- a linkless bullet about deploys')].join('\n');
const trim = (s: string): string => `${s} and a long tail of words`;
const SHORT = ['## Build', trim('- [[Build Cache]] caches: keep them warm'), trim('- **never** skip the lint'), '## Deploy', trim('- a linkless bullet')].join('\n');

function setBody(id: Added, body: string): Promise<unknown> {
  return kbj(sb, ['edit', id.id, '--body', body]);
}

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  e = await addEntry(sb, { type: 'pattern_convention', title: 'Build notes', body: BODY });
  k1 = await addEntry(sb, { type: 'pattern_convention', title: 'Kernel one', body: long('- [[Build Cache]] rule one'), extra: ['--kernel'] });
  k2 = await addEntry(sb, { type: 'pattern_convention', title: 'Kernel two', body: long('- rule two'), extra: ['--kernel'] });
});
afterAll(() => sb.cleanup());

describe('compact check', () => {
  it('passes a compliant rewrite (exit 0) and records the round in the ledger', async () => {
    await setBody(e, SHORT);
    const r = await kbd(sb, ['compact', 'check', e.id, '--baseline', e.commit]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^PASS: /);
    const ledger = fs.readFileSync(path.join(sb.data, '.git', 'git-kb', 'compact-ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(ledger).toEqual([expect.objectContaining({ directive: 'compact-v1', target: e.id, baseline: e.commit, baseline_chars: BODY.length, current_chars: SHORT.length, verdict: 'PASS', round: 1 })]);
  });

  it('reports defects with pointers (exit 1), and after the second failed round restores the baseline', async () => {
    // A bullet in the place of another that keeps neither its first word nor most of its words: lost and invented.
    const bad = SHORT.replace(trim('- a linkless bullet'), '- rollbacks wait for approval');
    expect(bad).not.toBe(SHORT);
    await setBody(e, bad);
    const one = await kbd(sb, ['--json', 'compact', 'check', e.id, '--baseline', e.commit]);
    expect(one.code).toBe(1);
    const first = JSON.parse(one.stdout);
    expect(first).toMatchObject({ verdict: 'DEFECTS', round: 2, failed_rounds: 1 });
    expect(first.rolled_back).toBeUndefined();
    expect(first.defects.map((d: { kind: string }) => d.kind).sort()).toEqual(['bullet-invented', 'bullet-lost']);
    expect(first.defects.find((d: { kind: string }) => d.kind === 'bullet-lost')).toMatchObject({ in: 'baseline', line: 5 });
    // The second failed round of this target and baseline puts the baseline back, as a new commit.
    const two = await kbd(sb, ['compact', 'check', e.id, '--baseline', e.commit]);
    expect(two.code).toBe(1);
    expect(two.stdout).toMatch(/^DEFECTS: /);
    expect(two.stdout).toContain('- bullet-lost: bullet "a linkless bullet" under "## Deploy" is missing');
    expect(two.stdout).toContain(`rolled back ${e.id} to ${e.commit.slice(0, 12)}`);
    expect((await subjects(sb))[0]).toBe(`compact rollback ${e.id} to ${e.commit.slice(0, 12)}`);
    const original = execFileSync('git', ['show', `${e.commit}:${e.path}`], { cwd: sb.data, env: sb.env });
    expect(fs.readFileSync(path.join(sb.data, e.path))).toEqual(original);
    const rows = fs.readFileSync(path.join(sb.data, '.git', 'git-kb', 'compact-ledger.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.round, r.verdict, Boolean(r.rolled_back)])).toEqual([[1, 'PASS', false], [2, 'DEFECTS', false], [3, 'DEFECTS', true]]);
  });

  it('grades the kernel as its entries joined under their headers', async () => {
    const base = await headOf(sb);
    await setBody(k2, '- rule two');
    const r = await kbj(sb, ['compact', 'check', 'kernel', '--baseline', base]);
    expect(r.verdict).toBe('PASS');
    await setBody(k1, 'gone');
    const bad = await kbd(sb, ['--json', 'compact', 'check', 'kernel', '--baseline', base]);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout).defects.map((d: { kind: string }) => d.kind)).toEqual(expect.arrayContaining(['link-lost', 'bullet-lost']));
    const rb = await kbj(sb, ['compact', 'rollback', 'kernel', '--baseline', base]);
    expect(rb.changed).toBe(true);
    expect(rb.paths.sort()).toEqual([k1.path, k2.path].sort());
    const n = await commitCount(sb);
    expect((await kbj(sb, ['compact', 'rollback', 'kernel', '--baseline', base])).changed).toBe(false);
    expect(await commitCount(sb)).toBe(n);
  });

  it("grades a host's facts together, and says FLOOR when nothing legal is left to cut", async () => {
    const base = await headOf(sb);
    const a = await kbj(sb, ['host', 'add', 'build-box', '--title', 'Disk layout', '--', '- [[Disks]]']);
    await kbj(sb, ['host', 'add', 'build-box', '--title', 'Sudo', '--', '- sudo']);
    const after = await headOf(sb);
    // At the new commit, both facts are at their minimum already (links and first words only).
    const r = await kbd(sb, ['--json', 'compact', 'check', 'host:build-box', '--baseline', after]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ verdict: 'FLOOR', reason: expect.stringContaining('irreducible minimum') });
    // Before the facts existed there is no baseline text: nothing to grade.
    const none = await kbd(sb, ['compact', 'check', 'host:build-box', '--baseline', base]);
    expect(none.code).toBe(2);
    expect(none.stdout).toMatch(/^CANNOT_GRADE: /);
    expect(a.path).toMatch(/^hosts\/build-box\//);
  });

  it('never reads stdin: a check with a pipe that never ends still answers (the janitor seed\'s finding 6)', async () => {
    const child = spawn(process.execPath, [CLI, '--data', sb.data, '--json', 'compact', 'check', e.id, '--baseline', e.commit], { env: sb.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => {
        child.kill();
        resolve(null);
      }, 20_000);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    child.stdin.destroy();
    expect(code).not.toBeNull();
    expect(JSON.parse(out).verdict).toMatch(/^(PASS|DEFECTS|FLOOR)$/);
  });

  it('exits 2 when it cannot grade, 3 for an unknown revision or target', async () => {
    const bad = await kbd(sb, ['--json', 'compact', 'check', e.id, '--baseline', e.commit, '--target', '10', '--floor', '20']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).verdict).toBe('CANNOT_GRADE');
    expect((await kbd(sb, ['compact', 'check', e.id, '--baseline', 'deadbeef'])).code).toBe(3);
    expect((await kbd(sb, ['compact', 'check', 'kb-nothere', '--baseline', e.commit])).code).toBe(3);
  });
});
