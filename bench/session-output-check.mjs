// Checks that two builds of git-kb write the same session outputs (spec/sessions.md): for each transcript, the
// summary (its `updated` line aside), the turn log and the archive's decompressed text, and what `session record`
// prints (commit ids aside). Used to show that a change to how a transcript is read (bench/session-memory.mjs)
// changed no output.
//
//   node bench/session-output-check.mjs BEFORE_REPO AFTER_REPO [--big FILE]...
//
// BEFORE_REPO and AFTER_REPO are checkouts with a built dist/ (npm run bundle).
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const [before, after] = process.argv.slice(2, 4).map((p) => path.resolve(p));
if (!before || !after) throw new Error('usage: node bench/session-output-check.mjs BEFORE_REPO AFTER_REPO [--big FILE]...');
const bigs = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--big' ? [path.resolve(a)] : []));
const FIX = path.join(after, 'test/fixtures/transcripts');
const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-outcheck-'));

let seed = 7;
const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
const pick = (alphabet, n) => Array.from({ length: n }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const AL = UP + UP.toLowerCase() + '0123456789';

/** JSONL of a small session whose prompts, commands and tool output carry secrets and a .env read. */
function secretTranscript(sid) {
  let t = Date.parse('2026-11-01T10:00:00Z');
  const ts = () => new Date((t += 1000)).toISOString();
  const env = `DB_PASSWORD=${pick(AL, 20)}\nAPI_TOKEN=${pick(AL, 32)}\nMODE=staging\n`;
  const gh = `ghp_${pick(AL, 36)}`;
  const aws = `AKIA${pick(UP + '234567', 16)}`;
  const rec = (r) => JSON.stringify({ sessionId: sid, cwd: '/home/u/app', gitBranch: 'main', timestamp: ts(), uuid: crypto.randomUUID(), ...r });
  const tool = (id, name, input, out) => [
    rec({ type: 'assistant', message: { id: `m-${id}`, role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id, name, input }] } }),
    rec({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: out }] } }),
  ];
  const value = env.split('\n')[1].split('=')[1];
  return [
    '\ufeff' + rec({ type: 'user', message: { role: 'user', content: `deploy with token ${gh} please` } }),
    ...tool('t1', 'Read', { file_path: '/home/u/app/.env' }, env),
    ...tool('t2', 'Bash', { command: `curl -H "Authorization: Bearer ${value}" https://api.example.com` }, `ok ${aws} done\npassword=${pick(AL, 14)}`),
    rec({ type: 'assistant', message: { id: 'm-9', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: `Used ${value} and https://github.com/o/r/pull/12` }] } }),
    '{"type":"user","broken',
    rec({ type: 'user', message: { role: 'user', content: 'second prompt with caf\u00e9 \u03a3\u03a3 and \u{1f600}' } }) + '\r',
    '   ',
    rec({ type: 'assistant', message: { id: 'm-10', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'done' }] } }),
    '{"type":"user","sessionId":"' + sid + '","message":{"content":"cut',
  ].join('\n');
}

/** One run: a fresh HOME and data repo, `host forbid` for each pattern, then `session record` of each step. */
function run(repo, name, steps, opts = {}) {
  const { forbid = [], env = {} } = opts;
  const home = path.join(WORK, `${name}-${repo === before ? 'before' : 'after'}`);
  const data = path.join(home, 'data');
  fs.mkdirSync(home, { recursive: true });
  const e = { ...process.env, HOME: home, XDG_CACHE_HOME: path.join(home, '.cache'), GIT_KB_CODE_CACHE: '0', ...env };
  const kb = (...args) => spawnSync(path.join(repo, 'bin/git-kb'), ['--data', data, ...args], { env: e, encoding: 'utf8', maxBuffer: 1 << 26 });
  kb('add', '--type', 'decision', '--title', 'x', '--', 'y');
  for (const p of forbid) {
    const r = kb('host', 'forbid', p);
    if (r.status !== 0) throw new Error(`host forbid ${p}: ${r.stderr}`);
  }
  const printed = [];
  for (const step of steps) {
    const file = path.join(home, 'transcript.jsonl');
    fs.writeFileSync(file, step.text ?? fs.readFileSync(step.file).subarray(0, step.bytes));
    const r = kb('session', 'record', '--json', '--transcript', file);
    let o;
    try {
      o = JSON.parse(r.stdout);
    } catch {
      o = { stdout: r.stdout, stderr: r.stderr };
    }
    if (o.commit) o.commit = '…';
    printed.push(`${r.status} ${JSON.stringify(o).replaceAll(home, 'HOME')}`);
  }
  const out = { printed };
  if (opts.show) {
    // The turn log rebuilt from the archive (the store deleted): `session show --turns` and one turn in full.
    fs.rmSync(path.join(data, '.git/git-kb/turns'), { recursive: true, force: true });
    const sid = JSON.parse(printed.at(-1).slice(printed.at(-1).indexOf(' ') + 1)).sessionId;
    out.show = kb('session', 'show', sid, '--turns', '--json').stdout + kb('session', 'show', sid, '--turn', '1', '--json').stdout;
  }
  const walk = (dir, keep) => {
    let names = [];
    try {
      names = fs.readdirSync(dir, { recursive: true }).map(String).sort();
    } catch {
      /* none */
    }
    return names.filter((n) => keep(n) && fs.statSync(path.join(dir, n)).isFile()).map((n) => [n, path.join(dir, n)]);
  };
  for (const [n, f] of walk(path.join(data, 'sessions'), (n) => n.endsWith('.md'))) {
    out[`summary ${n}`] = fs.readFileSync(f, 'utf8').replace(/^updated: .*$/m, 'updated: …').replaceAll(home, 'HOME');
  }
  for (const [n, f] of walk(path.join(data, '.git/git-kb/turns'), (n) => n.endsWith('.json') && !n.startsWith('base'))) {
    out[`turns ${n}`] = fs.readFileSync(f, 'utf8').replaceAll(home, 'HOME');
  }
  const arch = env.KB_ARCHIVE_DIR ?? path.join(home, '.git-kb/archive');
  for (const [n, f] of walk(arch, (n) => n.endsWith('.jsonl.gz'))) {
    const meta = JSON.parse(fs.readFileSync(f.replace(/\.jsonl\.gz$/, '.json'), 'utf8'));
    const gz = fs.readFileSync(f).subarray(0, meta.gzBytes);
    out[`archive ${n}`] = gz.length ? zlib.gunzipSync(gz).toString('utf8') : '';
    out[`archive meta ${n}`] = JSON.stringify({ ...meta, gzBytes: undefined, mtimeMs: undefined, transcript: undefined });
  }
  fs.rmSync(home, { recursive: true, force: true });
  return out;
}

