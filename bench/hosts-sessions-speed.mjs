// Does the prompt hook stay fast with hosts and sessions in the data repo? Two copies of one replicated corpus
// (default 10,000 entries): "base" as is, and "full" with 5,000 session summaries (written by the real
// summariser from synthetic transcripts, over 150 project directories) and 200 hosts (hosts.yaml with a key, an
// IP and a name marker each, a regex on every 10th, 5 forbidden; 1 to 3 facts each). Whole-process medians,
// alternated in one run with a bare `node -e 0`: a prompt that fires nothing, one that fires by keyword, one that
// names a host, and the first prompt of a new session in a directory with summaries (the recent-sessions path).
// Also: peak RSS, index header and side-file sizes, rebuild times, and what a Stop costs on the full repo.
// Writes the "Hosts and sessions" section of bench/RESULTS.md.
//
//   node bench/hosts-sessions-speed.mjs [--size 10000] [--runs 21]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchEnv, HOOK, importTs } from './hook-lib.mjs';
import { copyRepo, readCorpus, replicatedRepo, WORK } from './lib/corpus.mjs';
import { machine, peakRss, timeSideBySide, writeSection } from './lib/measure.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const SIZE = Number(arg('--size', '10000'));
const RUNS = Number(arg('--runs', '21'));
const SESSIONS = 5000;
const HOSTS = 200;
const DIRS = 150;

const SILENT = 'Explain how the Krebs cycle produces ATP at a high school level, with a simple diagram in text.';
const FIRING = 'git stash pop gave me merge conflicts and now a bunch of other files are staged, what do I need to do to finish the pop?';
const HOSTED = 'the nginx upstream on srv-137.lan keeps returning 502 since the upgrade, where do I start looking?';
const FIRST = 'pick up where we left off on the thumbnail cache and finish the eviction policy';
const projectDir = (i) => `/home/dev/src/project-${String(i).padStart(3, '0')}`;

const { summarizeSession } = await importTs('src/core/sessions/summary.ts');
const { parseTranscript } = await importTs('src/core/sessions/transcript.ts');
const { formatEntry } = await importTs('src/core/format/entry.ts');
const { rebuildPromptIndex } = await importTs('src/adapters/index/prompt/build.ts');
const { refreshPromptIndex } = await importTs('src/adapters/index/prompt/load.ts');

