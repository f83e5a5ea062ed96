// What the turn log costs (spec/sessions.md, "Turns", "Archive"). A data repo of the replicated corpus
// (default 10,000 entries) with the turn logs of 1,000 synthetic sessions (20 turns each: a prompt, two replies
// and two tool calls with 1 to 4 KB of output, from the corpus notes). Whole-process medians, alternated in one
// run with a bare `node -e 0`:
//   - `git-kb search` with the turn index current, with one session's log changed since (the usual case while
//     a session runs), and with `--no-turns` (the entries alone);
//   - the first search after the turn store appeared (the index built from every log);
//   - a Stop hook on a 200-turn transcript (about 2 MB) with one new turn appended each run (the archive
//     appends, the log is rewritten).
// Writes the "Session turns" section of bench/RESULTS.md.
//
//   node bench/session-turns.mjs [--size 10000] [--sessions 1000] [--runs 15]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { benchEnv, CLI, HOOK, importTs } from './hook-lib.mjs';
import { copyRepo, readCorpus, replicatedRepo, WORK } from './lib/corpus.mjs';
import { machine, timeSideBySide, writeSection } from './lib/measure.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const SIZE = Number(arg('--size', '10000'));
const SESSIONS = Number(arg('--sessions', '1000'));
const RUNS = Number(arg('--runs', '15'));
const TURNS = 20;

const { parseTranscript } = await importTs('src/core/sessions/transcript.ts');
const { sessionLog } = await importTs('src/core/sessions/turns.ts');

const notes = readCorpus();
let clock = Date.UTC(2026, 0, 1);

/** Transcript lines of one turn: a prompt, a reply, two Bash calls with output, a last reply. */
function turnLines(sid, cwd, i, k) {
  const note = (j) => notes[(i * 31 + k * 7 + j) % notes.length];
  const rec = (r) => {
    clock += 1000;
    return JSON.stringify({ sessionId: sid, cwd, gitBranch: 'main', uuid: `${sid}-${k}-${clock}`, timestamp: new Date(clock).toISOString(), ...r });
  };
  const out = [rec({ type: 'user', message: { role: 'user', content: `${note(0).title}: can you check this in ${note(0).folder}?` } })];
  out.push(rec({ type: 'assistant', message: { id: `m-${clock}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: note(1).body.slice(0, 600) }] } }));
  for (const t of [0, 1]) {
    const id = `t-${i}-${k}-${t}`;
    out.push(rec({ type: 'assistant', message: { id: `m-${id}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: `grep -rn "${note(2 + t).title.split(' ')[0]}" src` } }] } }));
    const output = (note(3 + t).body + note(4 + t).body).slice(0, 1000 + ((i + k + t) % 4) * 1000);
    out.push(rec({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] }, toolUseResult: { stdout: output } }));
  }
  out.push(rec({ type: 'assistant', message: { id: `m-${clock}`, role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: note(5).body.slice(0, 400) }] } }));
  return out;
}

/** A data repo with SESSIONS turn logs (cached). */
function repoWithTurns() {
  const dir = path.join(WORK, `turns-${SIZE}-${SESSIONS}`);
  if (fs.existsSync(path.join(dir, '.git', 'git-kb', 'turns'))) return dir;
  copyRepo(replicatedRepo(SIZE), dir);
  const turns = path.join(dir, '.git', 'git-kb', 'turns');
  fs.mkdirSync(turns, { recursive: true });
  for (let i = 0; i < SESSIONS; i++) {
    const sid = `c${i.toString(16).padStart(7, '0')}-7u25-4000-8000-${i.toString().padStart(12, '0')}`;
    const lines = [];
    for (let k = 0; k < TURNS; k++) lines.push(...turnLines(sid, `/home/dev/src/project-${i % 50}`, i, k));
    const log = sessionLog(parseTranscript(lines.join('\n')), sid);
    fs.writeFileSync(path.join(turns, `${sid}.json`), JSON.stringify(log));
  }
  return dir;
}

const env = benchEnv();
const dir = repoWithTurns();
const logs = fs.readdirSync(path.join(dir, '.git', 'git-kb', 'turns')).filter((n) => n.endsWith('.json') && n !== 'index.json' && n !== 'base.json' && !n.startsWith('base-'));
const logBytes = logs.reduce((n, f) => n + fs.statSync(path.join(dir, '.git', 'git-kb', 'turns', f)).size, 0);
const search = (extra = []) => ({ cmd: process.execPath, args: [CLI, '--data', dir, 'search', 'connection refused retry', ...extra], env });
const node = { cmd: process.execPath, args: ['-e', '0'], env };
const turnsRoot = path.join(dir, '.git', 'git-kb', 'turns');
const indexFiles = () => fs.readdirSync(turnsRoot).filter((n) => n === 'base.json' || n.startsWith('base-'));