const cases = [];
for (const f of fs.readdirSync(FIX).filter((n) => n.endsWith('.jsonl')).sort()) cases.push({ name: f, steps: [{ file: path.join(FIX, f) }] });
const coding = path.join(FIX, 'coding-session.jsonl');
cases.push({ name: 'appended', steps: [{ file: coding, bytes: 9000 }, { file: coding, bytes: 15000 }, { file: coding }], show: true });
cases.push({ name: 'archive-off', steps: [{ file: coding }], env: { KB_ARCHIVE: '0' } });
const secrets = secretTranscript('sess-secrets-1');
cases.push({ name: 'secrets', steps: [{ text: secrets }], show: true });
// Bytes that are not UTF-8 (a sequence cut by a line break, stray bytes inside a JSON string, a cut last line).
const raw = Buffer.concat([Buffer.from(secrets.split('\n').slice(0, 3).join('\n')), Buffer.from([0x0a, 0xe2, 0x82, 0x0a]), Buffer.from('{"type":"user","sessionId":"sess-bytes","uuid":"b1","timestamp":"2026-11-01T10:00:09Z","message":{"role":"user","content":"caf'), Buffer.from([0xc3, 0xff, 0xe2, 0x82]), Buffer.from('"}}\n'), Buffer.from(secrets.split('\n').slice(3).join('\n')), Buffer.from([0xf0, 0x9f])]);
cases.push({ name: 'bytes', steps: [{ text: raw }], show: true });
cases.push({ name: 'secrets-appended', steps: [{ text: secrets.slice(0, 900) }, { text: secrets }] });
cases.push({ name: 'forbidden-word', steps: [{ text: secrets.replace('staging', 'whatbox-07') }], forbid: ['whatbox'], expectNothing: true });
cases.push({ name: 'forbidden-after-archive', steps: [{ text: secrets }, { text: `${secrets}\n${JSON.stringify({ type: 'user', sessionId: 'sess-secrets-1', uuid: 'late-1', timestamp: '2026-11-01T11:00:00Z', message: { role: 'user', content: 'now ssh to the whatboxes' } })}\n` }], forbid: ['whatbox'], expectNoLog: true });
cases.push({ name: 'forbidden-regex', steps: [{ file: coding }], forbid: ['/roundM[a-z]+/'] });
cases.push({ name: 'forbidden-anchored', steps: [{ file: coding }], forbid: ['/^Bash \\{/'] });
cases.push({ name: 'forbidden-across-lines', steps: [{ text: secrets }], forbid: ['/please\\ndeploy/'] });
cases.push({ name: 'forbidden-multiline-anchor', steps: [{ text: secrets }], forbid: ['/^\\/home\\/u\\/app$/m'] });
for (const b of bigs) {
  cases.push({ name: path.basename(b), steps: [{ file: b }], show: true });
  cases.push({ name: `${path.basename(b)} appended`, steps: [{ file: b, bytes: Math.floor(fs.statSync(b).size / 2) }, { file: b }] });
  cases.push({ name: `${path.basename(b)} forbidden`, steps: [{ file: b }], forbid: ['/widget\\nBash \\{"command":"cat big0"/'] });
}

let bad = 0;
for (const c of cases) {
  const a = run(before, c.name, c.steps, c);
  const b = run(after, c.name, c.steps, c);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const diff = keys.filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
  const stored = Object.keys(b).filter((k) => k !== 'printed');
  // A forbidden transcript leaves nothing; one that turned forbidden after a summary was committed, no log nor archive.
  const left = stored.filter((k) => c.expectNothing || (c.expectNoLog && !k.startsWith('summary')));
  const nothing = left.length > 0 ? ` (expected none of: ${left.join(', ')})` : '';
  if (diff.length || nothing) bad++;
  console.log(`${diff.length || nothing ? 'DIFF' : 'same'}  ${c.name}: ${stored.length} outputs, ${b.printed.map((p) => p.match(/"status":"(\w+)"/)?.[1] ?? p.slice(0, 60)).join(' → ')}${diff.length ? `; differ: ${diff.join(', ')}` : ''}${nothing}`);
}
fs.rmSync(WORK, { recursive: true, force: true });
console.log(bad ? `${bad} case(s) differ` : 'all outputs identical');
process.exit(bad ? 1 : 0);
