/**
 * The prose gate of the installed plugin, with the real Claude Code CLI: a scripted `Write` of README.md and a
 * scripted `git commit -m` that use a word the kernel's `rules:` ban are denied, the reason reaches the model as
 * the next request's tool_result, and the clean retry goes through. Then layer 2: the gate runs its judge child
 * with the real CLI (answered by the stand-in), which sends a small request with no tools and leaves no session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../helpers/cli.js';
import { lastToolResults, systemText, textsOf, type ModelRequest } from '../helpers/model-api.js';
import { BANNED, CLAUDE, converse, installedRig, isJudgeRequest, prompt, verdictReply, type Rig } from './claude-support.js';

let rig: Rig;
beforeAll(async () => {
  rig = await installedRig('gkb-cc-gate-');
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

const DIRTY = 'We leverage the statistics of the planner to choose a join order for every query we run.';
const CLEAN = 'The planner uses its table statistics to choose a join order for every query we run.';

/** The tool_result of the main request `i` (1-based: the reply to the i-th tool call). */
function resultOf(i: number): { is_error?: boolean; text: string } {
  const main = rig.api.mainRequests().filter((r) => !isJudgeRequest(r));
  const [result] = lastToolResults(main[i]!);
  expect(result, `no tool_result in main request ${i}`).toBeDefined();
  return result!;
}

describe('layer 1: the kernel rules', () => {
  it('denies a Write of README.md with a banned word, tells the model why, and lets the clean retry write the file', async () => {
    const { api, sb } = rig;
    const file = path.join(sb.project, 'README.md');
    converse(api, [
      { tool: 'Write', input: { file_path: file, content: `${DIRTY}\n` } },
      { tool: 'Write', input: { file_path: file, content: `${CLEAN}\n` } },
      'Written.',
    ]);
    api.reset();
    const r = await prompt(sb, 'Write a README for the planner.', ['--permission-mode', 'acceptEdits']);
    expect(r.json.result).toBe('Written.');
    const denied = resultOf(1);
    expect(denied.is_error).toBe(true);
    expect(denied.text).toContain('PreToolUse:Write');
    expect(denied.text).toContain(BANNED.message);
    expect(denied.text).toContain('"leverage"');
    expect(resultOf(2).is_error).toBeFalsy();
    expect(fs.readFileSync(file, 'utf8')).toBe(`${CLEAN}\n`);
  }, 60_000);

  it('denies a git commit -m with a banned word the same way, and the clean retry commits', async () => {
    const { api, sb } = rig;
    const repo = path.join(sb.root, 'repo');
    fs.mkdirSync(repo);
    await git(repo, ['init', '-q', '-b', 'main'], sb.env);
    fs.writeFileSync(path.join(repo, 'planner.txt'), 'join order\n');
    await git(repo, ['add', '-A'], sb.env);
    converse(api, [
      { tool: 'Bash', input: { command: `git commit -q -m "${DIRTY}"`, description: 'Commit' } },
      { tool: 'Bash', input: { command: `git commit -q -m "${CLEAN}"`, description: 'Commit' } },
      'Committed.',
    ]);
    api.reset();
    const r = await prompt(sb, 'Commit the planner change.', ['--allowedTools', 'Bash(git commit *)'], { cwd: repo });
    expect(r.json.result).toBe('Committed.');
    const denied = resultOf(1);
    expect(denied.is_error).toBe(true);
    expect(denied.text).toContain('PreToolUse:Bash');
    expect(denied.text).toContain(BANNED.message);
    expect(resultOf(2).is_error).toBeFalsy();
    expect((await git(repo, ['log', '--format=%s'], sb.env)).trim()).toBe(CLEAN);
  }, 60_000);
});

describe('layer 2: the model judge', () => {
  it('runs the real CLI as its child: no tools, a small request, a structured verdict, no saved session', async () => {
    const { api, sb } = rig;
    // The real `claude` on PATH, as a user has it.
    const bin = path.join(sb.root, 'claude-bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.symlinkSync(CLAUDE, path.join(bin, 'claude'));
    // NOTE: reflection off: with `claude` on PATH the session's end would start a reflection child, which would
    // still be asking the stand-in after this suite stops it (spec/reflect.md; tested in claude-reflect.test.ts).
    const env = { PATH: `${bin}${path.delimiter}${sb.claudeEnv().PATH}`, KB_REFLECT: '0' };
    const file = path.join(sb.project, 'NOTES.md');
    const filler = 'Our team values synergy between the storage layer and the planner in every release.';
    const judged: ModelRequest[] = [];
    converse(
      api,
      [{ tool: 'Write', input: { file_path: file, content: `${filler}\n` } }, { tool: 'Write', input: { file_path: file, content: `${CLEAN}\n` } }, 'Written.'],
      (req) => {
        judged.push(req);
        const fails = textsOf(req).some((t) => t.includes('synergy'));
        return verdictReply(req, fails ? { pass: false, violations: [{ rule: 'No corporate filler', quote: 'synergy', fix: 'say what the layers exchange' }] } : { pass: true });
      },
    );
    api.reset();
    const r = await prompt(sb, 'Write notes on the planner.', ['--permission-mode', 'acceptEdits'], { env });
    expect(r.json.result).toBe('Written.');
    const denied = resultOf(1);
    expect(denied.is_error).toBe(true);
    expect(denied.text).toContain('model judge (claude -p, sonnet)');
    expect(denied.text).toContain('"synergy" breaks No corporate filler; suggested: say what the layers exchange');
    expect(resultOf(2).is_error).toBeFalsy();
    expect(fs.readFileSync(file, 'utf8')).toBe(`${CLEAN}\n`);

    // One child per write, each with the judge's own system prompt, the rules and the prose, and no tools but the
    // verdict's: the flags of src/gate/judge.ts work with this CLI.
    expect(judged).toHaveLength(2);
    for (const req of judged) {
      expect(systemText(req)).toContain('You are a copy editor');
      expect(systemText(req)).not.toContain('You are an agent working with the user');
      expect(((req.body.tools ?? []) as Array<{ name: string }>).map((t) => t.name).filter((n) => n !== 'DeferredToolPlaceholder')).toEqual(['StructuredOutput']);
      expect(textsOf(req).join('\n')).toContain('Never write "leverage"');
      expect(Buffer.byteLength(req.raw)).toBeLessThan(12_000);
    }
    // The main session's request is many times bigger: the child really dropped the default prompt and tools.
    expect(systemText(api.mainRequests().find((q) => !isJudgeRequest(q))!)).toContain('You are an agent working with the user');
    expect(Buffer.byteLength(api.mainRequests().find((q) => !isJudgeRequest(q))!.raw)).toBeGreaterThan(30_000);

    // No transcript of the child under the throwaway HOME (the main session's own is there).
    const projects = path.join(sb.home, '.claude', 'projects');
    const transcripts = fs.readdirSync(projects, { recursive: true }).map(String).filter((f) => f.endsWith('.jsonl'));
    expect(transcripts.some((f) => fs.readFileSync(path.join(projects, f), 'utf8').includes(r.json.session_id!))).toBe(true);
    for (const f of transcripts) expect(fs.readFileSync(path.join(projects, f), 'utf8'), f).not.toContain('You are a copy editor');
  }, 90_000);
});
