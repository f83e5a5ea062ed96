// The first prompt of a new session after the previous session committed its summary (issue: a hook's commit must
// leave the prompt index fresh). On a copy of the replicated corpus (default 10,000 entries), each round runs one
// whole session end as Claude Code would (Stop with a transcript, then SessionEnd, both through the hook entry, so
// the summary is committed), waits for any worker the SessionEnd started, then times the first prompt of a new
// session (a prompt that fires nothing, and one that fires), alternated with a bare `node -e 0`. Medians of
// whole-process times. Writes the "First prompt after a session" section of bench/RESULTS.md.
//
//   node bench/session-first-prompt.mjs [--size 10000] [--runs 15]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { benchEnv, HOOK } from './hook-lib.mjs';
import { copyRepo, replicatedRepo, WORK } from './lib/corpus.mjs';
import { machine, writeSection } from './lib/measure.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const SIZE = Number(arg('--size', '10000'));
const RUNS = Number(arg('--runs', '15'));
const SILENT = 'Explain how the Krebs cycle produces ATP at a high school level, with a simple diagram in text.';
const FIRING = 'git stash pop gave me merge conflicts and now a bunch of other files are staged, what do I need to do to finish the pop?';
const CWD = '/home/dev/src/thumbs';

const dir = copyRepo(replicatedRepo(SIZE), path.join(WORK, `first-prompt-${SIZE}`));
const env = benchEnv({ GIT_KB_DATA: dir });
const hook = (event, payload) => spawnSync(process.execPath, [HOOK, event], { input: JSON.stringify(payload), env, encoding: 'utf8' });
const timed = (cmd, args, input = '') => {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { input, env, encoding: 'utf8' });
  return { ms: Number(process.hrtime.bigint() - t) / 1e6, out: r.stdout };
};
const prompt = (session, text) => JSON.stringify({ session_id: session, transcript_path: '/dev/null', cwd: CWD, hook_event_name: 'UserPromptSubmit', prompt: text });

/** One finished session: a transcript of two turns, a Stop, then a SessionEnd; returns when its commit landed. */
function endSession(i) {
  const sid = `f1a5${String(i).padStart(4, '0')}-5e55-4000-8000-000000000000`;
  const file = path.join(WORK, `first-prompt-${sid}.jsonl`);
  const recs = [];
  for (let k = 0; k < 2; k++) {
    const at = new Date(Date.UTC(2026, 10, 1) + i * 3_600_000 + k * 60_000).toISOString();
    recs.push({ type: 'user', sessionId: sid, cwd: CWD, gitBranch: 'main', uuid: `${sid}-u${k}`, timestamp: at, message: { role: 'user', content: `round ${i} turn ${k}: make the thumbnail cache evict the oldest entries first` } });
    recs.push({ type: 'assistant', sessionId: sid, cwd: CWD, uuid: `${sid}-a${k}`, timestamp: at, message: { id: `${sid}-m${k}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done: the cache now evicts by age.' }] } });
  }
  fs.writeFileSync(file, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const head = () => spawnSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const before = head();
  const base = { session_id: sid, transcript_path: file, cwd: CWD };
  hook('stop', { ...base, hook_event_name: 'Stop', stop_hook_active: false });
  hook('session-end', { ...base, hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' });
  const until = Date.now() + 20_000;
  while (head() === before && Date.now() < until) spawnSync('sleep', ['0.05']);
  if (head() === before) throw new Error('the session summary was not committed');
  // Give a SessionEnd worker, if one was started, time to finish its commit.
  spawnSync('sleep', ['0.5']);
}

// Warm: the index exists before the first session, as on a machine where the hook has run.
timed(process.execPath, [HOOK, 'prompt'], prompt('warm-0', SILENT));
const t = { bare: [], silent: [], firing: [], commits: [] };
for (let i = 0; i < RUNS + 2; i++) {
  const c0 = Number(spawnSync('git', ['-C', dir, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' }).stdout);
  endSession(i);
  t.commits.push(Number(spawnSync('git', ['-C', dir, 'rev-list', '--count', 'HEAD'], { encoding: 'utf8' }).stdout) - c0);
  const bare = timed(process.execPath, ['-e', '0']);
  const silent = timed(process.execPath, [HOOK, 'prompt'], prompt(`new-${i}-a`, SILENT));
  const firing = timed(process.execPath, [HOOK, 'prompt'], prompt(`new-${i}-b`, FIRING));
  if (i < 2) continue;
  t.bare.push(bare.ms);
  t.silent.push(silent.ms);
  t.firing.push(firing.ms);
}
const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const b = med(t.bare);
const body = `Written by \`node bench/session-first-prompt.mjs --size ${SIZE} --runs ${RUNS}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.

Each round ends a session as Claude Code does (a Stop with a two-turn transcript, then a SessionEnd, through the
hook entry; the summary is committed), then times the first prompt of a new session in the same project folder
(the recent-sessions signal runs): one that fires nothing, one that fires by keyword. Medians of ${RUNS} rounds, each
alternated with a bare \`node -e 0\`. Commits per session end: ${[...new Set(t.commits)].join(', ')}.

| entries | bare node | first prompt, fires nothing | ratio | first prompt, fires | ratio |
|---|---:|---:|---:|---:|---:|
| ${SIZE.toLocaleString('en-US')} | ${b.toFixed(1)} ms | ${med(t.silent).toFixed(1)} ms | ${(med(t.silent) / b).toFixed(2)}x | ${med(t.firing).toFixed(1)} ms | ${(med(t.firing) / b).toFixed(2)}x |`;
console.log(body);
if (!process.argv.includes('--no-write')) writeSection(path.join(import.meta.dirname, 'RESULTS.md'), 'First prompt after a session', body);
