import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatEntry, parseEntry } from '../src/core/format/entry.js';
import { buildJudgePrompt } from '../src/adapters/claude/judge.js';
import { findSecrets } from '../src/core/secrets/scan.js';
import { LIMITS, secretFileValues, sessionEntryId, sessionPath, summarizeSession, type SessionSummary } from '../src/core/sessions/summary.js';
import { allTranscriptText as allText, parseTranscript, type TranscriptFacts } from '../src/core/sessions/transcript.js';
import { isTrivialSession } from '../src/core/sessions/trivial.js';
import { recentPointerTitle, sessionLine } from '../src/adapters/index/prompt/extras-sessions.js';

const FIXTURES = new URL('./fixtures/transcripts/', import.meta.url);

function facts(name: string): TranscriptFacts {
  return parseTranscript(readFileSync(new URL(name, FIXTURES), 'utf8'));
}

function summary(f: TranscriptFacts, options = {}): SessionSummary {
  const r = summarizeSession(f, options);
  if ('skip' in r) throw new Error(`skipped: ${r.skip}`);
  return r.summary;
}

/** The body's sections by heading. */
function sections(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  const parts = body.split(/^## /m);
  out.intro = parts[0]!.trim();
  for (const p of parts.slice(1)) {
    const nl = p.indexOf('\n');
    out[p.slice(0, nl).trim()] = p.slice(nl + 1).trim();
  }
  return out;
}

/** A transcript built from records (each gets session, cwd, time and a uuid). */
function transcript(records: Record<string, unknown>[], sessionId = 'sess-0001-aaaa'): string {
  return records
    .map((r, i) =>
      JSON.stringify({
        sessionId,
        cwd: '/home/u/proj',
        gitBranch: 'main',
        uuid: `u-${i}`,
        timestamp: new Date(Date.UTC(2026, 4, 1, 10, 0, i)).toISOString(),
        ...r,
      }),
    )
    .join('\n');
}

const prompt = (text: string): Record<string, unknown> => ({ type: 'user', message: { role: 'user', content: text } });
const reply = (text: string, id = `m-${text.length}`): Record<string, unknown> => ({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-x', content: [{ type: 'text', text }] } });
const toolUse = (id: string, name: string, input: unknown): Record<string, unknown> => ({ type: 'assistant', message: { id: `m-${id}`, role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id, name, input }] } });
const toolResult = (id: string, content: string): Record<string, unknown> => ({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] }, toolUseResult: { stdout: content } });

