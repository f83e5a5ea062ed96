// `git-kb history ID` against the length of a data repo's history: whole-process medians next to a bare
// `node -e 0` and to `git log -- PATH` of the same entry, on repos of 1,000 and 5,000 commits where each commit adds
// one entry (entries/ grows with the history, as a repo of notes and session summaries does) and every 50th edits
// the entry asked about, from its first commit on, so the walk reaches the root. Also an id no commit ever had
// (the whole history is searched for a deleted entry). Histories are written by `git fast-import`.
// Writes the "History" section of bench/RESULTS.md.
//   node bench/history.mjs [--sizes 1000,5000] [--runs 11] [--no-write]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { machine, timeSideBySide, writeSection } from './lib/measure.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'bin', 'git-kb');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const sizes = arg('--sizes', '1000,5000').split(',').map(Number);
const runs = Number(arg('--runs', '11'));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-bench-history-'));
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
const TARGET = 'kb-0000target';
const targetPath = `entries/${TARGET}-the-entry-asked-about.md`;
const entry = (id, title, body) => `---\nid: ${id}\ntitle: ${title}\ntype: decision\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n\n${body}\n`;

/** A data repo of `n` commits: init by git-kb, then `n - 1` commits by fast-import. */
function historyRepo(n) {
  const dir = path.join(home, `history-${n}`);
  execFileSync(process.execPath, [CLI, '--data', dir, 'init'], { env, stdio: 'ignore' });
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, env, encoding: 'utf8' }).trim();
  const out = [];
  const at = 1_790_000_000;
  for (let i = 1; i < n; i++) {
    const msg = `add ${i}`;
    out.push(`commit refs/heads/main\ncommitter bench <bench@example.com> ${at + i * 60} +0000\ndata ${msg.length}\n${msg}\n`);
    if (i === 1) out.push(`from ${head}\n`);
    const files = [[`entries/kb-${String(i).padStart(9, '0')}-note-${i}.md`, entry(`kb-${String(i).padStart(9, '0')}`, `Note ${i}`, `Body ${i}.`)]];
    if (i % 50 === 1) files.push([targetPath, entry(TARGET, 'The entry asked about', `Version ${i}.`)]);
    for (const [p, text] of files) out.push(`M 100644 inline ${p}\ndata ${Buffer.byteLength(text)}\n${text}\n`);
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: dir, env, input: out.join('') });
  execFileSync('git', ['reset', '-q', '--hard', 'main'], { cwd: dir, env });
  return dir;
}

const rows = [];
const fmt = (t) => `${t.median.toFixed(0)} ms`;
const ratio = (a, b) => `${(a.median / b.median).toFixed(2)}x`;
for (const n of sizes) {
  const dir = historyRepo(n);
  const t = timeSideBySide(
    {
      node: { cmd: process.execPath, args: ['-e', '0'] },
      gitlog: { cmd: 'git', args: ['-C', dir, 'log', '--format=%H %an %s', '--', targetPath] },
      history: { cmd: process.execPath, args: [CLI, '--data', dir, 'history', TARGET] },
      missing: { cmd: process.execPath, args: [CLI, '--data', dir, 'history', 'kb-neverexisted'], allowFail: true },
    },
    { runs, env },
  );
  rows.push(`| ${n.toLocaleString('en-US')} | ${fmt(t.node)} | ${fmt(t.gitlog)} | ${fmt(t.history)} (${ratio(t.history, t.node)} node, ${ratio(t.history, t.gitlog)} git) | ${fmt(t.missing)} (${ratio(t.missing, t.node)} node) |`);
  console.log(rows.at(-1));
}

const body = `Written by \`node bench/history.mjs\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.

Whole-process medians of ${runs} runs, each command alternated with the others in one loop. Each repo's history has
one commit per entry added (entries/ grows with it) and, every 50th commit, an edit of the entry asked about, whose
first version is in the second commit: \`history\` walks the whole history. \`git log -- PATH\` is the same walk
by git. The last column asks for an id no commit ever had (the search for a deleted entry reads every commit).

| commits | node -e 0 | \`git log -- PATH\` | \`git-kb history ID\` | \`history\` of an id never seen |
|---|---|---|---|---|
${rows.join('\n')}
`;
if (!process.argv.includes('--no-write')) writeSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'History', body);
fs.rmSync(home, { recursive: true, force: true });
