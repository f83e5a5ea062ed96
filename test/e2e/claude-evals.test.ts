/**
 * The self-test (spec/memory.md, "Self-test"): the eval suite in evals/ run for real by `claude plugin eval` (the
 * pinned Claude Code 2.1.328) against the plugin installed from a marketplace, offline, with the stand-in model
 * API playing the agent. Each case's scaffold builds its scratch data repo (--scaffold), the plugin's hooks and
 * MCP server run as they do for a user (--mocks off), and the stand-in does what a fresh agent following
 * SKILL.md would do. The case.yaml graders must pass in the with-plugin arm, the no-plugin baseline arm must
 * score lower, and evals/verify.mjs (the real git CLI over each kept scratch repo, and git-kb's own compaction
 * grader) must pass on every with-plugin run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import type { ModelRequest, Reply } from '../helpers/model-api.js';
import { claude, contextsOf, installedRig, type Rig } from './claude-support.js';

const MCP = 'mcp__plugin_git-kb_git-kb__';
const COMPACTED = [
  '# House style',
  '',
  '- **Plain words**: write use, not leverage, and say what a thing does; readers skim.',
  '- **Short sentences**: one idea a sentence.',
  '- **Links**: point to the source, see [[kb-evaldec001]] for how decisions are kept.',
  '- **Numbers**: give the unit and the date of a measurement, so later numbers compare.',
].join('\n');

const bash = (command: string): Reply => ({ tool: 'Bash', input: { command, description: command } });

/** What the stand-in agent does for each case, keyed on words of the case's prompt: its tool calls in order. */
const SCRIPTS: Array<{ when: RegExp; steps: (req: ModelRequest) => Reply[] }> = [
  { when: /Record a decision in my knowledge base: we pool Postgres/, steps: () => [{ tool: `${MCP}add`, input: { type: 'decision', title: 'Pool Postgres connections with pgbouncer', tags: ['postgres', 'pgbouncer'], body: 'We pool Postgres connections with pgbouncer in transaction mode, because the app opens one connection per request.' } }] },
  { when: /Bookmark https:\/\/www\.postgresql\.org/, steps: () => [{ tool: `${MCP}add`, input: { type: 'bookmark', title: 'Postgres routine vacuuming', url: 'https://www.postgresql.org/docs/current/routine-vacuuming.html', tags: ['postgres'], body: 'The Postgres manual page on routine vacuuming.' } }] },
  { when: /Redis eviction policy should also say/, steps: () => [bash('git-kb search "redis eviction policy" "allkeys" --limit 5'), { tool: `${MCP}edit`, input: { id: 'kb-evalredis01', append: 'allkeys-lfu suits caches with a stable hot set.' } }] },
  { when: /What did I note about autovacuum/, steps: () => [bash('git-kb search "autovacuum big tables" "postgres vacuum" --limit 5'), bash('git-kb get kb-evalpg0001')] },
  { when: /Which decisions have I recorded about our infrastructure/, steps: () => [bash('git-kb search "infrastructure" "terraform state" --type decision --limit 5'), bash('git-kb get kb-evaldec001')] },
  {
    when: /How should I tune postgres autovacuum for a table with tens of millions/,
    // The agent only knows an id if the prompt hook pointed to it.
    steps: (req) => {
      const id = /\b(kb-evalpg0001)\b/.exec(contextsOf(req).join('\n'))?.[1];
      return id ? [bash(`git-kb get ${id}`)] : [];
    },
  },
  { when: /^git status$/m, steps: () => [bash('git status --short || true')] },
  { when: /pnpm lockfile lesson keeps coming up/, steps: () => [bash('git-kb status'), { tool: `${MCP}edit`, input: { id: 'kb-evalrec001', kernel: true } }] },
  { when: /compact kernel/, steps: () => [bash('git-kb get kb-evalkern01'), { tool: `${MCP}edit`, input: { id: 'kb-evalkern01', body: COMPACTED } }] },
];

/**
 * The case prompt of a request: the text of the user messages before the first reply (a slash command such as
 * `/git-kb compact kernel` arrives expanded: the skill's text with the command's arguments).
 */
