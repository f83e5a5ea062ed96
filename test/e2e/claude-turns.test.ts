/**
 * Every turn searchable at once, with the real Claude Code CLI and the installed plugin (spec/sessions.md,
 * "Turns"): after each `claude -p` run, another process's `git-kb search` finds the turn that just ended (the Stop
 * hook wrote its log before the CLI exited), tool output included, with its session and turn; a five-prompt
 * `--resume` session makes at most two summary commits; with the transcript deleted, `session show --grep` still
 * reads turn 2 from the archive; a secret printed by a tool is in no archive, turn log or output.
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, kbJson } from '../helpers/cli.js';
import { converse, installedRig, prompt, type Rig } from './claude-support.js';

let rig: Rig;
beforeAll(async () => {
  rig = await installedRig('gkb-cc-turns-');
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

type Found = { results: { id: string; turn?: { n: number; kind: string } }[]; sessions: { id: string; session_id: string; turn: number; kind: string; tool?: string; snippet: string }[] };

describe('turns', () => {
  it('are found by search as soon as each run ends, tool output too; five --resume prompts make at most two commits; the archive outlives the transcript', async () => {
    const { api, sb } = rig;
    const token = `ghp_${'Rk4mZ8qLw2Xv7Nc5Tb9Hs3Jd6Fg1Pa0Ye8Ui2'}`.slice(0, 40);
    converse(api, [
      // The word is in the output only (the command, kept in the summary, spells it in two pieces).
      { tool: 'Bash', input: { command: `printf 'Error: connect ECONN%s 127.0.0.1:6379\\n' REFUSED; echo "token ${token}"`, description: 'Probe redis' } },
      'Redis is not running on 6379.',
    ]);
    api.reset();
    const first = await prompt(sb, 'why does the session cache fail to connect', ['--allowedTools', 'Bash']);
    const session = first.json.session_id!;
    // The tool ran and printed the word: it reached the model.
    expect(JSON.stringify(api.mainRequests()[1]!.body)).toContain('ECONNREFUSED');

    // Another process, right after the run: no wait, no commit needed.
    const found = await kbJson<Found>(sb, ['--data', sb.data, 'search', 'ECONNREFUSED']);
    const hit = found.sessions.find((s) => s.session_id === session);
    expect(hit, JSON.stringify(found)).toMatchObject({ turn: 1, kind: 'tool', tool: 'Bash', snippet: '' });

    const words = ['albatross', 'bergamot', 'cormorant', 'dulcimer'];
    for (const w of words) {
      converse(api, [`Noted: the ${w} setting is fine.`]);
      api.reset();
      const r = await prompt(sb, `and what about the ${w} setting`, ['--resume', session]);
      expect(r.json.session_id).toBe(session);
      const f = await kbJson<Found>(sb, ['--data', sb.data, 'search', w]);
      const where = [...f.sessions.filter((s) => s.session_id === session).map((s) => s.turn), ...f.results.filter((x) => x.turn).map((x) => x.turn!.n)];
      expect(where, `${w}: ${JSON.stringify(f)}`).toContain(words.indexOf(w) + 2);
    }
    const subjects = (await git(sb.data, ['log', '--format=%s'])).split('\n');
    const summaryCommits = subjects.filter((s) => s.startsWith('session kb-'));
    expect(summaryCommits.length).toBeGreaterThanOrEqual(1);
    expect(summaryCommits.length).toBeLessThanOrEqual(2);

    // The transcript deleted: turn 2 is read from the archive.
    const transcript = path.join(sb.home, '.claude', 'projects', sb.project.replace(/[^A-Za-z0-9]/g, '-'), `${session}.jsonl`);
    expect(fs.readFileSync(transcript, 'utf8')).toContain(token);
    fs.rmSync(transcript);
    const grep = await kbJson<{ lines: { n: number; kind: string; line: string }[] }>(sb, ['--data', sb.data, 'session', 'show', session, '--grep', 'albatross']);
    expect(grep.lines.map((l) => [l.n, l.kind])).toEqual([[2, 'prompt'], [2, 'reply']]);

    // The token the tool printed: nowhere kept.
    const kept: string[] = [];
    const archive = path.join(sb.home, '.git-kb', 'archive');
    for (const n of fs.readdirSync(archive)) kept.push(n.endsWith('.gz') ? zlib.gunzipSync(fs.readFileSync(path.join(archive, n))).toString('utf8') : fs.readFileSync(path.join(archive, n), 'utf8'));
    const turns = path.join(sb.data, '.git', 'git-kb', 'turns');
    for (const n of fs.readdirSync(turns)) kept.push(fs.readFileSync(path.join(turns, n), 'utf8'));
    kept.push(JSON.stringify(await kbJson(sb, ['--data', sb.data, 'search', 'ECONNREFUSED', '--tool-output'])));
    expect(kept.join('\n')).toContain('ECONNREFUSED');
    expect(kept.join('\n')).not.toContain(token.slice(4, 24));
    expect(await git(sb.data, ['cat-file', '--batch-all-objects', '--batch'])).not.toContain(token.slice(4, 24));
  }, 180_000);
});
