// Whole-process speed of the prose gate's layer 1 (the PreToolUse hook), side by side with a bare `node -e 0`
// in the same run (alternated, so machine noise hits all alike): a README write that a kernel rule denies, a
// commit message that one denies, the same README clean (KB_PROSE_LINT=rules, so no judge), a clean write with
// no `claude` on PATH (both layers on, judge not found), and an excluded tool (Read). On a small data repo and a
// copy of the 10,000-entry replicated corpus, each with one kernel entry carrying ten rules. Also the cost of
// the first call after a change (the kernel cache rebuilt from the catalog). Writes the "Prose gate" section of
// bench/RESULTS.md.
//
//   node bench/gate-speed.mjs [--runs 30] [--sizes 0,10000]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchEnv, CLI, HOOK } from './hook-lib.mjs';
import { replicatedRepo, WORK } from './lib/corpus.mjs';
import { machine, timeSideBySide, writeSection } from './lib/measure.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const RUNS = Number(arg('--runs', '30'));
const SIZES = arg('--sizes', '0,10000').split(',').map(Number);

const RULES = [
  ['\\bleverag(e|es|ed|ing)\\b', 'Say "use".'],
  ['\\butiliz(e|es|ed|ing)\\b', 'Say "use".'],
  ['\\bdelve\\b', 'Say "look at".'],
  ['\\bsynerg(y|ies)\\b', 'No corporate filler.'],
  ['!{2,}', 'One exclamation mark at most.'],
  ['\\bin\\s+order\\s+to\\b', 'Say "to".'],
  ['\\bvery\\s+unique\\b', 'Unique is absolute.'],
  ['\\u2014', 'No em dashes.'],
  ['\\bplease\\s+note\\b', 'Just say it.'],
  ['\\bgame[- ]changer\\b', 'Say what changed.'],
];

const git = (dir, args, env) => execFileSync('git', args, { cwd: dir, env, stdio: 'pipe' });

/** A data repo with one kernel entry carrying RULES: fresh and small, or a copy of the replicated corpus. */
function gateRepo(size) {
  const dir = path.join(WORK, `gate-${size}`);
  const env = benchEnv({ GIT_KB_DATA: dir });
  const marker = path.join(dir, '.git', 'gate-bench-ready');
  if (fs.existsSync(marker)) return { dir, env };
  fs.rmSync(dir, { recursive: true, force: true });
  if (size > 0) execFileSync('cp', ['-a', replicatedRepo(size), dir]);
  const r = spawnSync(process.execPath, [CLI, 'add', '--kernel', '--type', 'pattern_convention', '--title', 'House style', '--json', '--', 'Plain words. No filler.'], { env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`add failed: ${r.stderr}`);
  const file = path.join(dir, JSON.parse(r.stdout).path);
  const yaml = RULES.map(([p, m]) => `  - pattern: '${p}'\n    message: '${m}'\n`).join('');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^kernel: true\n/m, () => `kernel: true\nrules:\n${yaml}`));
  git(dir, ['add', '-A'], env);
  git(dir, ['commit', '-q', '-m', 'bench rules'], env);
  fs.rmSync(path.join(dir, '.git', 'git-kb', 'prompt'), { recursive: true, force: true });
  fs.writeFileSync(marker, '');
  return { dir, env };
}

const README_BAD = '# Tool\n\nThis tool lets you leverage a small cache to answer lookups quickly.\n\nIt keeps the hot set in memory.\n';
const README_OK = '# Tool\n\nThis tool uses a small cache to answer lookups quickly.\n\nIt keeps the hot set in memory.\n';
const call = (tool, input) => JSON.stringify({ session_id: 'bench', hook_event_name: 'PreToolUse', cwd: '/tmp/project', tool_name: tool, tool_input: input });
const CASES = {
  'deny: README write': { input: call('Write', { file_path: '/tmp/project/README.md', content: README_BAD }), expect: 'deny' },
  'deny: commit message': { input: call('Bash', { command: 'git commit -m "Cache lookups" -m "We leverage an LRU."' }), expect: 'deny' },
  'allow: README write, rules only': { input: call('Write', { file_path: '/tmp/project/README.md', content: README_OK }), env: { KB_PROSE_LINT: 'rules' }, expect: '' },
  'allow: README write, no claude': { input: call('Write', { file_path: '/tmp/project/README.md', content: README_OK }), expect: '' },
  'allow: Read (excluded tool)': { input: call('Read', { file_path: '/tmp/project/README.md' }), expect: '' },
};

