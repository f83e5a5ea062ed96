// Whole-process speed of the prompt hook, side by side with a bare `node -e 0` in the same run (alternated, so
// machine noise hits both alike), at the real corpus (1,871 entries) and replicated corpora of 10,000 and 50,000
// entries: a prompt that fires nothing, a prompt that fires (a new session each run, so the ledger never
// silences it), a skipped prompt, and the first prompt after a change (the index rebuild). Peak RSS by
// /usr/bin/time. Writes the speed part of the "Prompt hook" section of bench/RESULTS.md.
//
// With --lessons, every entry of the replicated corpora is a lesson_learned with an age spread over two years, so
// every entry decays and the hook reads the decay stamps of those it ranks (spec/memory.md, "Decay"); it then
// writes the "Prompt hook with decaying entries" section instead.
//
// With --section TITLE it writes that section instead: run by another Node (`/path/to/node24/bin/node
// bench/hook-speed.mjs --section "Prompt hook on Node 24"`), the hook and the bare node it is compared with both
// run on that Node.
//
//   node bench/hook-speed.mjs [--runs 30] [--sizes 1871,10000,50000] [--lessons] [--section TITLE]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchEnv, HOOK, importTs, tilRepo } from './hook-lib.mjs';
import { copyRepo, replicatedRepo } from './lib/corpus.mjs';
import { machine, peakRss, timeSideBySide, writeSection } from './lib/measure.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const RUNS = Number(arg('--runs', '30'));
const SIZES = arg('--sizes', '1871,10000,50000').split(',').map(Number);
const LESSONS = process.argv.includes('--lessons');
const SECTION = arg('--section', LESSONS ? 'Prompt hook with decaying entries' : 'Prompt hook');

/** A copy of the replicated repo of `size` entries with every entry a lesson, `updated` spread over two years. */
function lessonRepo(size) {
  const src = replicatedRepo(size);
  const dir = `${src}-lessons`;
  if (fs.existsSync(path.join(dir, '.git'))) return dir;
  copyRepo(src, dir);
  const entries = path.join(dir, 'entries');
  const day = 86_400_000;
  fs.readdirSync(entries).forEach((f, i) => {
    const p = path.join(entries, f);
    const at = new Date(Date.now() - ((i * 7919) % 730) * day).toISOString().replace(/\.\d+Z$/, 'Z');
    fs.writeFileSync(p, fs.readFileSync(p, 'utf8').replace(/^type: factual_reference$/m, 'type: lesson_learned').replace(/^updated: .*$/m, `updated: ${at}`));
  });
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  spawnSync('git', ['commit', '-qam', 'every entry a lesson'], { cwd: dir, env });
  return dir;
}

const SILENT = 'Explain how the Krebs cycle produces ATP at a high school level, with a simple diagram in text.';
const FIRING = 'git stash pop gave me merge conflicts and now a bunch of other files are staged, what do I need to do to finish the pop?';
const SKIPPED = 'yes, commit and push';

const payload = (prompt, session) => JSON.stringify({ session_id: session, hook_event_name: 'UserPromptSubmit', cwd: '/tmp', prompt });

