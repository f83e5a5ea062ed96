import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { allTranscriptText, cleanRecap, parseTranscript, type TranscriptFacts } from '../src/core/sessions/transcript.js';

const FIXTURES = new URL('./fixtures/transcripts/', import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

function parse(name: string): TranscriptFacts {
  return parseTranscript(fixture(name));
}

/** Tool results without their (long) text, plus the start of the text. */
function results(f: TranscriptFacts): { toolUseId?: string; filePath?: string; head: string }[] {
  return f.toolResults.map((r) => {
    const out: { toolUseId?: string; filePath?: string; head: string } = { head: r.text.slice(0, 24) };
    if (r.toolUseId !== undefined) out.toolUseId = r.toolUseId;
    if (r.filePath !== undefined) out.filePath = r.filePath;
    return out;
  });
}

const EMPTY: TranscriptFacts = {
  prompts: [],
  turns: 0,
  recaps: [],
  prLinks: [],
  filesChanged: [],
  commands: [],
  toolUses: [],
  toolResults: [],
  assistantTexts: [],
  unknownTypes: [],
  malformedLines: 0,
  sidechainRecords: 0,
  turnLog: [],
  otherTexts: [],
};

describe('parseTranscript: plain coding session', () => {
  const f = parse('coding-session.jsonl');
  const root = '/home/dana/src/invoice-api';

  it('reads session identity, times and model', () => {
    expect(f.sessionId).toBe('3f1c9a2e-7b4d-4e8a-9c61-0d2f5b7e8a14');
    expect(f.cwd).toBe(root);
    expect(f.branch).toBe('fix/rounding'); // the branch made mid-session wins over the starting `main`
    expect(f.startedAt).toBe('2026-03-02T09:14:07.300Z');
    expect(f.endedAt).toBe('2026-03-02T09:18:00.900Z');
    expect(f.model).toBe('claude-sonnet-4-5-20250929'); // the <synthetic> API error does not count
    expect(f.title).toBe('Fix cent rounding in invoice totals');
  });

  it('keeps only real prompts: no tool results, IDE context or interruptions', () => {
    expect(f.prompts).toEqual([
      'The invoice totals are off by a cent for some currencies. Find out why and fix it.',
      'Looks good. Also handle JPY, which has no minor unit.',
      'try again, then commit on a new branch fix/rounding and open a PR',
    ]);
    expect(f.firstPrompt).toBe(f.prompts[0]);
    expect(f.turns).toBe(3);
    expect(f.recaps).toEqual([]);
  });

  it('collects PR links, files changed and commands', () => {
    expect(f.prLinks).toEqual(['https://github.com/dana-k/invoice-api/pull/42']);
    expect(f.filesChanged).toEqual([
      `${root}/src/money/round.ts`,
      `${root}/test/money/round.test.ts`,
      `${root}/src/money/currencies.ts`,
      `${root}/analysis/rounding.ipynb`,
    ]);
    expect(f.commands.map((c) => c.command)).toEqual([
      'npm test -- round',
      'git checkout -b fix/rounding && git commit -am "Round invoice totals half-even in minor units"',
      'git push -u origin fix/rounding && gh pr create --fill',
    ]);
  });

  it('lists tool uses with their inputs and ids', () => {
    expect(f.toolUses.map((u) => [u.name, u.id])).toEqual([
      ['Read', 'toolu_01R1'],
      ['Read', 'toolu_01R2'],
      ['Edit', 'toolu_01E1'],
      ['Write', 'toolu_01W1'],
      ['Bash', 'toolu_01B1'],
      ['MultiEdit', 'toolu_01M1'],
      ['Edit', 'toolu_01E2'],
      ['NotebookEdit', 'toolu_01N1'],
      ['Bash', 'toolu_01B2'],
      ['Bash', 'toolu_01B3'],
    ]);
    expect(f.toolUses[1]?.input).toEqual({ file_path: `${root}/.env` });
  });

  it('marks Read results with their file, the .env read included', () => {
    expect(results(f)).toEqual([
      { toolUseId: 'toolu_01R1', filePath: `${root}/src/money/round.ts`, head: '     1\texport function r' },
      { toolUseId: 'toolu_01R2', filePath: `${root}/.env`, head: '     1\tDATABASE_URL=post' },
      { toolUseId: 'toolu_01E1', head: 'The file /home/dana/src/' },
      { toolUseId: 'toolu_01W1', head: 'File created successfull' },
      { toolUseId: 'toolu_01B1', head: '\n> invoice-api@1.4.0 tes' },
      { toolUseId: 'toolu_01M1', head: 'Applied 2 edits to /home' },
      { toolUseId: 'toolu_01E2', head: 'The file /home/dana/src/' },
      { toolUseId: 'toolu_01N1', head: "Updated cell c3 with rou" },
      { toolUseId: 'toolu_01B2', head: "Switched to a new branch" },
      { toolUseId: 'toolu_01B3', head: "branch 'fix/rounding' se" },
    ]);
    expect(f.toolResults[1]?.text).toContain('hunter2-not-real');
  });

  it('joins chunked assistant messages once and skips the duplicated record', () => {
    expect(f.assistantTexts).toEqual([
      "I'll start with the rounding helper and the environment config.",
      '`roundMinor` multiplies a float, so 1.005 becomes 100.49999 and rounds down. ROUNDING_MODE says half-even, which the helper ignores.',
      'All 14 rounding tests pass. The helper now works in integer minor units and honours half-even.',
      'Opened https://github.com/dana-k/invoice-api/pull/42 from `fix/rounding`.\n\nIt rounds half-even in integer minor units and gives JPY and KRW zero digits.',
    ]);
  });

  it('reports nothing unknown, malformed or sidechain', () => {
    expect(f.unknownTypes).toEqual([]);
    expect(f.malformedLines).toBe(0);
    expect(f.sidechainRecords).toBe(0);
  });

  it('keeps thinking, IDE context, interruptions and API errors as other text', () => {
    expect(f.otherTexts).toHaveLength(4);
    expect(f.otherTexts?.[0]).toMatch(/^Rounding issue; likely float arithmetic/);
    expect(f.otherTexts?.[1]).toMatch(/^<ide_opened_file>/);
    expect(f.otherTexts?.[2]).toMatch(/^API Error: 529/);
    expect(f.otherTexts?.[3]).toBe('[Request interrupted by user]');
  });
});

describe('parseTranscript: subagent and compaction', () => {
  const f = parse('subagent-compact.jsonl');
  const root = '/home/dana/src/reporting';

  it('reads session identity, times and the main-thread model', () => {
    expect(f.sessionId).toBe('8b2d4f60-1e3a-4c5b-a7d9-6f0e2c4b8a31');
    expect(f.cwd).toBe(root);
    expect(f.branch).toBe('tz-audit');
    expect(f.startedAt).toBe('2026-03-02T14:02:07.300Z');
    expect(f.endedAt).toBe('2026-03-02T14:06:00.900Z');
    expect(f.model).toBe('claude-sonnet-4-5-20250929'); // not the subagent's haiku
  });

  it('prefers the custom title over a later AI title', () => {
    expect(f.title).toBe('date-tz audit');
  });

  it('keeps prompts but not the subagent prompt, meta caveat, command output, /compact or compact summary', () => {
    expect(f.prompts).toEqual([
      'Find every place we parse dates without a timezone and list them.',
      'Fix export.ts first, use UTC explicitly.',
      'Now fix the other two the same way.',
      'and add a changelog line', // typed while Claude worked: a queued-command attachment
    ]);
    expect(f.firstPrompt).toBe('Find every place we parse dates without a timezone and list them.');
    expect(f.turns).toBe(4);
  });

  it('collects the compact summary (without its boilerplate) and the summary record as recaps, in order', () => {
    expect(f.recaps).toHaveLength(2);
    expect(f.recaps[0]).toBe('1. Primary Request: list and fix date parsing without a timezone.\n2. Pending: src/report/import.ts:18 and src/jobs/nightly.ts:7.');
    expect(f.recaps[1]).toBe('Timezone audit of date parsing in reporting');
  });

  it('counts subagent effects: its file write, tool uses and results', () => {
    expect(f.sidechainRecords).toBe(8);
    expect(f.filesChanged).toEqual([
      `${root}/notes/tz-audit.md`,
      `${root}/src/report/export.ts`,
      `${root}/src/report/import.ts`,
      `${root}/src/jobs/nightly.ts`,
      `${root}/CHANGELOG.md`,
    ]);
    expect(f.toolUses.map((u) => u.name)).toEqual(['Task', 'Grep', 'Read', 'Write', 'Edit', 'Edit', 'Edit', 'Edit']);
    expect(f.toolUses[0]?.input).toMatchObject({ subagent_type: 'Explore' });
    expect(results(f).map((r) => [r.toolUseId, r.filePath])).toEqual([
      ['toolu_02G1', undefined],
      ['toolu_02R1', `${root}/src/report/export.ts`],
      ['toolu_02W1', undefined],
      ['toolu_02T1', undefined],
      ['toolu_02E1', undefined],
      ['toolu_02E2', undefined],
      ['toolu_02E3', undefined],
      ['toolu_02E4', undefined],
    ]);
    expect(f.toolResults[3]?.text).toMatch(/^Found 3 call sites[^\n]*\nagentId: a4f1c2e/);
    expect(f.commands).toEqual([]);
    expect(f.prLinks).toEqual([]);
  });

  it('joins a message split by an unrelated record in between, and leaves subagent text out', () => {
    expect(f.assistantTexts).toEqual([
      "I'll have an agent search the codebase.",
      'Three places parse dates without a timezone:\n\n1. src/report/export.ts:41\n2. src/report/import.ts:18\n3. src/jobs/nightly.ts:7',
      'All three now parse as UTC, and the changelog says so.',
    ]);
  });

  it('knows the bookkeeping records and keeps harness text aside', () => {
    expect(f.unknownTypes).toEqual([]);
    expect(f.malformedLines).toBe(0);
    const other = f.otherTexts ?? [];
    expect(other[0]).toMatch(/^Search \/home\/dana\/src\/reporting for code/); // the subagent's prompt
    expect(other[1]).toMatch(/^Found 3 call sites/); // the subagent's reply
    expect(other).toContain('Conversation compacted');
    expect(other).toContain('<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>');
    expect(other.some((t) => t.startsWith('Caveat: The messages below'))).toBe(true);
  });
});

describe('parseTranscript: slash commands, bash mode and an unknown record', () => {
  const f = parse('slash-commands.jsonl');

  it('reads session identity, times, model and the AI title given as `title`', () => {
    expect(f.sessionId).toBe('c47e1b09-5d2a-4f3e-b8c1-9a6d0e3f7b25');
    expect(f.cwd).toBe('/home/dana/src/widgets');
    expect(f.branch).toBe('main');
    expect(f.startedAt).toBe('2026-03-02T16:40:07.300Z');
    expect(f.endedAt).toBe('2026-03-02T16:43:02.500Z');
    expect(f.model).toBe('claude-opus-4-6'); // 4 opus messages after /model, 3 sonnet before
    expect(f.title).toBe('Review PR 12 (lazy thumbnails)');
  });

  it('turns commands into their text and drops their output and expansions', () => {
    expect(f.prompts).toEqual([
      '/review 12',
      '/model opus',
      '!git status --short',
      '<div> vs <section> for the card wrapper: which does the design system use?',
      'Post the review as a comment on the PR.',
    ]);
    expect(f.firstPrompt).toBe('/review 12');
    expect(f.turns).toBe(5);
    expect(f.recaps).toEqual([]);
  });

  it('collects PR links from results, text and pr-link records (url, or number and repository)', () => {
    expect(f.prLinks).toEqual(['https://github.com/acme/widgets/pull/12', 'https://github.com/acme/widgets/pull/15']);
  });

  it('collects commands, tool uses and results', () => {
    expect(f.filesChanged).toEqual([]);
    expect(f.commands.map((c) => c.command)).toEqual(['gh pr view 12', 'gh pr diff 12', 'gh pr comment 12 --body-file notes/review-12.md']);
    expect(f.toolUses.map((u) => [u.name, u.id])).toEqual([
      ['Bash', 'toolu_03B1'],
      ['Bash', 'toolu_03B2'],
      ['Grep', 'toolu_03G1'],
      ['Bash', 'toolu_03B3'],
    ]);
    expect(results(f).map((r) => [r.toolUseId, r.filePath])).toEqual([
      ['toolu_03B1', undefined],
      ['toolu_03B2', undefined],
      ['toolu_03G1', undefined],
      ['toolu_03B3', undefined],
    ]);
    expect(f.assistantTexts).toEqual([
      'PR 12 lazy-loads thumbnails with an IntersectionObserver. Two issues: the observer is never disconnected, and there is no test for the fallback.',
      'The design system wraps cards in <section>.',
      'Posted. The follow-up fix is tracked in https://github.com/acme/widgets/pull/15.',
    ]);
  });

  it('reports the unknown record type once and keeps its content for checks', () => {
    expect(f.unknownTypes).toEqual(['brand-new-kind']);
    expect(f.malformedLines).toBe(0);
    expect(f.sidechainRecords).toBe(0);
    const other = f.otherTexts ?? [];
    expect(other.some((t) => t.includes('written by a future release'))).toBe(true);
    expect(other.some((t) => t.startsWith('You are an expert code reviewer'))).toBe(true); // the /review expansion
    expect(other).toContain('<local-command-stdout>Total cost: $0.41</local-command-stdout>');
    expect(other.some((t) => t.startsWith('<bash-stdout> M src/CardGrid.tsx'))).toBe(true);
  });
});

describe('parseTranscript: truncated last line', () => {
  const f = parse('truncated.jsonl');
  const root = '/home/dana/src/config-loader';

  it('counts the cut line as malformed and keeps everything before it', () => {
    expect(f.malformedLines).toBe(1);
    expect(f.sessionId).toBe('e90a3c71-2f6b-4d8e-91a5-3b7c0d6e2f48');
    expect(f.cwd).toBe(root);
    expect(f.branch).toBe('main');
    expect(f.startedAt).toBe('2026-03-02T20:05:07.300Z');
    expect(f.endedAt).toBe('2026-03-02T20:06:05.700Z');
    expect(f.model).toBe('claude-sonnet-4-5-20250929');
    expect(f.title).toBeUndefined();
    expect(f.prompts).toEqual([
      'Why does the loader ignore .env.production on the staging box?',
      'make it fall back to NODE_ENV',
    ]);
    expect(f.firstPrompt).toBe(f.prompts[0]);
    expect(f.turns).toBe(2);
    expect(f.recaps).toEqual([]);
    expect(f.prLinks).toEqual([]);
    expect(f.filesChanged).toEqual([`${root}/src/load.ts`]);
    expect(f.commands).toEqual([]);
    expect(f.toolUses.map((u) => u.name)).toEqual(['Read', 'Read', 'Edit']);
    expect(results(f).map((r) => [r.toolUseId, r.filePath])).toEqual([
      ['toolu_04R1', `${root}/.env.production`],
      ['toolu_04R2', `${root}/src/load.ts`],
      ['toolu_04E1', undefined],
    ]);
    expect(f.assistantTexts).toEqual([
      'The loader keys on APP_ENV, not NODE_ENV; staging sets only NODE_ENV, so it falls back to .env.development.',
    ]);
    expect(f.unknownTypes).toEqual([]);
    expect(f.sidechainRecords).toBe(0);
    expect(f.otherTexts).toEqual([]);
  });
});

describe('parseTranscript: garbage and odd shapes', () => {
  it('returns empty facts for an empty string', () => {
    expect(parseTranscript('')).toEqual(EMPTY);
    expect(parseTranscript('\n\n  \r\n')).toEqual(EMPTY);
  });

  it('survives binary junk', () => {
    const junk = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256)).toString('latin1');
    const f = parseTranscript(junk);
    expect(f.malformedLines).toBeGreaterThan(0);
    expect(f.prompts).toEqual([]);
    expect(() => parseTranscript('\u0000\u0000{\u0000}\n\uFFFD\uD800{"type":')).not.toThrow();
  });

  it('counts JSON lines that are not objects as malformed', () => {
    const f = parseTranscript('[1,2]\n42\n"user"\nnull\ntrue\n{"type":"user","message":{"content":"hello there"}}\n');
    expect(f.malformedLines).toBe(5);
    expect(f.prompts).toEqual(['hello there']);
  });

  it('tolerates a BOM, CRLF line ends and records of unexpected shapes', () => {
    const lines = [
      '\uFEFF{"type":"user","message":{"content":"first"}}\r',
      '{"type":"user","message":null}',
      '{"type":"user","message":{"content":42}}',
      '{"type":"user","message":{"content":[null,1,"x",{"type":"text"},{"type":"image","source":{}}]}}',
      '{"type":"assistant","message":"not an object"}',
      '{"type":"assistant","message":{"content":[{"type":"tool_use"},{"type":"tool_use","name":"Bash","input":"ls"}]}}',
      '{"type":42}',
      '{"no":"type"}',
      '{"type":"user","timestamp":"yesterday","sessionId":7,"cwd":"","message":{"content":"second"}}',
      '{"type":"ai-title","aiTitle":""}',
      '{"type":"custom-title","customTitle":null}',
      '{"type":"pr-link","prNumber":"abc","prRepository":"a/b"}',
    ];
    const f = parseTranscript(lines.join('\n'));
    expect(f.prompts).toEqual(['first', 'second']);
    expect(f.malformedLines).toBe(0);
    expect(f.toolUses).toEqual([{ name: '', input: undefined }, { name: 'Bash', input: 'ls' }]);
    expect(f.commands).toEqual([]);
    expect(f.title).toBeUndefined();
    expect(f.prLinks).toEqual([]);
    expect(f.unknownTypes).toEqual([]);
    expect(f.startedAt).toBeUndefined();
    expect(f.sessionId).toBeUndefined();
    expect(f.cwd).toBeUndefined();
  });

  it('strips system reminders and keeps a prompt that is only a reminder out', () => {
    const f = parseTranscript(
      [
        '{"type":"user","message":{"content":"<system-reminder>\\nTodo list is empty.\\n</system-reminder>"}}',
        '{"type":"user","message":{"content":[{"type":"text","text":"rename the flag"},{"type":"text","text":"<system-reminder>The user changed the file.</system-reminder>"}]}}',
        '{"type":"user","message":{"content":"<task-notification><result>done</result></task-notification>"}}',
        '{"type":"user","origin":{"kind":"task-notification"},"message":{"content":"background job finished"}}',
      ].join('\n'),
    );
    expect(f.prompts).toEqual(['rename the flag']);
  });

  it('names the file of a Read-shaped result whose tool_use is missing, but not of a Write result', () => {
    const f = parseTranscript(
      [
        '{"type":"user","toolUseResult":{"type":"text","file":{"filePath":"/p/.env","content":"A=1"}},"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_x1","content":"A=1"}]}}',
        '{"type":"user","toolUseResult":{"filePath":"/p/key.pem","content":"-----BEGIN"},"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_x2","content":[{"type":"text","text":"-----BEGIN"},{"type":"image"}]}]}}',
        '{"type":"user","toolUseResult":{"type":"create","filePath":"/p/new.ts","content":"x"},"message":{"content":[{"type":"tool_result","tool_use_id":"toolu_x3","content":"File created"}]}}',
        '{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_x1","content":"again"}]}}',
      ].join('\n'),
    );
    expect(f.toolResults).toEqual([
      { toolUseId: 'toolu_x1', text: 'A=1', filePath: '/p/.env' },
      { toolUseId: 'toolu_x2', text: '-----BEGIN', filePath: '/p/key.pem' },
      { toolUseId: 'toolu_x3', text: 'File created' },
    ]);
    expect(f.prompts).toEqual([]);
  });

  it('takes the most used model counted per message, and ties to the first seen', () => {
    const rec = (id: string, model: string) =>
      JSON.stringify({ type: 'assistant', message: { id, model, content: [{ type: 'text', text: id }] } });
    const f = parseTranscript([rec('m1', 'a'), rec('m1', 'a'), rec('m1', 'a'), rec('m2', 'b'), rec('m3', 'b'), rec('m4', '<synthetic>')].join('\n'));
    expect(f.model).toBe('b');
    expect(parseTranscript([rec('m1', 'a'), rec('m2', 'b')].join('\n')).model).toBe('a');
    expect(parseTranscript(rec('m4', '<synthetic>')).model).toBeUndefined();
  });

  it('parses a 5 MB transcript whole: every turn of every copy, the files changed, no line malformed', () => {
    const base = fixture('coding-session.jsonl').trimEnd().split('\n');
    const parts: string[] = [];
    let size = 0;
    let copies = 0;
    while (size < 5 * 1024 * 1024) {
      const tag = `c${copies++}`;
      for (const line of base) {
        const l = line.replace(/"uuid":"/g, `"uuid":"${tag}-`).replace(/(toolu_|msg_)/g, `$1${tag}_`);
        parts.push(l);
        size += l.length + 1;
      }
    }
    const text = parts.join('\n');
    const f = parseTranscript(text);
    expect(f.turns).toBe(3 * copies);
    expect(f.filesChanged).toHaveLength(4); // the same paths each copy
    expect(f.malformedLines).toBe(0);
  });
});

describe('allTranscriptText', () => {
  it('holds everything a check must see', () => {
    const all = allTranscriptText(parse('coding-session.jsonl'));
    expect(all).toContain('Fix cent rounding in invoice totals'); // title
    expect(all).toContain('Also handle JPY'); // prompt
    expect(all).toContain('honours half-even'); // assistant text
    expect(all).toContain('hunter2-not-real'); // the .env read result
    expect(all).toContain("test('1.005 rounds to 1.00 half-even'"); // a Write input, as JSON
    expect(all).toContain('git push -u origin fix/rounding'); // a command
    expect(all).toContain('float arithmetic in the money helper'); // thinking
    expect(all).toContain('/home/dana/src/invoice-api'); // the project directory

    const sub = allTranscriptText(parse('subagent-compact.jsonl'));
    expect(sub).toContain('Pending: src/report/import.ts:18'); // recap
    expect(sub).toContain('date-tz audit');
    expect(sub).toContain('moment(string)'); // the subagent prompt
    expect(sub).toContain('# Timezone audit'); // the subagent's Write input

    const slash = allTranscriptText(parse('slash-commands.jsonl'));
    expect(slash).toContain('?? notes/review-12.md'); // bash-mode output
    expect(slash).toContain('written by a future release'); // the unknown record
  });

  it('accepts facts built by hand, without other texts', () => {
    const facts: TranscriptFacts = { ...EMPTY, prompts: ['ssh db.internal'], title: 't' };
    delete facts.otherTexts;
    expect(allTranscriptText(facts)).toBe('t\nssh db.internal');
  });
});

describe('parseTranscript: a /compact as Claude Code 2.1.328 writes it', () => {
  // The compaction texts are the CLI's own strings (found in its binary): the opening, the summary the model wrote
  // (its <analysis> draft and <summary> tags), the pointer to the full transcript and the line telling it to go on.
  const base = { sessionId: 's-compact', cwd: '/w/p', gitBranch: 'main', isSidechain: false };
  const lines = [
    { ...base, type: 'user', uuid: 'u1', timestamp: '2026-05-01T10:00:00.000Z', message: { role: 'user', content: 'Rename the config loader and update callers.' } },
    { ...base, type: 'assistant', uuid: 'a1', timestamp: '2026-05-01T10:00:05.000Z', message: { id: 'm1', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Done.' }] } },
    { ...base, type: 'user', uuid: 'u2', timestamp: '2026-05-01T10:01:00.000Z', message: { role: 'user', content: '<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>' } },
    { ...base, type: 'system', subtype: 'compact_boundary', content: 'Conversation compacted', uuid: 's1', timestamp: '2026-05-01T10:01:10.000Z', compactMetadata: { trigger: 'manual', preTokens: 1200 } },
    {
      ...base,
      type: 'user',
      uuid: 'u3',
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      timestamp: '2026-05-01T10:01:11.000Z',
      message: {
        role: 'user',
        content:
          'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n<analysis>\nThe user wanted a rename.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   Rename loadConfig to readConfig and update callers.\n\n7. Pending Tasks:\n   - none\n</summary>\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: /home/u/.claude/projects/-w-p/s-compact.jsonl\n\nContinue the conversation from where it left off without asking the user any further questions. Pick up the last task as if the break never happened.',
      },
    },
    { ...base, type: 'user', uuid: 'u4', timestamp: '2026-05-01T10:01:12.000Z', message: { role: 'user', content: '<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>' } },
  ];
  const f = parseTranscript(lines.map((l) => JSON.stringify(l)).join('\n'));

  it('keeps the model summary as the recap, with no boilerplate, and does not count /compact as a prompt', () => {
    expect(f.recaps).toEqual(['1. Primary Request and Intent:\n   Rename loadConfig to readConfig and update callers.\n\n7. Pending Tasks:\n   - none']);
    expect(f.prompts).toEqual(['Rename the config loader and update callers.']);
    expect(f.turns).toBe(1);
  });
});

describe('parseTranscript: what the tool results say about writes and commands', () => {
  const base = { sessionId: 's-results', cwd: '/w/p', gitBranch: 'main', isSidechain: false };
  let n = 0;
  const rec = (r: Record<string, unknown>): string => JSON.stringify({ ...base, uuid: `r${++n}`, timestamp: `2026-05-01T10:00:${String(n).padStart(2, '0')}.000Z`, ...r });
  const call = (id: string, name: string, input: unknown): string => rec({ type: 'assistant', message: { id: `m-${id}`, role: 'assistant', model: 'claude-x', content: [{ type: 'tool_use', id, name, input }] } });
  const result = (id: string, content: string, isError?: boolean): string =>
    rec({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError === undefined ? {} : { is_error: isError }) }] }, toolUseResult: isError ? `Error: ${content}` : { stdout: content } });
  const f = parseTranscript(
    [
      rec({ type: 'user', message: { role: 'user', content: 'Fix it.' } }),
      call('w1', 'Write', { file_path: '/w/p/denied.md', content: 'x' }),
      result('w1', 'PreToolUse:Write hook error: git-kb prose gate: this Write call was held', true),
      call('w2', 'Edit', { file_path: '/w/p/a.ts', old_string: 'x', new_string: 'y' }),
      result('w2', '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>', true),
      call('w3', 'Edit', { file_path: '/w/p/a.ts', old_string: 'x', new_string: 'y' }),
      result('w3', 'The file /w/p/a.ts has been updated successfully.'),
      call('w4', 'Write', { file_path: '/w/p/never-answered.md', content: 'x' }),
      call('b1', 'Bash', { command: 'npm test' }),
      result('b1', 'Exit code 1\nFAIL', true),
      call('b2', 'Bash', { command: 'git-kb add "a note"' }),
      result('b2', 'kb-3m3vployhd', false),
      call('b3', 'Bash', { command: 'sleep 100' }),
    ].join('\n'),
  );

  it('files changed are the writes whose result came back without an error', () => {
    expect(f.filesChanged).toEqual(['/w/p/a.ts']);
  });

  it('each command carries its result and whether it was an error', () => {
    expect(f.commands).toEqual([
      { command: 'npm test', result: { text: 'Exit code 1\nFAIL', error: true } },
      { command: 'git-kb add "a note"', result: { text: 'kb-3m3vployhd', error: false } },
      { command: 'sleep 100' },
    ]);
  });
});

describe("cleanRecap: Claude Code's wrapper blocks", () => {
  it('drops <system-reminder> blocks (the tools-used list of 2.1.328 and 2.1.332) and a bare <tools-used-before-summary>', () => {
    const opening = 'This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.';
    expect(cleanRecap(`${opening}\n\n<system-reminder>\n<tools-used-before-summary>Bash, Edit</tools-used-before-summary>\n</system-reminder>\nSummary:\nFixed the parser.`)).toBe('Fixed the parser.');
    expect(cleanRecap(`${opening}\n\n<tools-used-before-summary>Bash, Edit</tools-used-before-summary>\n<summary>\nFixed the parser.\n</summary>`)).toBe('Fixed the parser.');
    expect(cleanRecap('Fixed the parser.\n\n<system-reminder>Note: a file was modified.</system-reminder>\n\nTests pass.')).toBe('Fixed the parser.\n\nTests pass.');
    // One that is never closed runs to the end of its line.
    expect(cleanRecap('<system-reminder>tools: Bash, Edit\nFixed the parser.')).toBe('Fixed the parser.');
  });
});