// The first search after the turn store appeared builds the index from every log.
for (const n of indexFiles()) fs.rmSync(path.join(turnsRoot, n), { force: true });
spawnSync(process.execPath, [CLI, '--data', dir, 'search', 'warm the entry index', '--no-turns'], { env });
const t0 = process.hrtime.bigint();
const first = spawnSync(search().cmd, search().args, { env, encoding: 'utf8' });
const firstMs = Number(process.hrtime.bigint() - t0) / 1e6;
if (first.status !== 0) throw new Error(first.stderr);
const indexBytes = indexFiles().reduce((n, f) => n + fs.statSync(path.join(turnsRoot, f)).size, 0);

// One log touched before each run: the search takes that session out of the base and puts it in again.
const touched = path.join(dir, '.git', 'git-kb', 'turns', logs[0]);
const touch = () => {
  const t = new Date();
  fs.utimesSync(touched, t, t);
};
const reads = timeSideBySide(
  {
    node,
    current: search(),
    changed: { ...search(), before: touch },
    entries: search(['--no-turns']),
  },
  { runs: RUNS },
);

// A Stop on a 200-turn transcript, one turn appended before each run.
const stopDir = path.join(WORK, 'turns-stop');
copyRepo(replicatedRepo(SIZE), stopDir);
const sid = 'd0000000-7u25-4000-8000-000000000001';
const transcript = path.join(WORK, 'turns-stop.jsonl');
const lines = [];
for (let k = 0; k < 200; k++) lines.push(...turnLines(sid, '/home/dev/src/stop', 7, k));
fs.writeFileSync(transcript, `${lines.join('\n')}\n`);
const stopEnv = { ...env, GIT_KB_DATA: stopDir, KB_SESSION_DEBOUNCE_S: '100000', KB_ARCHIVE_DIR: path.join(WORK, 'turns-archive') };
fs.rmSync(stopEnv.KB_ARCHIVE_DIR, { recursive: true, force: true });
// The payload carries the turn's last reply, as Claude Code's does (the hook finds it in the file at once).
const lastReply = (turn) => JSON.parse(turn.at(-1)).message.content[0].text;
const payloadOf = (reply) => JSON.stringify({ session_id: sid, transcript_path: transcript, cwd: '/home/dev/src/stop', hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: reply });
spawnSync(process.execPath, [HOOK, 'stop'], { env: stopEnv, input: payloadOf(lastReply(lines.slice(-6))) }); // the first: archive written whole, summary committed
let k = 200;
const stop = { cmd: process.execPath, args: [HOOK, 'stop'], env: stopEnv, input: '' };
stop.before = () => {
  const turn = turnLines(sid, '/home/dev/src/stop', 7, k++);
  fs.appendFileSync(transcript, `${turn.join('\n')}\n`);
  stop.input = payloadOf(lastReply(turn));
};
const stops = timeSideBySide({ node: { ...node, env: stopEnv }, stop }, { runs: RUNS });
const transcriptMb = fs.statSync(transcript).size / 2 ** 20;

const ms = (x) => `${Math.round(x)} ms`;
const ratio = (a, b) => `${(a / b).toFixed(2)}x`;
const body = `Written by \`bench/session-turns.mjs\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.

A data repo of ${SIZE.toLocaleString('en')} entries with the turn logs of ${SESSIONS.toLocaleString('en')} sessions of ${TURNS} turns (a prompt, two
replies, two Bash calls with 1 to 4 KB of output each): ${(logBytes / 2 ** 20).toFixed(1)} MB of logs, a turn index of
${(indexBytes / 2 ** 20).toFixed(1)} MB in its base (document tables and one shard per first character; a search reads the tables and
the shards of its query's first characters). Whole-process medians of ${RUNS} alternated runs, beside a bare \`node -e 0\`.

| | median | p90 | vs bare node |
|---|---|---|---|
| bare \`node -e 0\` | ${ms(reads.node.median)} | ${ms(reads.node.p90)} | 1.00x |
| \`search\`, entries only (\`--no-turns\`) | ${ms(reads.entries.median)} | ${ms(reads.entries.p90)} | ${ratio(reads.entries.median, reads.node.median)} |
| \`search\`, turn index current | ${ms(reads.current.median)} | ${ms(reads.current.p90)} | ${ratio(reads.current.median, reads.node.median)} |
| \`search\`, one session's log changed since the base | ${ms(reads.changed.median)} | ${ms(reads.changed.p90)} | ${ratio(reads.changed.median, reads.node.median)} |

The first search after the turn store appeared (the base built from all ${SESSIONS.toLocaleString('en')} logs): ${ms(firstMs)}, once.

**A Stop** on a ${transcriptMb.toFixed(1)} MB transcript (200 turns and more), one turn appended before each run (the archive
appends one gzip member, the turn log is rewritten; the summary is debounced): median ${ms(stops.stop.median)}
(p90 ${ms(stops.stop.p90)}) against ${ms(stops.node.median)} for a bare node.
`;
writeSection(path.join(import.meta.dirname, 'RESULTS.md'), 'Session turns', body);
console.log(body);