function hookOnce(env, prompt, session = 'warm') {
  const r = spawnSync(process.execPath, [HOOK, 'prompt'], { env, input: payload(prompt, session), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`hook failed: ${r.stderr}`);
  return r.stdout;
}

const { rebuildPromptIndex } = await importTs('src/adapters/index/prompt/build.ts');
const { refreshPromptIndex } = await importTs('src/adapters/index/prompt/load.ts');
const ms = async (fn) => {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
};

const rows = [];
for (const size of SIZES) {
  const dir = LESSONS ? lessonRepo(size) : size === 1871 ? (await tilRepo()).dir : replicatedRepo(size);
  const env = benchEnv({ GIT_KB_DATA: dir });
  // Build costs, in process: the first build with no caches at all; after one new entry, the update from what
  // changed (refreshPromptIndex, as a writer or the background builder runs it) and a full rebuild (catalog cache
  // warm); then the index is left fresh so that the runs below measure the steady state.
  fs.rmSync(path.join(dir, '.git', 'git-kb'), { recursive: true, force: true });
  const coldMs = await ms(() => rebuildPromptIndex(dir));
  const extra = path.join(dir, 'entries', 'kb-zzzzzzzzzz-bench-extra.md');
  fs.writeFileSync(extra, '---\nid: kb-zzzzzzzzzz\ntitle: Bench extra entry\ntype: factual_reference\ntags: []\n---\n\nx\n');
  const updateMs = await ms(() => refreshPromptIndex(dir));
  if (!fs.existsSync(path.join(dir, '.git', 'git-kb', 'prompt', 'delta.v1'))) throw new Error(`no delta was written at ${size}: the update declined`);
  fs.appendFileSync(extra, 'y\n');
  const rebuildMs = await ms(() => rebuildPromptIndex(dir));
  fs.rmSync(extra);
  await refreshPromptIndex(dir);
  hookOnce(env, SILENT);
  if (!hookOnce(env, FIRING, `check-${size}-${Date.now()}`).includes('additionalContext')) throw new Error(`the firing prompt did not fire at ${size}`);
  const indexBytes = fs.statSync(path.join(dir, '.git', 'git-kb', 'prompt', 'index.v1')).size;

  // NOTE: `before` must set the input of the very object timeSideBySide runs (a spread copy would keep '').
  const firing = { cmd: process.execPath, args: [HOOK, 'prompt'], env, input: '' };
  firing.before = (i) => (firing.input = payload(FIRING, `bench-fire-${size}-${process.pid}-${i}`));
  const t = timeSideBySide(
    {
      bare: { cmd: process.execPath, args: ['-e', '0'] },
      silent: { cmd: process.execPath, args: [HOOK, 'prompt'], env, input: payload(SILENT, 'bench-silent') },
      firing,
      skipped: { cmd: process.execPath, args: [HOOK, 'prompt'], env, input: payload(SKIPPED, 'bench-skip') },
    },
    { runs: RUNS, warmup: 3 },
  );
  const rssBare = peakRss(process.execPath, ['-e', '0']);
  const rssSilent = peakRss(process.execPath, [HOOK, 'prompt'], { env, input: payload(SILENT, 'rss') });
  const rssFiring = peakRss(process.execPath, [HOOK, 'prompt'], { env, input: payload(FIRING, `rss-${Date.now()}`) });
  const row = { size, t, coldMs, updateMs, rebuildMs, indexBytes, rssBare, rssSilent, rssFiring };
  rows.push(row);
  const r = (k) => (t[k].median / t.bare.median).toFixed(2);
  console.log(`${size}: bare ${t.bare.median.toFixed(1)} ms, silent ${t.silent.median.toFixed(1)} (${r('silent')}x), firing ${t.firing.median.toFixed(1)} (${r('firing')}x), skipped ${t.skipped.median.toFixed(1)} (${r('skipped')}x); cold build ${coldMs.toFixed(0)} ms, update ${updateMs.toFixed(0)} ms, rebuild ${rebuildMs.toFixed(0)} ms; index ${(indexBytes / 1024).toFixed(0)} KiB; RSS bare ${rssBare} KiB, silent ${rssSilent}, firing ${rssFiring}`);
}

const x = (a, b) => `${(a / b).toFixed(2)}x`;
const lines = [
  `Speed (\`node bench/hook-speed.mjs\`, ${RUNS} runs each, alternated with a bare \`node -e 0\` in the same run; medians of the whole process,`,
  'spawn to exit, with the JSON payload on stdin). Index built beforehand; "firing" uses a new session id per run so the ledger never',
  'silences it; "skipped" is a mechanical prompt (skip rules only). Peak RSS: median of 7 runs by /usr/bin/time. Build times are in',
  'process (`rebuildPromptIndex`; `refreshPromptIndex`, which updates from what changed where it can); the hook runs an update estimated over 60 ms, a first build estimated over 2.5 s or a rebuild after a change estimated over 0.5 s in a background process instead, answering from the previous index meanwhile (spec/hooks.md, "Updates", "Rebuilds").',
  '',
  '| entries | bare node | no match | ratio | fires | ratio | skipped | ratio | RSS bare / no match / fires (MiB) | RSS ratio | index | first build, no caches | after one new entry: update / rebuild |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
];
for (const { size, t, coldMs, updateMs, rebuildMs, indexBytes, rssBare, rssSilent, rssFiring } of rows) {
  const ms = (k) => `${t[k].median.toFixed(1)} ms`;
  lines.push(
    `| ${size.toLocaleString('en-US')} | ${ms('bare')} | ${ms('silent')} | ${x(t.silent.median, t.bare.median)} | ${ms('firing')} | ${x(t.firing.median, t.bare.median)} | ${ms('skipped')} | ${x(t.skipped.median, t.bare.median)} | ${(rssBare / 1024).toFixed(1)} / ${(rssSilent / 1024).toFixed(1)} / ${(rssFiring / 1024).toFixed(1)} | ${x(Math.max(rssSilent, rssFiring), rssBare)} | ${(indexBytes / 1024).toFixed(0)} KiB | ${coldMs.toFixed(0)} ms | ${updateMs.toFixed(0)} / ${rebuildMs.toFixed(0)} ms |`,
  );
}
const text = lines.join('\n');
console.log(`\n${text}`);
const loads = os.loadavg().map((v) => v.toFixed(1)).join(' ');
writeSection(path.join(import.meta.dirname, 'RESULTS.md'), SECTION, `Written by \`node bench/hook-speed.mjs --runs ${RUNS} --sizes ${SIZES.join(',')}${LESSONS ? ' --lessons' : ''}${SECTION === 'Prompt hook' || process.argv.indexOf('--section') === -1 ? '' : ` --section "${SECTION}"`}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}, load average at the end ${loads}.\n\n${text}\n\nWhat it points to, and how often wrongly, is in "Retrieval" (bench/retrieval.mjs) and "Prompt hook tuning" (bench/hook-tune.mjs).`);