describe('summarizeSession: the all-kinds fixture, field by field', () => {
  const f = facts('session-all-kinds.jsonl');
  const s = summary(f, { transcriptPath: '/home/ines/.claude/projects/-home-ines-src-infra/5d0c2b7a.jsonl' });
  const sid = '5d0c2b7a-91e4-4f3b-8a2d-6c1e0f9b3a77';

  it('takes its id and path from the session id and start alone', () => {
    expect(s.id).toBe(sessionEntryId(sid, '2026-04-10T08:00:07.000Z'));
    expect(s.id).toMatch(/^kb-[0-9a-z]{10}$/);
    expect(s.path).toBe(`sessions/2026/04/${s.id}.md`);
    expect(s.created).toBe('2026-04-10T08:00:07Z');
  });

  it('fills the front matter from the transcript', () => {
    expect(s.fields).toEqual({
      title: 'pop-os 502: api.socket', // the custom title wins over the AI title and the first prompt
      type: 'session_summary',
      tags: ['infra'],
      session_id: sid,
      project: 'infra',
      cwd: '/home/ines/src/infra',
      branch: 'main',
      model: 'claude-opus-4-6',
      started: '2026-04-10T08:00:07Z',
      ended: '2026-04-10T08:03:02Z',
      turns: 4,
      files_changed: 1,
      commands: 2,
      pr_links: ['https://github.com/ines/infra/pull/7'], // from the pr-link record and the reply, once
      transcript: '/home/ines/.claude/projects/-home-ines-src-infra/5d0c2b7a.jsonl',
      summary_version: 3,
    });
  });

  it('lists the prompts: typed ones, slash commands, a queued prompt; never tool results, meta, sidechain or IDE text', () => {
    expect(sections(s.body).Prompts).toBe(
      [
        '1. nginx on pop-os returns 502 for /api since this morning. Find out why.',
        '2. /model opus',
        '3. also add a systemd drop-in so the upgrade cannot disable it again',
        '4. thanks, that fixed it',
      ].join('\n'),
    );
    expect(s.body).not.toContain('Which unit creates'); // the subagent's prompt
    expect(s.body).not.toContain('Caveat:');
    expect(s.body).not.toContain('The user opened');
    expect(s.body).not.toContain('this line was cut off'); // the truncated last line
  });

  it('keeps the recaps, the last reply, PRs, files changed, files read and commands', () => {
    const sec = sections(s.body);
    expect(sec.intro).toBe(`Claude Code session ${sid} in /home/ines/src/infra on main, 2026-04-10 08:00–08:03 UTC, 4 prompts, claude-opus-4-6.`);
    expect(sec.Recaps).toBe(
      'nginx 502 on pop-os: api.socket disabled\n\nnginx on pop-os returned 502 because api.socket was disabled by the upgrade; re-enabling it is pending.',
    );
    expect(sec['Last reply']).toBe('Re-enabled api.socket on pop-os and added a drop-in; PR https://github.com/ines/infra/pull/7 keeps it enabled across upgrades.');
    expect(sec['Pull requests']).toBe('- https://github.com/ines/infra/pull/7');
    expect(sec['Files changed']).toBe('- systemd/api.socket.d/override.conf');
    expect(sec['Files read']).toBe('- .env (secret file: contents never stored)');
    expect(sec.Commands).toBe("```sh\nssh pop-os 'systemctl status nginx --no-pager'\ngit commit -am 'api.socket: keep enabled across upgrades' && gh pr create --fill\n```");
    expect(s.body).not.toContain('API Error: 529'); // Claude Code's own <synthetic> message
    expect(s.body).not.toContain('q7Rt2mVx9LpZ4wKe'); // a value of the .env read
    expect(s.body).not.toContain('connect() to unix'); // tool output is never stored
  });

  it('formats to a valid entry with no secret-shaped text', () => {
    const text = formatEntry({ id: s.id, ...s.fields, created: s.created, updated: '2026-04-10T09:00:00Z' }, s.body);
    const { entry, problems } = parseEntry(text, s.path, { idExists: () => false });
    expect(problems).toEqual([]);
    expect(entry).toMatchObject({ id: s.id, type: 'session_summary', title: s.title });
    expect(findSecrets(text)).toEqual([]);
  });

  it('is deterministic: the same transcript gives the same summary', () => {
    expect(summary(facts('session-all-kinds.jsonl'), { transcriptPath: '/home/ines/.claude/projects/-home-ines-src-infra/5d0c2b7a.jsonl' })).toEqual(s);
  });
});

describe('summarizeSession: the other fixtures', () => {
  it('a coding session: AI title, branch made mid-session, relative file paths, the .env read as a placeholder', () => {
    const s = summary(facts('coding-session.jsonl'));
    expect(s.title).toBe('Fix cent rounding in invoice totals');
    expect(s.fields).toMatchObject({ branch: 'fix/rounding', turns: 3, project: 'invoice-api', model: 'claude-sonnet-4-5-20250929' });
    const sec = sections(s.body);
    expect(sec['Files changed']!.split('\n')).toEqual(['- src/money/round.ts', '- test/money/round.test.ts', '- src/money/currencies.ts', '- analysis/rounding.ipynb']);
    expect(sec['Files read']).toContain('- .env (secret file: contents never stored)');
    expect(s.body).not.toContain('hunter2-not-real');
  });

  it('slash commands: kept as typed, the unknown record type tolerated', () => {
    const s = summary(facts('slash-commands.jsonl'));
    expect(sections(s.body).Prompts!.split('\n').slice(0, 3)).toEqual(['1. /review 12', '2. /model opus', '3. !git status --short']);
    expect(s.fields.pr_links).toEqual(['https://github.com/acme/widgets/pull/12', 'https://github.com/acme/widgets/pull/15']);
  });

  it('subagents and compaction: the custom title, sidechain text left out, recaps kept', () => {
    const s = summary(facts('subagent-compact.jsonl'));
    expect(s.title).toBe('date-tz audit');
    expect(sections(s.body).Recaps).toContain('Timezone audit of date parsing in reporting');
    expect(s.fields.turns).toBe(4);
  });

  it('a truncated transcript: what was read is summarised', () => {
    const s = summary(facts('truncated.jsonl'));
    expect(s.fields.turns).toBe(2);
    expect(s.title).toBe('Why does the loader ignore .env.production on the staging box?');
    expect(s.body).not.toContain('tok_live_not_a_real_token_0000');
  });
});

