/**
 * Turns and the archive through the CLI (spec/sessions.md, "Turns", "Archive"): a recorded session is searchable
 * turn by turn, tool output included (ranked last, shown on request); `session show --turns/--turn/--grep` reads it
 * from the archive once the transcript and the turn store are gone; the archive grows by appends that a killed
 * writer cannot spoil, is redone when a secret value is learnt, keeps nothing of a forbidden session, and is
 * pruned after its retention.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kb, kbJson, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { sessionScrubber } from '../../src/core/sessions/summary.js';
import { parseTranscript, redactTranscriptLine } from '../../src/core/sessions/transcript.js';
import { sessionLog } from '../../src/core/sessions/turns.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-turns-');
});
afterEach(() => sb.cleanup());

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => kb(sb, ['--data', sb.data, ...args], { env });
const json = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const r = await run([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`git-kb ${args.join(' ')}: exit ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout);
};
const archiveDir = (): string => path.join(sb.home, '.git-kb', 'archive');

let clock = Date.UTC(2026, 4, 1, 10, 0, 0);
function rec(sessionId: string, r: Record<string, unknown>): string {
  clock += 1000;
  return `${JSON.stringify({ sessionId, cwd: '/home/u/billing', gitBranch: 'main', uuid: `${sessionId}-${clock}`, timestamp: new Date(clock).toISOString(), ...r })}\n`;
}
const prompt = (sid: string, text: string): string => rec(sid, { type: 'user', message: { role: 'user', content: text } });
const reply = (sid: string, text: string): string => rec(sid, { type: 'assistant', message: { id: `m-${clock}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text }] } });
const bash = (sid: string, id: string, command: string, output: string): string =>
  rec(sid, { type: 'assistant', message: { id: `m-${id}`, role: 'assistant', model: 'claude-test-1', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] } }) +
  rec(sid, { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: output }] }, toolUseResult: { stdout: output } });

function transcript(name: string, text: string): string {
  const f = path.join(sb.root, 'projects', 'p', `${name}.jsonl`);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
  return f;
}

const S1 = 'aaaa1111-0000-4000-8000-000000000001';
const S2 = 'bbbb2222-0000-4000-8000-000000000002';

function firstSession(): string {
  return transcript(
    S1,
    prompt(S1, 'the invoice worker will not start on staging') +
      reply(S1, 'Let me look at the worker logs first; the quartermaster queue might be down.') +
      bash(S1, 't1', 'npm run worker', 'Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect') +
      reply(S1, 'Postgres is not listening; the worker needs it.') +
      prompt(S1, 'start postgres with the compose file and retry') +
      bash(S1, 't2', 'docker compose up -d db && npm run worker', 'worker ready, 3 jobs drained') +
      reply(S1, 'The worker is running now.'),
  );
}

describe('search over session turns', () => {
  it('finds tool output with its session and turn, ranks it below prompts and replies, and shows it only on request', async () => {
    const t1 = firstSession();
    expect((await json(['session', 'record', '--transcript', t1])).status).toBe('written');
    // A second session names the word in a prompt.
    const t2 = transcript(S2, prompt(S2, 'what does ECONNREFUSED mean for the billing api') + reply(S2, 'Nothing listens on that port.'));
    await json(['session', 'record', '--transcript', t2]);

    const r = await json(['search', 'ECONNREFUSED']);
    const hits = [...r.results.filter((h: { turn?: unknown }) => h.turn).map((h: { id: string; turn: object }) => ({ id: h.id, ...h.turn })), ...r.sessions.map((s: { id: string; turn: number; kind: string; anchor: string; tool?: string }) => ({ id: s.id, n: s.turn, kind: s.kind, anchor: s.anchor, tool: s.tool }))];
    const s1 = await json(['session', 'show', S1, '--turns']);
    const s2 = await json(['session', 'show', S2, '--turns']);
    const one = hits.find((h: { id: string }) => h.id === s1.id);
    const two = hits.find((h: { id: string }) => h.id === s2.id);
    expect(one).toMatchObject({ n: 1, kind: 'tool', tool: 'Bash', anchor: s1.turns[0].anchor });
    expect(two).toMatchObject({ n: 1, kind: 'prompt' });
    expect(hits.indexOf(two)).toBeLessThan(hits.indexOf(one));
    // The summary of S1 never holds tool output, so it is a session-turn hit, with no snippet unless asked.
    const fromTurns = r.sessions.find((s: { id: string }) => s.id === s1.id);
    expect(fromTurns.snippet).toBe('');
    const shown = await json(['search', 'ECONNREFUSED', '--tool-output']);
    expect(shown.sessions.find((s: { id: string }) => s.id === s1.id).snippet).toContain('ECONNREFUSED 127.0.0.1:5432');
    const text = (await run(['search', 'ECONNREFUSED'])).stdout;
    expect(text).toContain(`turn 1 (${s1.turns[0].anchor}) tool output of Bash`);
    expect(text).toContain(`git-kb session show ${s1.id} --turn 1`);
    // Every reply is searchable, not only the last; --no-turns leaves turn hits out.
    const q = await json(['search', 'quartermaster']);
    expect(q.sessions.map((s: { id: string; kind: string }) => [s.id, s.kind])).toEqual([[s1.id, 'reply']]);
    expect((await json(['search', 'quartermaster', '--no-turns'])).sessions).toEqual([]);
    expect((await json(['search', 'quartermaster', '--type', 'lesson_learned'])).sessions).toEqual([]);
  });
});

describe('session show from the archive', () => {
  it('lists the turns, shows one by number or anchor, and greps, with the transcript and the turn store deleted', async () => {
    const t = firstSession();
    const rec1 = await json(['session', 'record', '--transcript', t]);
    fs.rmSync(t);
    fs.rmSync(path.join(sb.data, '.git', 'git-kb', 'turns'), { recursive: true, force: true });
    const grep = await json(['session', 'show', rec1.id, '--grep', 'compose file']);
    expect(grep.lines).toEqual([expect.objectContaining({ n: 2, kind: 'prompt', line: 'start postgres with the compose file and retry' })]);
    const list = await json(['session', 'show', S1.slice(0, 8), '--turns']);
    expect(list.turns.map((x: { n: number; tools: number; replies: number }) => [x.n, x.tools, x.replies])).toEqual([[1, 1, 2], [2, 1, 1]]);
    const byAnchor = await json(['session', 'show', S1, '--turn', list.turns[1].anchor]);
    const byNumber = await json(['session', 'show', S1, '--turn', '2']);
    expect(byAnchor).toEqual(byNumber);
    expect(byNumber.turn.tools[0]).toMatchObject({ name: 'Bash', call: 'docker compose up -d db && npm run worker', output: 'worker ready, 3 jobs drained' });
    const human = (await run(['session', 'show', S1, '--grep', 'ECONNREFUSED'])).stdout;
    expect(human).toContain(`#1 ${list.turns[0].anchor} tool (Bash): Error: connect ECONNREFUSED 127.0.0.1:5432`);
    expect((await run(['session', 'show', S1, '--turn', '7'])).code).toBe(3);
    // With the archive gone too, nothing is left to read: a clear not-found.
    fs.rmSync(archiveDir(), { recursive: true });
    fs.rmSync(path.join(sb.data, '.git', 'git-kb', 'turns'), { recursive: true, force: true });
    const gone = await run(['session', 'show', S1, '--turns']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/no turns kept for session/);
  });
});

describe('the archive', () => {
  it('grows by one gzip member per look, survives a killed append, and is rewritten when a secret value is learnt', async () => {
    const sid = 'cccc3333-0000-4000-8000-000000000003';
    const t = transcript(sid, prompt(sid, 'first prompt about the ledger') + reply(sid, 'ok'));
    await json(['session', 'record', '--transcript', t]);
    const meta = (): { gzBytes: number; bytes: number } => JSON.parse(fs.readFileSync(path.join(archiveDir(), `${sid}.json`), 'utf8'));
    const inflated = (): string => zlib.gunzipSync(fs.readFileSync(path.join(archiveDir(), `${sid}.jsonl.gz`)).subarray(0, meta().gzBytes)).toString('utf8');
    const m1 = meta();
    expect(m1.bytes).toBe(fs.statSync(t).size);
    fs.appendFileSync(t, prompt(sid, 'second prompt about the ledger') + reply(sid, 'done'));
    // A killed writer left half a member past the mark.
    fs.appendFileSync(path.join(archiveDir(), `${sid}.jsonl.gz`), Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01]));
    await json(['session', 'record', '--transcript', t]);
    const m2 = meta();
    expect(m2.gzBytes).toBeGreaterThan(m1.gzBytes);
    expect(fs.statSync(path.join(archiveDir(), `${sid}.jsonl.gz`)).size).toBe(m2.gzBytes);
    expect(inflated().trim().split('\n').map((l) => JSON.parse(l).uuid)).toEqual(fs.readFileSync(t, 'utf8').trim().split('\n').map((l) => JSON.parse(l).uuid));
    // A value read later from a .env file and typed earlier: the whole archive is redacted again.
    const value = 'Zq8wLm3Rt7Yp2Kx9';
    fs.writeFileSync(t, prompt(sid, `is ${value} the ledger key?`) + fs.readFileSync(t, 'utf8').split('\n').slice(1).join('\n'));
    fs.appendFileSync(t,
      rec(sid, { type: 'assistant', message: { id: 'm-env', role: 'assistant', model: 'claude-test-1', content: [{ type: 'tool_use', id: 'tenv', name: 'Read', input: { file_path: '/home/u/billing/.env' } }] } }) +
      rec(sid, { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tenv', content: `LEDGER_KEY=${value}` }] }, toolUseResult: { type: 'text', file: { filePath: '/home/u/billing/.env', content: `LEDGER_KEY=${value}` } } }));
    await json(['session', 'record', '--transcript', t]);
    expect(inflated()).not.toContain(value);
    expect(inflated()).toContain('[REDACTED:secret-file-value]');
    const log = fs.readFileSync(path.join(sb.data, '.git', 'git-kb', 'turns', `${sid}.json`), 'utf8');
    expect(log).not.toContain(value);
  });

  it('a transcript with megabytes of tool output, read line by line, is stored as its whole text defines: the archive its redacted lines, the turn log the log of those', async () => {
    const sid = 'eeee5555-0000-4000-8000-000000000005';
    const value = 'Hv4sPq9Lm2Wx7Rt3';
    let text = prompt(sid, `the ledger export with key ${value} is slow \u00e9\u03a3\u{1f600}`);
    text += rec(sid, { type: 'assistant', message: { id: 'm-env2', role: 'assistant', model: 'claude-test-1', content: [{ type: 'tool_use', id: 'tenv2', name: 'Read', input: { file_path: '/home/u/billing/.env' } }] } });
    text += rec(sid, { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tenv2', content: `LEDGER_KEY=${value}` }] } });
    for (let i = 0; i < 48; i++) {
      if (i % 12 === 0) text += prompt(sid, `step ${i}: export the next batch`);
      const out = `batch ${i} used ${value}\n${`row ${i} ${'x'.repeat(70)} \u00fc\n`.repeat(700)}password=Sx${i}Kp4Zr8Qw2m done`;
      text += bash(sid, `tb${i}`, `node export.js --batch ${i}`, out);
    }
    text += reply(sid, 'All batches exported.');
    expect(text.length).toBeGreaterThan(3_000_000);
    const t = transcript(sid, text.slice(0, text.indexOf('\n', 1_500_000) + 1)); // half first: the rest is appended
    await json(['session', 'record', '--transcript', t]);
    fs.writeFileSync(t, `${text}{"type":"user","cut`); // and a last line still being written
    await json(['session', 'record', '--transcript', t]);

    const whole = fs.readFileSync(t, 'utf8');
    const { scrub } = sessionScrubber(parseTranscript(whole));
    const complete = whole.slice(0, whole.lastIndexOf('\n') + 1);
    const redacted = complete.split('\n').map((l) => (l.trim() ? redactTranscriptLine(l, scrub) : l)).join('\n');
    const meta = JSON.parse(fs.readFileSync(path.join(archiveDir(), `${sid}.json`), 'utf8'));
    const inflated = zlib.gunzipSync(fs.readFileSync(path.join(archiveDir(), `${sid}.jsonl.gz`)).subarray(0, meta.gzBytes)).toString('utf8');
    expect(inflated === redacted).toBe(true);
    expect(inflated).not.toContain(value);
    const log = JSON.parse(fs.readFileSync(path.join(sb.data, '.git', 'git-kb', 'turns', `${sid}.json`), 'utf8'));
    expect(log).toEqual(JSON.parse(JSON.stringify(sessionLog(parseTranscript(redacted), sid))));
    expect(log.turns.length).toBe(5);
  });

  it('keeps nothing of a session that names a forbidden host, and KB_ARCHIVE=0 keeps no archive', async () => {
    await json(['host', 'register', 'vault-box', '--marker', 'vault-box.internal']);
    await json(['host', 'forbid', 'vault-box']);
    const sid = 'dddd4444-0000-4000-8000-000000000004';
    const t = transcript(sid, prompt(sid, 'check the disk on vault-box.internal') + reply(sid, 'it is full'));
    const r = await run(['session', 'record', '--transcript', t, '--json']);
    expect(r.code).toBe(5);
    expect(fs.existsSync(path.join(archiveDir(), `${sid}.jsonl.gz`))).toBe(false);
    expect(fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'turns', `${sid}.json`))).toBe(false);
    expect((await json(['search', 'disk full'])).sessions).toEqual([]);
    const off = 'eeee5555-0000-4000-8000-000000000005';
    const t2 = transcript(off, prompt(off, 'rename the ledger table') + reply(off, 'renamed'));
    await json(['session', 'record', '--transcript', t2], { KB_ARCHIVE: '0' });
    expect(fs.existsSync(path.join(archiveDir(), `${off}.jsonl.gz`))).toBe(false);
    expect((await json(['search', 'ledger table'])).results.length + (await json(['search', 'ledger table'])).sessions.length).toBeGreaterThan(0);
  });

  it('catch-up archives transcripts already summarised, rebuilds lost turn logs, and prunes past the retention', async () => {
    const t = firstSession();
    const projects = path.dirname(path.dirname(t));
    // Summarised with the archive off (an install from before the archive): catch-up archives it.
    await json(['session', 'record', '--transcript', t], { KB_ARCHIVE: '0' });
    expect(fs.existsSync(path.join(archiveDir(), `${S1}.jsonl.gz`))).toBe(false);
    fs.rmSync(path.join(sb.data, '.git', 'git-kb', 'sessions'), { recursive: true });
    const c1 = await json(['session', 'catch-up', '--projects', projects]);
    expect(c1.logged).toBe(1);
    expect(fs.existsSync(path.join(archiveDir(), `${S1}.jsonl.gz`))).toBe(true);
    // The turn store deleted (it is derived): the next catch-up rebuilds it from the archive.
    fs.rmSync(t);
    fs.rmSync(path.join(sb.data, '.git', 'git-kb', 'turns'), { recursive: true });
    const c2 = await json(['session', 'catch-up', '--projects', projects]);
    expect(c2.rebuilt).toBe(1);
    expect((await json(['search', 'quartermaster'])).sessions).toHaveLength(1);
    // Older than KB_ARCHIVE_DAYS: removed, with its turn log.
    const old = (Date.now() - 3 * 86_400_000) / 1000;
    fs.utimesSync(path.join(archiveDir(), `${S1}.json`), old, old);
    const c3 = await json(['session', 'catch-up', '--projects', projects], { KB_ARCHIVE_DAYS: '2' });
    expect(c3.pruned).toBe(1);
    expect(fs.readdirSync(archiveDir()).filter((n) => n.startsWith(S1))).toEqual([]);
    expect((await json(['search', 'quartermaster'])).sessions).toEqual([]);
  });
});