function promptOf(req: ModelRequest): string {
  const out: string[] = [];
  for (const m of (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>) {
    if (m.role !== 'user') break;
    const content = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : ((m.content ?? []) as Array<{ type: string; text?: string }>);
    out.push(...content.filter((b) => b.type === 'text').map((b) => b.text ?? ''));
  }
  return out.join('\n');
}

let rig: Rig;
let result: any;
let stderr = '';
const seen = new Set<string>();

beforeAll(async () => {
  rig = await installedRig('gkb-evals-');
  rig.api.script((req) => {
    if (!req.main) return 'OK.';
    const prompt = promptOf(req);
    const s = SCRIPTS.find((x) => x.when.test(prompt));
    if (!s) return 'Done.';
    seen.add(String(s.when));
    const turn = (req.body.messages as Array<{ role: string }>).filter((m) => m.role === 'assistant').length;
    return s.steps(req)[turn] ?? 'Done.';
  });
  const out = path.join(rig.sb.root, 'eval-result.json');
  const r = await claude(
    rig.sb,
    ['plugin', 'eval', 'git-kb@git-kb', '--trust-plugin', '--no-publish', '--runs', '1', '--scaffold', '--keep-temp', '--mocks', 'off', '--allow-tools', 'Bash', `${MCP}*`, '--threshold', '1', '--json', out, '--output-dir', path.join(rig.sb.root, 'eval-out'), '--report', path.join(rig.sb.root, 'report.html')],
    // MCP connected before each agent's first request (claude-mcp.test.ts says why).
    { timeoutMs: 600_000, env: { MCP_CONNECTION_NONBLOCKING: 'false' } },
  );
  stderr = r.stderr;
  expect(fs.existsSync(out), `claude plugin eval exited ${r.code}:\n${r.stdout}\n${r.stderr}`).toBe(true);
  result = JSON.parse(fs.readFileSync(out, 'utf8'));
}, 700_000);
afterAll(async () => {
  // The kept run folders hold agent-written files: removed by hand (the harness says how), then the rig.
  for (const m of stderr.matchAll(/kept (\S+claude-eval-\w+)/g)) {
    try {
      fs.chmodSync(m[1]!, 0o700);
      fs.rmSync(m[1]!, { recursive: true, force: true });
    } catch {
      /* gone with the sandbox */
    }
  }
  await rig?.stop();
});

const CASES = fs.readdirSync(path.join(ROOT, 'evals')).filter((d) => fs.existsSync(path.join(ROOT, 'evals', d, 'case.yaml'))).sort();

describe('claude plugin eval over evals/ (stand-in model)', () => {
  it('found every case of the suite (at least 8) and ran each in both arms', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(8);
    expect(result.claudeVersion).toBe('2.1.328');
    expect(result.suite.ablation).toBe('with-without');
    expect(result.cases.map((c: { name: string }) => c.name).sort()).toEqual(CASES);
    expect(seen.size).toBe(SCRIPTS.length);
  });

  it('passes every case with the plugin: the case.yaml graders, then evals/verify.mjs on the scratch repo', async () => {
    const { verifyCase } = (await import(path.join(ROOT, 'evals', 'verify.mjs'))) as { verifyCase: (name: string, dir: string) => string[] };
    const report: string[] = [];
    for (const c of result.cases) {
      const run = c.arms.with[0];
      const failed = run.graders.filter((g: { passed: boolean }) => !g.passed).map((g: { name: string; explanation: string }) => `${g.name}: ${g.explanation}`);
      if (run.error || failed.length) report.push(`${c.name}: ${run.error ?? ''} ${failed.join('; ')}`);
      const workdir = path.join(path.dirname(path.dirname(run.tracePath)), 'home', 'cwd');
      const v = verifyCase(c.name, workdir);
      if (v.length) report.push(`${c.name} (verify.mjs): ${v.join('; ')}`);
      if (v.length || failed.length) {
        // What the plugin answered the stand-in agent, for the failure message.
        const results = fs.readFileSync(run.tracePath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((d) => d.type === 'user').map((d) => JSON.stringify(d.message.content).slice(0, 600));
        report.push(`${c.name} tool results: ${results.join(' | ')}`);
      }
    }
    expect(report, stderr).toEqual([]);
    expect(result.aggregates.casesPassed).toBe(CASES.length);
  });

  it('scores lower without the plugin (the baseline arm): the plugin is what does the work', () => {
    // hook-quiet checks that nothing happens, which the baseline passes too.
    for (const c of result.cases) {
      if (c.name === 'hook-quiet') expect(c.aggregates.scoreWithout).toBe(1);
      else expect(c.aggregates.scoreWithout, c.name).toBeLessThan(c.aggregates.score);
    }
  });
});
