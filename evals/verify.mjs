// The deterministic verifier of the eval suite: after a run, it inspects the scratch data repo with the real git
// CLI (and git-kb's own grader for the compaction) instead of trusting what the agent said. `claude plugin eval`
// grades each case with the regex, file and tool graders of its case.yaml; this adds the checks those graders
// cannot make: the commits made since the seed (how many, their subjects, the files they touched), a clean and
// fsck-clean work tree, and the state the hooks left.
//
//   node evals/verify.mjs CASE WORKDIR      (WORKDIR: the run's work folder, holding kb-data/; exit 0 PASS, 1 FAIL)
// A run's work folder is kept by `claude plugin eval --keep-temp`: <kept dir>/home/cwd.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const CLI = path.resolve(import.meta.dirname, '..', 'bin', 'git-kb');

function git(kb, args) {
  // NOTE: the kept folder may hold agent-written files; no hooks, no system or global config.
  return execFileSync('git', ['-c', 'core.hooksPath=/dev/null', '-c', `safe.directory=${kb}`, ...args], { cwd: kb, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } });
}
function kbCli(kb, args) {
  try {
    return { code: 0, out: execFileSync(process.execPath, [CLI, '--data', kb, ...args], { encoding: 'utf8', env: { ...process.env, KB_SESSIONS: '0' } }) };
  } catch (err) {
    return { code: err.status ?? 1, out: String(err.stdout ?? '') };
  }
}

/** The commits since the seed, oldest first, session summaries aside: {subject, files: [[status, path]]}. */
function commitsSinceSeed(kb) {
  const ids = git(kb, ['rev-list', '--reverse', 'eval-seed..HEAD']).split('\n').filter(Boolean);
  const commits = ids.map((id) => ({
    subject: git(kb, ['log', '-1', '--format=%s', id]).trim(),
    files: git(kb, ['show', '--name-status', '--format=', id]).split('\n').filter(Boolean).map((l) => l.split('\t')),
  }));
  // The session hooks' own commits (a summary of the run's session under sessions/) are the plugin at work, not the task.
  return commits.filter((c) => !(c.files.length > 0 && c.files.every(([, p]) => p.startsWith('sessions/'))));
}

