// Core command speed: whole-process medians of git-kb add, search and get next to a bare `node -e 0` and to
// the plain-git command doing the nearest job, on replicated corpora (10,000 and 50,000 entries), and import of
// the real corpora (1,871 notes, 7,013 tldr pages) next to `git add -A && git commit` of the same files. Every pair is measured
// alternately in one run. Writes the "Core commands" section of bench/RESULTS.md.
//   node bench/core.mjs [--sizes 10000,50000] [--runs 21] [--no-write]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS, WORK, copyRepo, replicatedRepo } from './lib/corpus.mjs';
import { machine, timeSideBySide, writeSection } from './lib/measure.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'bin', 'git-kb');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const sizes = arg('--sizes', '10000,50000').split(',').map(Number);
const runs = Number(arg('--runs', '21'));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-bench-'));
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const node = { cmd: process.execPath, args: ['-e', '0'] };
const kb = (data, ...args) => ({ cmd: process.execPath, args: [CLI, '--data', data, ...args], env });
const rows = [];
const ratio = (a, b) => (a / b).toFixed(2);
const fmt = (t) => `${t.median.toFixed(0)} ms`;

for (const n of sizes) {
  const data = copyRepo(replicatedRepo(n), path.join(WORK, `core-${n}`));
  execFileSync(process.execPath, [CLI, '--data', data, 'search', 'warm', 'up'], { env }); // build caches once
  const someId = fs.readdirSync(path.join(data, 'entries')).find((f) => f.endsWith('.md')).slice(0, 13);
  let k = 0;
  const t = timeSideBySide(
    {
      node,
      add: { ...kb(data, 'add', '--type', 'lesson_learned', '--title', 'bench entry', '--tags', 'bench', 'A body for the benchmark.'), before: () => k++ },
      gitAdd: { cmd: 'sh', args: ['-c', 'git add bench-plain.txt && git commit -qm plain'], cwd: data, env, before: (i) => fs.writeFileSync(path.join(data, 'bench-plain.txt'), `run ${i} ${Math.random()}\n`) },
      search: kb(data, 'search', 'rebase interactive', '--limit', '10'),
      gitGrep: { cmd: 'git', args: ['grep', '-il', 'rebase', '--', 'entries'], cwd: data, env, allowFail: true },
      get: kb(data, 'get', someId),
      gitShow: { cmd: 'git', args: ['show', `HEAD:entries/${fs.readdirSync(path.join(data, 'entries')).find((f) => f.startsWith(someId))}`], cwd: data, env },
    },
    { runs },
  );
  // NOTE: plain-git writes made by the benchmark are committed, so git-kb's next search re-checks the data: the
  // search figure above is the steady state after every kind of change that happens in real use.
  rows.push(`| ${n.toLocaleString('en')} | ${fmt(t.node)} | ${fmt(t.add)} (${ratio(t.add.median, t.node.median)}x node, ${ratio(t.add.median, t.gitAdd.median)}x git) | ${fmt(t.search)} (${ratio(t.search.median, t.node.median)}x node, ${ratio(t.search.median, t.gitGrep.median)}x git grep) | ${fmt(t.get)} (${ratio(t.get.median, t.node.median)}x node, ${ratio(t.get.median, t.gitShow.median)}x git show) |`);
  console.log(rows.at(-1));
  execFileSync('git', ['fsck', '--no-progress'], { cwd: data });
  fs.rmSync(data, { recursive: true, force: true });
}

// Import of the real corpora vs plain git on the same files.
const importRows = [];
for (const [label, src] of [['notes', CORPUS], ['tldr pages', path.join(path.dirname(CORPUS), 'tldr-pages')]]) {
  const notes = path.join(WORK, 'import-src');
  fs.rmSync(notes, { recursive: true, force: true });
  execFileSync('cp', ['-a', src, notes]);
  const count = execFileSync('find', [notes, '-name', '*.md', '-type', 'f']).toString().trim().split('\n').length;
  const imp = timeSideBySide(
    {
      import: { ...kb(path.join(WORK, 'import-data'), 'import', notes, '--tags-from-folders', '--redact'), before: () => fs.rmSync(path.join(WORK, 'import-data'), { recursive: true, force: true }) },
      git: {
        cmd: 'sh',
        args: ['-c', 'git init -q . && git add -A && git commit -qm import'],
        cwd: path.join(WORK, 'import-git'),
        env,
        before: () => {
          const d = path.join(WORK, 'import-git');
          fs.rmSync(d, { recursive: true, force: true });
          execFileSync('cp', ['-a', notes, d]);
        },
      },
    },
    { runs: Math.max(5, Math.floor(runs / 3)), warmup: 1 },
  );
  importRows.push(`| ${count.toLocaleString('en')} ${label} (${Math.round(execFileSync('du', ['-sk', notes]).toString().split('\t')[0] / 1024 * 10) / 10} MB) | ${fmt(imp.import)} | ${fmt(imp.git)} | ${ratio(imp.import.median, imp.git.median)}x |`);
  console.log(importRows.at(-1));
}

const body = `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()} by \`node bench/core.mjs\` (medians of ${runs}
whole-process runs, every command alternated with the others in one loop; caches warm, as in daily use).
Targets at 10,000 entries: \`add\` within 4x a bare \`node -e 0\`, \`search\` within 8x, \`get\` within 2x.

| entries | node -e 0 | add | search "rebase interactive" | get ID |
|---|---|---|---|---|
${rows.join('\n')}

The plain-git neighbours: \`git add FILE && git commit\` of one file, \`git grep -il\` over entries/, \`git show
HEAD:FILE\`. Import: \`git-kb import DIR --tags-from-folders --redact\` into a new data repo next to \`git init &&
git add -A && git commit\` of a copy of the same folder (both from a warm page cache).

| import | git-kb import | git add -A && git commit | ratio |
|---|---|---|---|
${importRows.join('\n')}`;
console.log(body);
if (!process.argv.includes('--no-write')) writeSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Core commands', body);
fs.rmSync(home, { recursive: true, force: true });
