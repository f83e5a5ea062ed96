// Read-command cost against repo size (issue 12): CPU time (user + system, read by a probe preloaded with
// --require into every process, the bare one included) of `get ID`, `list --limit 20`, `status`, `lint` and
// `search`, each paired with a bare `node -e 0` in the same loop, on copies of the replicated corpus. CPU time,
// not wall time: the machine is shared, and CPU time barely moves when other processes load it.
//   node bench/cost.mjs [--sizes 1871,10000,50000] [--runs 15] [--only get,list] [--cli PATH] [--reuse] [--no-write]
import { spawnSync, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WORK, copyRepo, replicatedRepo } from './lib/corpus.mjs';
import { machine, writeSection } from './lib/measure.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = arg('--cli', path.join(ROOT, 'bin', 'git-kb')); // --cli: another build's bin/git-kb (a before/after pair)
const reuse = process.argv.includes('--reuse'); // keep the copy of the corpus between runs (bench/.work/cost-N)
const sizes = arg('--sizes', '10000,50000').split(',').map(Number);
const runs = Number(arg('--runs', '15'));
const only = arg('--only', '')?.split(',').filter(Boolean);
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-cost-'));
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
fs.mkdirSync(WORK, { recursive: true });
// CommonJS, preloaded with --require: an ES module probe would start Node's ES module loader in every process.
const probe = path.join(WORK, 'cpu-probe.cjs');
fs.writeFileSync(probe, "process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write(`\\ncpu:${u.user + u.system}\\n`); });\n");

/** CPU ms of one node process (args after the probe). */
function cpu(args, { allowFail = false } = {}) {
  const r = spawnSync(process.execPath, ['--require', probe, ...args], { env, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  if (r.status !== 0 && !allowFail) throw new Error(`${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  const us = Number(/cpu:(\d+)/.exec(r.stderr)?.[1]);
  return us / 1000;
}

const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const rows = [];
for (const n of sizes) {
  const data = reuse && fs.existsSync(path.join(WORK, `cost-${n}`, '.git')) ? path.join(WORK, `cost-${n}`) : copyRepo(replicatedRepo(n), path.join(WORK, `cost-${n}`));
  const kb = (...a) => [CLI, '--data', data, ...a];
  execFileSync(process.execPath, kb('search', 'warm', 'up'), { env });
  if (!only?.length || only.some((k) => k.startsWith('lint'))) spawnSync(process.execPath, kb('lint'), { env, stdio: 'ignore' }); // lint records what it checked (exits 5 on the corpus's own findings)
  const someId = fs.readdirSync(path.join(data, 'entries')).find((f) => f.endsWith('.md')).slice(0, 13);
  const editFile = fs.readdirSync(path.join(data, 'entries')).filter((f) => f.endsWith('.md'))[7];
  // In loop order: an entry edited by hand (a line appended), then lint, which re-reads that file only; list
  // right after that edit (the summary made again from its stored facts with the one file read); then list,
  // status and lint with nothing changed since, as most commands run.
  const cases = {
    get: () => kb('get', someId),
    lintOne: (i) => {
      fs.appendFileSync(path.join(data, 'entries', editFile), `\nedit ${i}\n`);
      return kb('lint');
    },
    listEdited: () => kb('list', '--limit', '20'),
    list: () => kb('list', '--limit', '20'),
    status: () => kb('status'),
    lint: () => kb('lint'),
    search: () => kb('search', 'rebase interactive', '--limit', '10'),
  };
  const names = Object.keys(cases).filter((k) => !only?.length || only.includes(k));
  const samples = Object.fromEntries(['node', ...names].map((k) => [k, []]));
  for (let i = 0; i < runs + 2; i++) {
    const bare = cpu(['-e', '0']);
    if (i >= 2) samples.node.push(bare);
    for (const k of names) {
      const ms = cpu(cases[k](i), { allowFail: k.startsWith('lint') });
      if (i >= 2) samples[k].push(ms);
    }
  }
  const node = median(samples.node);
  const cells = names.map((k) => `${median(samples[k]).toFixed(0)} ms (${(median(samples[k]) / node).toFixed(2)}x)`);
  rows.push({ n, node, names, cells });
  console.log(`${n}: node ${node.toFixed(1)} ms | ${names.map((k, j) => `${k} ${cells[j]}`).join(' | ')}`);
  if (!reuse) fs.rmSync(data, { recursive: true, force: true });
}

const header = rows[0].names;
const body = `Written by \`node bench/cost.mjs\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}; load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}.

CPU time (user + system of the whole process, read by a probe preloaded with \`--require\` into every command, the
bare one included), medians of ${runs} runs, each command alternated with a bare \`node -e 0\` in one loop; caches
warm (one search and one lint beforehand), as in daily use; ratios to the bare node of the same loop. Each
round first edits one entry by hand: \`lint\`, one file changed, and \`list\` right after a hand edit are the
first commands to see it; the other columns run with nothing changed since.

| entries | node -e 0 | ${header.map((k) => ({ get: '`get ID`', lintOne: '`lint`, one file changed', listEdited: '`list --limit 20` right after a hand edit', list: '`list --limit 20`', status: '`status`', lint: '`lint`, nothing changed', search: '`search`' })[k]).join(' | ')} |
|---|---|${header.map(() => '---').join('|')}|
${rows.map((r) => `| ${r.n.toLocaleString('en')} | ${r.node.toFixed(0)} ms | ${r.cells.join(' | ')} |`).join('\n')}`;
console.log(body);
if (!process.argv.includes('--no-write')) writeSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Read commands against repo size', body);
fs.rmSync(home, { recursive: true, force: true });
