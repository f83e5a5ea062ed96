// What `git-kb session record` costs on a big transcript (spec/sessions.md, "Archive"; the detached Stop and
// SessionEnd worker runs the same for a transcript over 4 MB): peak RSS and wall time of one record into a fresh
// data repo and archive, for synthetic transcripts of 10, 50 and 100 MB. Each is a run of turns of three records:
// a prompt, a Bash call, and its result, 64 KB of base64 (the tool output that makes transcripts big).
// With --before REPO (a checkout with a built dist/), the same runs of that build side by side.
// Writes the "Session record memory" section of bench/RESULTS.md.
//
//   node bench/session-memory.mjs [--before REPO] [--sizes 10,50,100] [--runs 3]
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine, writeSection } from './lib/measure.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i === -1 ? dflt : process.argv[i + 1];
};
const SIZES = arg('--sizes', '10,50,100').split(',').map(Number);
const RUNS = Number(arg('--runs', '3'));
const BEFORE = arg('--before');
const WORK = path.join(os.tmpdir(), 'kb-session-memory');
fs.mkdirSync(WORK, { recursive: true });

/** A transcript of about `mb` MB (cached): turns of a prompt, a Bash call and 64 KB of base64 output. */
function bigTranscript(mb) {
  const file = path.join(WORK, `big-${mb}.jsonl`);
  if (fs.existsSync(file)) return file;
  const sid = `sess-big-${mb}`;
  const fd = fs.openSync(`${file}.tmp`, 'w');
  let t = Date.parse('2026-12-05T12:00:00Z');
  const ts = () => new Date((t += 1000)).toISOString();
  const blob = crypto.randomBytes(48 * 1024).toString('base64');
  for (let i = 0, size = 0; size < mb * 2 ** 20; i++) {
    const recs = [
      { type: 'user', uuid: `u${i}`, timestamp: ts(), sessionId: sid, cwd: '/home/u/big', message: { role: 'user', content: `prompt number ${i} please do the thing with the widget` } },
      { type: 'assistant', uuid: `a${i}`, timestamp: ts(), sessionId: sid, message: { role: 'assistant', model: 'm', content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `cat big${i}` } }] } },
      { type: 'user', uuid: `r${i}`, timestamp: ts(), sessionId: sid, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: blob }] } },
    ];
    for (const r of recs) size += fs.writeSync(fd, `${JSON.stringify(r)}\n`);
  }
  fs.closeSync(fd);
  fs.renameSync(`${file}.tmp`, file);
  return file;
}

/** Peak RSS (MB) and wall time (s) of `session record` into a fresh data repo, the median of RUNS runs. */
function record(repo, transcript) {
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    const home = fs.mkdtempSync(path.join(WORK, 'home-'));
    const env = { ...process.env, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache') };
    const kb = path.join(repo, 'bin', 'git-kb');
    const data = path.join(home, 'data');
    spawnSync(kb, ['--data', data, 'add', '--type', 'decision', '--title', 'x', '--', 'y'], { env });
    const r = spawnSync('/usr/bin/time', ['-f', '%M %e', kb, '--data', data, 'session', 'record', '--transcript', transcript], { env, encoding: 'utf8' });
    const m = /(\d+) ([\d.]+)\s*$/.exec(r.stderr.trim());
    if (r.status !== 0 || !m) throw new Error(`session record failed: ${r.stderr}`);
    out.push({ rss: Number(m[1]) / 1024, s: Number(m[2]) });
    fs.rmSync(home, { recursive: true, force: true });
  }
  const median = (k) => out.map((o) => o[k]).sort((a, b) => a - b)[Math.floor(out.length / 2)];
  return { rss: median('rss'), s: median('s') };
}

const rows = [];
for (const mb of SIZES) {
  const t = bigTranscript(mb);
  const size = fs.statSync(t).size / 2 ** 20;
  const after = record(ROOT, t);
  const before = BEFORE ? record(path.resolve(BEFORE), t) : undefined;
  const cell = (x) => `${Math.round(x.rss)} MB (${(x.rss / size).toFixed(1)}x), ${x.s.toFixed(1)} s`;
  rows.push(`| ${size.toFixed(0)} MB | ${before ? `${cell(before)} | ` : ''}${cell(after)} |`);
  console.log(rows.at(-1));
}
const head = BEFORE ? '| transcript | before: peak RSS, time | after: peak RSS, time |\n|---|---|---|' : '| transcript | peak RSS, time |\n|---|---|';
writeSection(
  path.join(ROOT, 'bench/RESULTS.md'),
  'Session record memory',
  `Written by \`bench/session-memory.mjs\` on ${new Date().toISOString().slice(0, 10)}; ${machine()}. \`git-kb session record\` of one
synthetic transcript (turns of a prompt, a Bash call and 64 KB of base64 output) into a fresh data repo and archive,
the median of ${RUNS} runs; peak RSS by GNU time, and its multiple of the transcript's size (about 60 MB of it is
the process itself, whatever the transcript). Before: the transcript read whole, as one string, copied again for the
forbidden check, its redaction and its compression. After: read line by line (spec/sessions.md, "Archive", "Memory").

${head}
${rows.join('\n')}`,
);