function ledgers(kb) {
  const dir = path.join(kb, '.git', 'git-kb', 'prompt', 'ledger');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

const fileOf = (kb, rel) => fs.readFileSync(path.join(kb, rel), 'utf8');

/** One change: exactly one commit since the seed, adding one entry; returns that entry's text. */
function oneAdd(kb, fail, subject) {
  const c = commitsSinceSeed(kb);
  if (c.length !== 1) return void fail(`expected 1 commit since the seed, found ${c.length}`);
  if (!subject.test(c[0].subject)) fail(`commit subject ${JSON.stringify(c[0].subject)} does not match ${subject}`);
  const added = c[0].files.filter(([s, p]) => s === 'A' && /^entries\/kb-[0-9a-z]+-.*\.md$/.test(p));
  if (added.length !== 1 || c[0].files.length !== 1) return void fail(`expected the commit to add one entry, it touched ${JSON.stringify(c[0].files)}`);
  return fileOf(kb, added[0][1]);
}

const CHECKS = {
  'add-decision': (kb, fail) => {
    const text = oneAdd(kb, fail, /^add kb-[0-9a-z]+: .*pgbouncer/i);
    if (text && !/^type: decision$/m.test(text)) fail('the new entry is not a decision');
  },
  'add-bookmark': (kb, fail) => {
    const text = oneAdd(kb, fail, /^add kb-[0-9a-z]+: /);
    if (text && !/^type: bookmark$/m.test(text)) fail('the new entry is not a bookmark');
    if (text && !/^url: https:\/\/www\.postgresql\.org\/docs\/current\/routine-vacuuming\.html$/m.test(text)) fail('the bookmark does not carry the URL');
  },
  'edit-entry': (kb, fail) => {
    const c = commitsSinceSeed(kb);
    if (c.length !== 1) return fail(`expected 1 commit since the seed, found ${c.length}`);
    if (JSON.stringify(c[0].files) !== JSON.stringify([['M', 'entries/kb-evalredis01.md']])) fail(`expected only entries/kb-evalredis01.md modified, got ${JSON.stringify(c[0].files)}`);
    const text = fileOf(kb, 'entries/kb-evalredis01.md');
    if (!text.includes('allkeys-lfu') || !text.includes('Use allkeys-lru for pure caches')) fail('the entry lacks the addition or lost its text');
  },
  'search-keyword': (kb, fail) => noCommits(kb, fail),
  'search-type': (kb, fail) => noCommits(kb, fail),
  'hook-fires': (kb, fail) => {
    noCommits(kb, fail);
    const l = ledgers(kb);
    if (!l.some((x) => x.ids.includes('kb-evalpg0001'))) fail(`no session ledger records the pointer to kb-evalpg0001 (ledgers: ${JSON.stringify(l)})`);
  },
  'hook-quiet': (kb, fail) => {
    noCommits(kb, fail);
    const l = ledgers(kb);
    if (l.length) fail(`the hook looked at "git status" (ledgers: ${JSON.stringify(l)})`);
  },
  compaction: (kb, fail) => {
    if (commitsSinceSeed(kb).length < 1) fail('no commit since the seed');
    const r = kbCli(kb, ['compact', 'check', 'kernel', '--baseline', 'eval-seed', '--json']);
    let grade;
    try {
      grade = JSON.parse(r.out);
    } catch {
      return fail(`compact check printed no JSON (exit ${r.code})`);
    }
    if (r.code !== 0 || grade.verdict !== 'PASS') fail(`compact check: ${grade.verdict} (exit ${r.code}): ${(grade.defects ?? []).map((d) => d.message).join('; ')}`);
  },
  promotion: (kb, fail) => {
    const c = commitsSinceSeed(kb);
    if (c.length !== 1 || JSON.stringify(c[0].files) !== JSON.stringify([['M', 'entries/kb-evalrec001.md']])) fail(`expected one commit modifying entries/kb-evalrec001.md, got ${JSON.stringify(c)}`);
    const s = JSON.parse(kbCli(kb, ['status', '--json']).out);
    if (s.memory.kernel.entries !== 1) fail(`expected 1 kernel entry, status says ${s.memory.kernel.entries}`);
    if (s.memory.promotion_candidates.length) fail('the lesson is still a promotion candidate');
  },
};

function noCommits(kb, fail) {
  const n = commitsSinceSeed(kb).length;
  if (n) fail(`a read-only task made ${n} commits`);
}

/** The failures of one case's checks on a run's work folder (empty: PASS). */
export function verifyCase(name, workdir) {
  const kb = path.join(workdir, 'kb-data');
  const failures = [];
  const fail = (m) => failures.push(m);
  const check = CHECKS[name];
  if (!check) return [`no checks for case ${name}`];
  if (!fs.existsSync(path.join(kb, '.git'))) return [`no scratch data repo at ${kb}`];
  try {
    const status = git(kb, ['status', '--porcelain']).trim();
    if (status) fail(`the data repo is not clean:\n${status}`);
    git(kb, ['fsck', '--strict', '--no-progress', '--no-dangling']);
    check(kb, fail);
  } catch (err) {
    fail(`verifier error: ${err.message}`);
  }
  return failures;
}

export const CASES = Object.keys(CHECKS);

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const [name, workdir] = process.argv.slice(2);
  if (!name || !workdir) {
    console.error('usage: node evals/verify.mjs CASE WORKDIR');
    process.exit(2);
  }
  const failures = verifyCase(name, path.resolve(workdir));
  console.log(failures.length ? `FAIL ${name}\n${failures.map((f) => `  - ${f}`).join('\n')}` : `PASS ${name}`);
  process.exit(failures.length ? 1 : 0);
}
