// The prose gate's model judge child, per call, with the real Claude Code CLI (node_modules/.bin/claude, the
// pinned devDependency) answered by the stand-in model API on loopback (test/helpers/model-api.ts): wall time of
// runJudge, request bytes the CLI sent, requests per call, and the sessions it left under ~/.claude/projects.
// "before" is the child as it was run until JUDGE_VERSION 1 (judgeArgs(model, true): print mode, JSON output,
// hooks off); "after" adds no tools, no MCP servers, no saved session, the judge's system prompt and a JSON
// Schema. Calls alternate between the two, each with its own throwaway HOME.
//
//   node bench/judge-child.mjs [--runs 10] [--no-write]
import { build } from 'esbuild';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machine, writeSection } from './lib/measure.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const runs = Number(opt('--runs', '10'));
const CLAUDE = path.join(ROOT, 'node_modules', '.bin', 'claude');
if (!fs.existsSync(CLAUDE)) throw new Error('node_modules/.bin/claude is missing: run npm ci');

// The stand-in and the judge are TypeScript: bundle them for this script.
const work = path.join(ROOT, 'bench', '.work', 'judge-child');
fs.mkdirSync(work, { recursive: true });
await build({
  entryPoints: { 'model-api': path.join(ROOT, 'test/helpers/model-api.ts'), judge: path.join(ROOT, 'src/adapters/claude/judge.ts'), verdict: path.join(ROOT, 'src/core/gate/verdict.ts') },
  outdir: work,
  bundle: true,
  format: 'esm',
  platform: 'node',
  logLevel: 'warning',
  outExtension: { '.js': '.mjs' },
});
const { startModelApi } = await import(path.join(work, 'model-api.mjs'));
const { runJudge, judgeArgs } = await import(path.join(work, 'judge.mjs'));
const { judgeOutcome } = await import(path.join(work, 'verdict.mjs'));

const api = await startModelApi((req) =>
  (req.body?.tools ?? []).some((t) => t.name === 'StructuredOutput') ? { tool: 'StructuredOutput', input: { pass: true } } : { text: '{"pass": true}' },
);
const kernel = [
  {
    id: 'kb-3lvn09zbq0',
    title: 'House style',
    path: 'entries/kb-3lvn09zbq0-house-style.md',
    sig: '-',
    body: 'Write plain English for engineers. Say what a thing does, not how great it is: no corporate filler (synergy, alignment, leverage), no hype words, no exclamation marks. Short sentences; one idea each. Numbers with units.',
    rules: [{ pattern: '\\bleverage\\b', message: 'Say "use".' }],
  },
];
const prose = (i) => [
  {
    source: 'README.md',
    line: 1,
    text: `The planner reads table statistics from storage and picks a join order for each query (run ${i}). It keeps the ten most recent plans per statement and reuses one when the statistics have not moved by more than five per cent.`,
  },
];

const modes = { before: true, after: false };
const homes = {};
const samples = { before: [], after: [] };
for (const mode of Object.keys(modes)) homes[mode] = fs.mkdtempSync(path.join(os.tmpdir(), `gkb-judge-${mode}-`));
const envFor = (mode) => {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(ANTHROPIC_|CLAUDE_|KB_|GIT_KB)/.test(k)) env[k] = v;
  return { ...env, HOME: homes[mode], ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-ant-stand-in', DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
};
const load = os.loadavg()[0];
for (let i = 0; i < runs + 1; i++) {
  for (const [mode, legacy] of Object.entries(modes)) {
    api.reset();
    const t = process.hrtime.bigint();
    const run = await runJudge({ claude: CLAUDE, model: 'sonnet', timeoutMs: 60_000, pieces: prose(`${mode}-${i}`), kernel, env: envFor(mode), legacy });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    const outcome = judgeOutcome(run, prose(`${mode}-${i}`));
    if (outcome.kind !== 'pass') throw new Error(`${mode}: no pass verdict: ${JSON.stringify(outcome)} ${run.stderr ?? ''}`);
    const msgs = api.requests.filter((r) => r.messages);
    if (i > 0) samples[mode].push({ ms, requests: msgs.length, bytes: msgs.reduce((n, r) => n + Buffer.byteLength(r.raw), 0), other: api.requests.length - msgs.length });
  }
}
await api.stop();

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const sessions = (mode) => {
  const dir = path.join(homes[mode], '.claude', 'projects');
  return fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.jsonl')).length : 0;
};
const rows = Object.keys(modes).map((mode) => {
  const s = samples[mode];
  return { mode, ms: median(s.map((x) => x.ms)), p90: p90(s.map((x) => x.ms)), bytes: median(s.map((x) => x.bytes)), requests: median(s.map((x) => x.requests)), other: median(s.map((x) => x.other)), sessions: sessions(mode) };
});
for (const mode of Object.keys(modes)) fs.rmSync(homes[mode], { recursive: true, force: true });
const version = (await import('node:child_process')).execFileSync(CLAUDE, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: os.tmpdir() } }).trim();
const date = new Date().toISOString().slice(0, 10);
const [b, a] = rows;
const table = [
  '| child | flags after `-p --model sonnet --output-format json --settings {"disableAllHooks":true}` | median ms | p90 ms | request bytes per call | model requests per call | other requests | saved sessions after all calls |',
  '|---|---|---|---|---|---|---|---|',
  `| before | none | ${b.ms.toFixed(0)} | ${b.p90.toFixed(0)} | ${b.bytes} | ${b.requests} | ${b.other} | ${b.sessions} of ${runs + 1} |`,
  `| after | \`${judgeArgs('sonnet').slice(7).map((x) => (x === '' ? '""' : x.length > 40 ? '…' : x)).join(' ')}\` | ${a.ms.toFixed(0)} | ${a.p90.toFixed(0)} | ${a.bytes} | ${a.requests} | ${a.other} | ${a.sessions} of ${runs + 1} |`,
].join('\n');
const body = `Written by \`node bench/judge-child.mjs --runs ${runs}\` on ${date}, ${machine()}; ${version}.

One call of \`runJudge\` (src/adapters/claude/judge.ts): the real Claude Code CLI in print mode as the prose gate's layer-2
child, pointed at the stand-in model API on loopback (test/helpers/model-api.ts, which answers at once, so the
time is the CLI's own start-up and request building, not a model's). The prompt on stdin is the same for both: a
kernel entry of ${kernel[0].body.length} characters and one README piece of about ${prose(0)[0].text.length}. Medians of ${runs} calls
each, alternated, after one warm-up call each; each child has its own throwaway HOME. "Request bytes" are the
bodies of the \`/v1/messages\` requests of one call (the stand-in answers the "after" child's schema with a
\`StructuredOutput\` tool call, the "before" child's with the JSON verdict as text). Load average ${load.toFixed(1)} at the start.

${table}

The default system prompt and the tool definitions are most of the "before" bytes; \`--system-prompt\` and
\`--tools ""\` drop them, so a real model reads about a twelfth of the input per verdict. The wall time barely
moves here: against a stand-in that answers at once it is the CLI's own start-up, which the flags do not change.
\`--no-session-persistence\` leaves no transcript under \`~/.claude/projects\` (before: one per call), and
\`--strict-mcp-config\` keeps the user's MCP servers from starting in the child.`;
console.log(body);
if (!args.includes('--no-write')) writeSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Judge child', body);