function gateOnce(env, input) {
  const r = spawnSync(process.execPath, [HOOK, 'pretool'], { env, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hook failed: ${r.stderr}`);
  return r.stdout;
}

// NOTE: PATH without any `claude`, so "no claude" really finds none and nothing here calls a model.
const PATH = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !fs.existsSync(path.join(d, 'claude'))).join(path.delimiter);

const loadStart = os.loadavg()[0];
const rows = [];
const rebuilds = [];
for (const size of SIZES) {
  const { dir, env: base } = gateRepo(size);
  const env = { ...base, PATH };
  // The gate reads the kernel from the prompt index: the first call after a change rebuilds it through the catalog.
  const kernelCache = path.join(dir, '.git', 'git-kb', 'prompt', 'index.v1');
  const cold = [];
  for (let i = 0; i < 5; i++) {
    fs.rmSync(kernelCache, { force: true });
    const t = process.hrtime.bigint();
    gateOnce(env, CASES['deny: README write'].input);
    cold.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  cold.sort((a, b) => a - b);
  rebuilds.push({ size, ms: cold[2] });
  for (const [name, c] of Object.entries(CASES)) {
    const out = gateOnce({ ...env, ...c.env }, c.input);
    const got = out === '' ? '' : JSON.parse(out).hookSpecificOutput.permissionDecision;
    if (got !== c.expect) throw new Error(`${name}: expected "${c.expect}", got ${out}`);
  }
  const commands = { 'node -e 0': { cmd: process.execPath, args: ['-e', '0'] } };
  for (const [name, c] of Object.entries(CASES)) commands[name] = { cmd: process.execPath, args: [HOOK, 'pretool'], env: { ...env, ...c.env }, input: c.input };
  const t = timeSideBySide(commands, { runs: RUNS, warmup: 3 });
  const bare = t['node -e 0'].median;
  for (const name of Object.keys(CASES)) rows.push({ size, name, median: t[name].median, p90: t[name].p90, ratio: t[name].median / bare, bare });
  console.log(`size ${size}: node -e 0 ${bare.toFixed(1)} ms; ${Object.keys(CASES).map((n) => `${n} ${t[n].median.toFixed(1)} ms`).join('; ')}`);
}

const label = (size) => (size === 0 ? '1 entry' : `${size.toLocaleString('en-US')} entries`);
const table = [
  '| data repo | call | median ms | p90 ms | bare `node -e 0` ms | ratio |',
  '|---|---|---:|---:|---:|---:|',
  ...rows.map((r) => `| ${label(r.size)} | ${r.name} | ${r.median.toFixed(1)} | ${r.p90.toFixed(1)} | ${r.bare.toFixed(1)} | ${r.ratio.toFixed(2)} |`),
].join('\n');
const worst = Math.max(...rows.map((r) => r.ratio));
const load = `load average ${loadStart.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end (other work shared the machine; the alternation keeps the ratios fair)`;
const body = `Written by \`node bench/gate-speed.mjs --runs ${RUNS} --sizes ${SIZES.join(',')}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.

Whole-process time of \`node bin/git-kb-hook pretool\` (layer 1 of the prose gate) with a PreToolUse payload on
stdin, medians of ${RUNS} runs alternated with a bare \`node -e 0\` (3 warm-up rounds). The data repo has one
kernel entry carrying ten rules; the kernel cache is warm. "no claude" is both layers on with no \`claude\`
executable on PATH, so the judge is skipped. The target is a ratio under 1.5; the worst here is
${worst.toFixed(2)}. Machine: ${load}.

${table}

First call after a change (kernel cache rebuilt from the catalog cache, median of 5): ${rebuilds.map((r) => `${label(r.size)} ${r.ms.toFixed(0)} ms`).join(', ')}.`;
writeSection(path.join(import.meta.dirname, 'RESULTS.md'), 'Prose gate', body);
console.log(body);