describe('summarizeSession: transcripts recorded from the Claude Code CLI 2.1.328 (test/fixtures/transcripts/README.md)', () => {
  const f = facts('cli-2.1.328-failed-writes-compact.jsonl');
  const s = summary(f);
  const sec = sections(s.body);
  const fields = (name: string): Record<string, unknown> => summary(facts(name)).fields;

  it('counts only the writes that succeeded: not a Write refused by print mode, one denied by the prose gate, nor a failed Edit', () => {
    expect(f.toolUses.filter((u) => ['Write', 'Edit'].includes(u.name))).toHaveLength(4);
    expect(f.filesChanged).toEqual([`${f.cwd}/notes.txt`]);
    expect(s.fields.files_changed).toBe(1);
    expect(sec['Files changed']).toBe('- notes.txt');
    expect(s.body).not.toContain('README.md');
    expect(s.body).not.toContain('out.txt');
  });

  it('shows git-kb writes with their text elided and the id they wrote, and other commands verbatim', () => {
    expect(f.commands.map((c) => c.result?.error)).toEqual([false, false, false]);
    const lines = sec.Commands!.split('\n').slice(1, -1);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^git-kb add --type lesson_learned --title … --tags notes -- … # text elided; wrote kb-[0-9a-z]{10}$/);
    expect(lines[0]!.slice(-13)).toBe(f.commands[0]!.result!.text.trim());
    // `node <plugin>/bin/git-kb add ... <<'EOF'`: the heredoc is text too.
    expect(f.commands[1]!.command).toMatch(/^node \/\S+\/bin\/git-kb add /);
    expect(lines[1]).toMatch(/^git-kb add --type lesson_learned --title … # text elided; wrote kb-[0-9a-z]{10}$/);
    expect(lines[2]).toBe('git-kb search "quillwort typos"');
    expect(s.body).not.toContain('generator copies the heading');
    expect(s.body).not.toContain('anywhere in the first paragraph');
    // Two commands did work (the adds); the search only looked.
    expect(s.fields.commands).toBe(2);
  });

  it("keeps the compact summary without Claude Code's <system-reminder><tools-used-before-summary> wrapper", () => {
    expect(allText(f)).toContain('<tools-used-before-summary>Bash, Edit, Read, Write</tools-used-before-summary>');
    expect(f.recaps).toEqual(['Primary request: fix the typo in notes.txt. Done: the first line now reads "the first line".']);
    expect(sec.Recaps).toBe(f.recaps[0]);
    expect(f.prompts).toEqual(['Fix the typo in notes.txt and save what we learned.', 'Anything left?']);
  });

  it('a one-prompt session that fixed something with Bash has a commands count and is not trivial; one that only looked is', () => {
    const fix = fields('cli-2.1.328-bash-fix.jsonl');
    expect(fix).toMatchObject({ turns: 1, commands: 1 });
    expect(fix.files_changed).toBeUndefined();
    expect(isTrivialSession(fix)).toBe(false);
    const look = fields('cli-2.1.328-look-only.jsonl');
    expect(look.turns).toBe(1);
    expect(look.commands).toBeUndefined();
    expect(isTrivialSession(look)).toBe(true);
  });

  it('the pointer to the Bash fix cuts its title at a word and keeps its prompt count whole', () => {
    const fix = summary(facts('cli-2.1.328-bash-fix.jsonl'));
    expect(fix.title).toBe('The first line of notes.txt has a typo that breaks the release notes generator and the changelog…');
    const title = recentPointerTitle(sessionLine({ title: fix.title, data: fix.fields }));
    expect(title).toBe('earlier session: 2026-12-04 · HEAD · The first line of notes.txt has a typo that breaks the release notes… (1 prompt)');
    expect(title.length).toBeLessThanOrEqual(120);
  });

  it('is deterministic', () => {
    for (const name of ['cli-2.1.328-failed-writes-compact.jsonl', 'cli-2.1.328-bash-fix.jsonl', 'cli-2.1.328-look-only.jsonl']) {
      expect(summary(facts(name))).toEqual(summary(facts(name)));
    }
  });
});

describe('trivial sessions and pointer titles', () => {
  const base = { turns: 1, started: '2026-05-01T10:00:00Z', ended: '2026-05-01T10:02:00Z' };

  it('a one-prompt short session is trivial unless it changed a file, ran a command that did work or made a PR; older versions read as none', () => {
    expect(isTrivialSession({ ...base, summary_version: 1 })).toBe(true);
    expect(isTrivialSession({ ...base, files_changed: 1, summary_version: 2 })).toBe(false);
    expect(isTrivialSession({ ...base, commands: 3 })).toBe(false);
    expect(isTrivialSession({ ...base, pr_links: ['https://github.com/a/b/pull/1'] })).toBe(false);
    expect(isTrivialSession({ ...base, turns: 2 })).toBe(false);
    expect(isTrivialSession({ ...base, ended: '2026-05-01T10:06:00Z' })).toBe(false);
  });

  it('recentPointerTitle fits the line, cutting the title at a word and never the prompt count', () => {
    expect(recentPointerTitle('2026-05-01 · main · Lazy thumbnails (2 prompts)')).toBe('earlier session: 2026-05-01 · main · Lazy thumbnails (2 prompts)');
    const long = `2026-05-01 · main · ${'word '.repeat(30).trim()} (5 prompts)`;
    const t = recentPointerTitle(long);
    expect(t.length).toBeLessThanOrEqual(120);
    expect(t).toMatch(/ word… \(5 prompts\)$/);
    // A line with no count (a side file of another shape) is cut at a word.
    expect(recentPointerTitle(`2026-05-01 · ${'word '.repeat(30)}`)).toMatch(/ word…$/);
  });
});

describe('summarizeSession: rules', () => {
  it('gives no summary without a real prompt, a session id or a timestamp', () => {
    expect(summarizeSession(parseTranscript(transcript([reply('hello')])))).toEqual({ skip: 'no-prompts' });
    expect(summarizeSession(parseTranscript(transcript([prompt('a question about the build')], '')))).toEqual({ skip: 'no-session-id' });
    expect(summarizeSession(parseTranscript(JSON.stringify({ type: 'user', sessionId: 's1', message: { role: 'user', content: 'hi there friend' } })))).toEqual({ skip: 'no-timestamps' });
    expect(summarizeSession(parseTranscript(''))).toEqual({ skip: 'no-session-id' });
  });

  it("gives no summary for git-kb's own `claude -p` children (the prose gate's model judge)", () => {
    const judge = buildJudgePrompt([{ source: 'Write README.md', text: 'Some prose that is about to be published somewhere.' } as never], []);
    expect(summarizeSession(parseTranscript(transcript([prompt(judge), reply('{"pass": true}')])))).toEqual({ skip: 'git-kb-child' });
  });

  it("uses the hook's session id over the transcript's, and moves the id with a salt", () => {
    const f = parseTranscript(transcript([prompt('why is the build slow on CI')]));
    const a = summary(f, { sessionId: 'from-hook' });
    expect(a.sessionId).toBe('from-hook');
    expect(a.id).toBe(sessionEntryId('from-hook', '2026-05-01T10:00:00.000Z'));
    const b = summary(f, { sessionId: 'from-hook', salt: 1 });
    expect(b.id).not.toBe(a.id);
    expect(b.id.slice(0, 9)).toBe(a.id.slice(0, 9)); // same start second
    expect(sessionPath(a.id, '2026-05-01T10:00:00.000Z')).toBe(`sessions/2026/05/${a.id}.md`);
  });

  it('falls back to the first prompt for the title, trimmed to one line', () => {
    const long = `${'word '.repeat(40)}\nsecond line`;
    const s = summary(parseTranscript(transcript([prompt(long)])));
    expect(s.title.length).toBeLessThanOrEqual(LIMITS.title);
    expect(s.title.endsWith('…')).toBe(true);
    expect(s.title).not.toContain('second line');
  });

  it('keeps the first and last prompts of a long session and trims each', () => {
    const records = Array.from({ length: 60 }, (_, i) => prompt(`prompt number ${i + 1} ${'x'.repeat(i === 0 ? 1000 : 10)}`));
    const s = summary(parseTranscript(transcript(records)));
    const lines = sections(s.body).Prompts!.split('\n');
    expect(lines).toHaveLength(LIMITS.prompts + 1);
    expect(lines[0]!.length).toBeLessThanOrEqual(LIMITS.prompt + 4);
    expect(lines[20]).toBe('- … 20 more prompts …');
    expect(lines[21]).toMatch(/^41\. prompt number 41 /);
    expect(lines[40]).toMatch(/^60\. prompt number 60 /);
    expect(s.fields.turns).toBe(60);
  });

  it('turns [[id]] links in prompts into plain ids (a summary links nothing)', () => {
    const s = summary(parseTranscript(transcript([prompt('compare with [[kb-0042]] and [[kb-abc|the old one]]')])));
    expect(s.body).toContain('compare with kb-0042 and kb-abc');
    expect(s.body).not.toContain('[[');
  });

  it('redacts secret-shaped text and every value read from a secret file, wherever it reappears', () => {
    const salt = 'Vb81mQz0PeLr';
    const records = [
      prompt('deploy with the key in .env please'),
      toolUse('t1', 'Bash', { command: 'cat /home/u/proj/.env.production' }),
      toolResult('t1', `SIGNING_SALT=${salt}\nMODE=staging\n`),
      toolUse('t2', 'Read', { file_path: '/home/u/proj/config/credentials.json' }),
      toolResult('t2', '{"client_secret": "Zq93nfXk1LmPa0Rt"}'),
      prompt(`is ${salt} the right salt? and Zq93nfXk1LmPa0Rt?`),
      reply(`Yes, ${salt} is set for staging.`),
    ];
    const s = summary(parseTranscript(transcript(records)));
    expect(s.body).not.toContain(salt);
    expect(s.body).not.toContain('Zq93nfXk1LmPa0Rt');
    expect(s.body).toContain('[REDACTED:secret-file-value]');
    expect(s.body).toContain('staging'); // settings that do not look like secrets stay readable
    expect(sections(s.body)['Files read']).toBe(['- config/credentials.json (secret file: contents never stored)', '- .env.production (secret file: contents never stored)'].join('\n'));
    expect(s.redactions).toBeGreaterThanOrEqual(3);
  });

  it('a secret a command gives (PGPASSWORD=, mysql -p) is learned: the same value bare in a later reply is redacted too', () => {
    const pg = 'Hx7kLm2Qp9Zt';
    const my = 'Rw3nBv8Yc1Ud';
    const records = [
      prompt('load the dump into the staging database'),
      toolUse('t1', 'Bash', { command: `PGPASSWORD=${pg} psql -h db -U app -f dump.sql` }),
      toolResult('t1', 'COPY 120'),
      toolUse('t2', 'Bash', { command: `mysql -uroot -p${my} -e 'select 1'` }),
      toolResult('t2', '1'),
      reply(`Done. The postgres password was ${pg} and the mysql one ${my}; rotate both.`),
    ];
    const s = summary(parseTranscript(transcript(records)));
    // Before: redacted in the commands, committed bare in the last reply.
    expect(s.body).not.toContain(pg);
    expect(s.body).not.toContain(my);
  });

  it('secretFileValues takes the values of .env, YAML-ish and JSON lines, numbered or not', () => {
    expect(secretFileValues('     1\tA=Abc123xyz9\n     2\t# comment=Zz9zz9zz9\n     3\texport B="Qw3rtyUi0p"\nC: plain-words-only\n"d": "Mn8bv7cx6z",\n')).toEqual(['Abc123xyz9', 'Qw3rtyUi0p', 'Mn8bv7cx6z']);
  });
});