function gitEnv() {
  return { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
}

/** Adds 5,000 session summaries and 200 hosts (with facts) to a repo, committed with plain git. */
function addHostsAndSessions(dir) {
  const notes = readCorpus();
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < SESSIONS; i++) {
    const sid = `b${i.toString(16).padStart(7, '0')}-5e55-4000-8000-${i.toString().padStart(12, '0')}`;
    const cwd = projectDir(i % DIRS);
    const start = base + i * 3_600_000;
    const n = 3 + (i % 12);
    const recs = [];
    for (let k = 0; k < n; k++) {
      const note = notes[(i * 7 + k * 13) % notes.length];
      recs.push({ type: 'user', sessionId: sid, cwd, gitBranch: `feature/${note.folder}`, uuid: `${sid}-u${k}`, timestamp: new Date(start + k * 60_000).toISOString(), message: { role: 'user', content: `${note.title}: can you look into this in ${note.folder}?` } });
      recs.push({ type: 'assistant', sessionId: sid, cwd, uuid: `${sid}-a${k}`, timestamp: new Date(start + k * 60_000 + 30_000).toISOString(), message: { id: `${sid}-m${k}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: note.body.slice(0, 300) }] } });
    }
    const made = summarizeSession(parseTranscript(recs.map((r) => JSON.stringify(r)).join('\n')), { transcriptPath: `/home/dev/.claude/projects/x/${sid}.jsonl` });
    if ('skip' in made) throw new Error(`no summary for session ${i}: ${made.skip}`);
    const s = made.summary;
    const file = path.join(dir, s.path);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, formatEntry({ id: s.id, ...s.fields, created: s.created, updated: s.fields.ended }, s.body));
  }
  const yaml = ['# 200 bench hosts', 'hosts:'];
  for (let h = 0; h < HOSTS; h++) {
    const key = `host-${String(h).padStart(3, '0')}`;
    yaml.push(`  ${key}:`, '    markers:', `      - 10.20.${h >> 8}.${h & 255}`, `      - srv-${String(h).padStart(3, '0')}.lan`);
    if (h % 10 === 0) yaml.push(`      - /rack\\d+-${String(h).padStart(3, '0')}/i`);
    if (h % 40 === 39) yaml.push('    forbidden: true');
    for (let f = 0; f < 1 + (h % 3); f++) {
      const id = `kb-h${h.toString(36).padStart(3, '0')}${f}zzzzz`;
      const fdir = path.join(dir, 'hosts', key);
      fs.mkdirSync(fdir, { recursive: true });
      fs.writeFileSync(path.join(fdir, `${id}-fact-${f}.md`), `---\nid: ${id}\ntitle: "Fact ${f} about ${key}: sudo needs -S"\ntype: host_fact\ntags: []\nhost: ${key}\ncreated: 2025-06-01T00:00:00Z\nupdated: 2025-06-01T00:00:00Z\n---\n\nA non-obvious fact ${f} about ${key}.\n`);
    }
  }
  fs.writeFileSync(path.join(dir, 'hosts.yaml'), `${yaml.join('\n')}\n`);
  execFileSync('git', ['add', '-A'], { cwd: dir, env: gitEnv() });
  execFileSync('git', ['commit', '-q', '-m', `${SESSIONS} session summaries and ${HOSTS} hosts`], { cwd: dir, env: gitEnv() });
}

const ms = async (fn) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

const payload = (prompt, session, cwd = '/tmp') => JSON.stringify({ session_id: session, hook_event_name: 'UserPromptSubmit', cwd, prompt });
function hookOnce(env, prompt, session, cwd) {
  const r = spawnSync(process.execPath, [HOOK, 'prompt'], { env, input: payload(prompt, session, cwd), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hook failed: ${r.stderr}`);
  return r.stdout;
}

// --- the two repos
const src = replicatedRepo(SIZE);
const baseDir = copyRepo(src, path.join(WORK, `hs-base-${SIZE}`));
const fullDir = copyRepo(src, path.join(WORK, `hs-full-${SIZE}`));
let t0 = Date.now();
addHostsAndSessions(fullDir);
const genMs = Date.now() - t0;
for (const d of [baseDir, fullDir]) fs.rmSync(path.join(d, '.git', 'git-kb'), { recursive: true, force: true });
const coldBase = await ms(() => rebuildPromptIndex(baseDir));
const coldFull = await ms(() => rebuildPromptIndex(fullDir));
// A rebuild after one change (warm catalog), as after a Stop commit.
const touch = (d) => fs.writeFileSync(path.join(d, 'entries', 'kb-zzzzzzzzzz-bench-extra.md'), '---\nid: kb-zzzzzzzzzz\ntitle: Bench extra\ntype: factual_reference\ntags: []\n---\n\nx\n');
touch(baseDir);
touch(fullDir);
const warmBase = await ms(() => refreshPromptIndex(baseDir));
const warmFull = await ms(() => refreshPromptIndex(fullDir));

const envBase = benchEnv({ GIT_KB_DATA: baseDir });
const envFull = benchEnv({ GIT_KB_DATA: fullDir });
for (const [env] of [[envBase], [envFull]]) hookOnce(env, SILENT, 'warm');
if (!hookOnce(envFull, HOSTED, `check-${Date.now()}`).includes('host:host-137')) throw new Error('the host prompt did not point to host-137');
const firstCheck = hookOnce(envFull, FIRST, `check-first-${Date.now()}`, projectDir(42));
if (!firstCheck.includes('earlier session')) throw new Error('the first prompt got no recent sessions');
if (!hookOnce(envFull, FIRING, `check-fire-${Date.now()}`).includes('additionalContext')) throw new Error('the firing prompt did not fire');
if (hookOnce(envFull, 'deploy the site on srv-039.lan tonight please', `check-forb-${Date.now()}`).includes('host-039')) throw new Error('a forbidden host was surfaced');

const stateDir = path.join(fullDir, '.git', 'git-kb', 'prompt');
const index = fs.readFileSync(path.join(stateDir, 'index.v1'));
const headerBytes = index.readUInt32LE(8);
const side = fs.readdirSync(stateDir).find((f) => f.startsWith('recent-'));
const sideBytes = side ? fs.statSync(path.join(stateDir, side)).size : 0;
const baseHeader = fs.readFileSync(path.join(baseDir, '.git', 'git-kb', 'prompt', 'index.v1')).readUInt32LE(8);

// --- side by side
const seq = { n: 0 };
const cmd = (env, prompt, fresh, cwd) => {
  const c = { cmd: process.execPath, args: [HOOK, 'prompt'], env, input: payload(prompt, 'steady', cwd) };
  if (fresh) c.before = (i) => (c.input = payload(prompt, `bench-${fresh}-${process.pid}-${i}-${seq.n++}`, cwd));
  return c;
};
const t = timeSideBySide(
  {
    bare: { cmd: process.execPath, args: ['-e', '0'] },
    baseSilent: cmd(envBase, SILENT),
    fullSilent: cmd(envFull, SILENT),
    baseFiring: cmd(envBase, FIRING, 'bf'),
    fullFiring: cmd(envFull, FIRING, 'ff'),
    fullHost: cmd(envFull, HOSTED, 'fh'),
    fullFirst: cmd(envFull, FIRST, 'f1', projectDir(42)),
  },
  { runs: RUNS, warmup: 3 },
);
// CPU time (user + system) of the same commands, read by a probe preloaded with --import: unlike wall time, it
// barely moves when other processes load the machine.
const probe = path.join(WORK, 'cpu-probe.mjs');
fs.writeFileSync(probe, "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write(`\\ncpu:${u.user + u.system}\\n`); });\n");
const cpu = {};
const cpuRuns = Object.fromEntries(Object.keys(t).map((k) => [k, []]));
const variants = {
  bare: () => ({ args: ['-e', '0'] }),
  baseSilent: () => ({ args: [HOOK, 'prompt'], env: envBase, input: payload(SILENT, 'steady') }),
  fullSilent: () => ({ args: [HOOK, 'prompt'], env: envFull, input: payload(SILENT, 'steady') }),
  baseFiring: (i) => ({ args: [HOOK, 'prompt'], env: envBase, input: payload(FIRING, `cpu-bf-${process.pid}-${i}`) }),
  fullFiring: (i) => ({ args: [HOOK, 'prompt'], env: envFull, input: payload(FIRING, `cpu-ff-${process.pid}-${i}`) }),
  fullHost: (i) => ({ args: [HOOK, 'prompt'], env: envFull, input: payload(HOSTED, `cpu-fh-${process.pid}-${i}`) }),
  fullFirst: (i) => ({ args: [HOOK, 'prompt'], env: envFull, input: payload(FIRST, `cpu-f1-${process.pid}-${i}`, projectDir(42)) }),
};
for (let i = 0; i < RUNS + 2; i++) {
  for (const [k, make] of Object.entries(variants)) {
    const v = make(i);
    const r = spawnSync(process.execPath, ['--import', probe, ...v.args], { env: v.env ?? process.env, input: v.input ?? '', encoding: 'utf8' });
    const us = Number(/cpu:(\d+)/.exec(r.stderr)?.[1]);
    if (i >= 2 && Number.isFinite(us)) cpuRuns[k].push(us / 1000);
  }
}
for (const [k, v] of Object.entries(cpuRuns)) {
  v.sort((a, b) => a - b);
  cpu[k] = v[Math.floor(v.length / 2)];
}

const rss = {
  bare: peakRss(process.execPath, ['-e', '0']),
  fullSilent: peakRss(process.execPath, [HOOK, 'prompt'], { env: envFull, input: payload(SILENT, 'rss') }),
  fullHost: peakRss(process.execPath, [HOOK, 'prompt'], { env: envFull, input: payload(HOSTED, `rss-h-${Date.now()}`) }),
  fullFirst: peakRss(process.execPath, [HOOK, 'prompt'], { env: envFull, input: payload(FIRST, `rss-f-${Date.now()}`, projectDir(42)) }),
};

// --- what a Stop costs on the full repo: the first Stop writes (parse, summary, commit, index refresh), a
// Stop inside the debounce window only stats.
const tdir = fs.mkdtempSync(path.join(os.tmpdir(), 'hs-stop-'));
const transcript = path.join(tdir, 'stop.jsonl');
const sid = `stop-${process.pid}`;
const lines = [];
for (let k = 0; k < 40; k++) {
  lines.push(JSON.stringify({ type: 'user', sessionId: sid, cwd: projectDir(7), uuid: `${sid}-u${k}`, timestamp: new Date(Date.UTC(2026, 0, 1, 9, k)).toISOString(), message: { role: 'user', content: `question ${k} about the cache eviction policy and its tests` } }));
  lines.push(JSON.stringify({ type: 'assistant', sessionId: sid, cwd: projectDir(7), uuid: `${sid}-a${k}`, timestamp: new Date(Date.UTC(2026, 0, 1, 9, k, 30)).toISOString(), message: { id: `${sid}-m${k}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'x '.repeat(400) }] } }));
}
fs.writeFileSync(transcript, `${lines.join('\n')}\n`);
const stopPayload = JSON.stringify({ session_id: sid, transcript_path: transcript, cwd: projectDir(7), hook_event_name: 'Stop' });
const timeStop = () => {
  const s = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [HOOK, 'stop'], { env: envFull, input: stopPayload, encoding: 'utf8' });
  // A Stop over a memory budget may block once (spec/memory.md); anything else on stdout is a failure.
  if (r.status !== 0 || (r.stdout && !/"decision":"block"/.test(r.stdout))) throw new Error(`stop failed: ${r.stderr}${r.stdout}`);
  return Number(process.hrtime.bigint() - s) / 1e6;
};
const stopWrite = timeStop();
fs.appendFileSync(transcript, `${JSON.stringify({ type: 'user', sessionId: sid, cwd: projectDir(7), uuid: `${sid}-late`, timestamp: new Date(Date.UTC(2026, 0, 1, 10)).toISOString(), message: { role: 'user', content: 'one more turn' } })}\n`);
const debounced = [];
for (let i = 0; i < 9; i++) debounced.push(timeStop());
debounced.sort((a, b) => a - b);
const stopDebounced = debounced[4];
const committed = execFileSync('git', ['log', '-1', '--format=%s'], { cwd: fullDir, encoding: 'utf8' }).trim();
if (!committed.startsWith('session ')) throw new Error(`the Stop did not commit: ${committed}`);
fs.rmSync(tdir, { recursive: true, force: true });

// --- report
const m = (k) => `${t[k].median.toFixed(1)} ms`;
const r = (k) => `${(t[k].median / t.bare.median).toFixed(2)}x`;
const c = (k) => `${cpu[k].toFixed(1)} ms`;
const cr = (k) => `${(cpu[k] / cpu.bare).toFixed(2)}x`;
const mib = (k) => (k / 1024).toFixed(1);
const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
const body = [
  `Written by \`node bench/hosts-sessions-speed.mjs --size ${SIZE} --runs ${RUNS}\` on ${new Date().toISOString().slice(0, 10)}; ${machine()}; load average at write time ${load}.`,
  '',
  `Two copies of the ${SIZE.toLocaleString('en-US')}-entry replicated corpus: **base** as is, and **full** with ${SESSIONS.toLocaleString('en-US')} session summaries (written by the real summariser from synthetic transcripts, ${DIRS} project directories) and ${HOSTS} hosts in hosts.yaml (2 to 3 markers each, 5 forbidden, ${HOSTS * 2} facts in all) added (generated in ${(genMs / 1000).toFixed(1)} s). Whole-process medians of ${RUNS} runs, alternated in one run with a bare \`node -e 0\`; index fresh beforehand. "fires" uses a new session per run; "names a host" points to one host (\`srv-137.lan\`); "first prompt" is a new session in a directory with summaries (loads the sessions signal and reads its side file). Peak RSS: median of 7 runs by /usr/bin/time.`,
  '',
  'Wall time (whole process, spawn to exit) and CPU time (user + system, read by a probe preloaded with `--import` into every command, the bare one included; it barely moves when other processes load the machine):',
  '',
  '| prompt | base: wall | ratio | base: CPU | ratio | full: wall | ratio | full: CPU | ratio |',
  '|---|---|---|---|---|---|---|---|---|',
  `| bare \`node -e 0\` | ${m('bare')} | 1.00x | ${c('bare')} | 1.00x | | | | |`,
  `| fires nothing | ${m('baseSilent')} | ${r('baseSilent')} | ${c('baseSilent')} | ${cr('baseSilent')} | ${m('fullSilent')} | ${r('fullSilent')} | ${c('fullSilent')} | ${cr('fullSilent')} |`,
  `| fires (keywords) | ${m('baseFiring')} | ${r('baseFiring')} | ${c('baseFiring')} | ${cr('baseFiring')} | ${m('fullFiring')} | ${r('fullFiring')} | ${c('fullFiring')} | ${cr('fullFiring')} |`,
  `| names a host | | | | | ${m('fullHost')} | ${r('fullHost')} | ${c('fullHost')} | ${cr('fullHost')} |`,
  `| first prompt, recent sessions | | | | | ${m('fullFirst')} | ${r('fullFirst')} | ${c('fullFirst')} | ${cr('fullFirst')} |`,
  '',
  `Full repo vs base, same prompt: fires nothing ${(t.fullSilent.median / t.baseSilent.median).toFixed(2)}x wall, ${(cpu.fullSilent / cpu.baseSilent).toFixed(2)}x CPU; fires ${(t.fullFiring.median / t.baseFiring.median).toFixed(2)}x wall, ${(cpu.fullFiring / cpu.baseFiring).toFixed(2)}x CPU. Peak RSS (MiB): bare ${mib(rss.bare)}, fires nothing ${mib(rss.fullSilent)} (${(rss.fullSilent / rss.bare).toFixed(2)}x), names a host ${mib(rss.fullHost)} (${(rss.fullHost / rss.bare).toFixed(2)}x), first prompt ${mib(rss.fullFirst)} (${(rss.fullFirst / rss.bare).toFixed(2)}x).`,
  '',
  `Index: header ${(baseHeader / 1024).toFixed(1)} KiB (base) and ${(headerBytes / 1024).toFixed(1)} KiB (full: the host matcher of ${HOSTS - 5} hosts is in it); the recent-sessions side file ${(sideBytes / 1024).toFixed(1)} KiB, read on first prompts only. First build without caches: ${coldBase.toFixed(0)} ms base, ${coldFull.toFixed(0)} ms full; rebuild after one change (catalog warm): ${warmBase.toFixed(0)} ms base, ${warmFull.toFixed(0)} ms full.`,
  '',
  `Stop hook on the full repo (a 40-turn transcript): the first Stop (parse, summary, commit, prompt-index refresh) ${stopWrite.toFixed(0)} ms; a Stop inside the debounce window ${stopDebounced.toFixed(0)} ms (median of 9).`,
].join('\n');
console.log(body);
writeSection(path.join(import.meta.dirname, 'RESULTS.md'), 'Hosts and sessions', body);
