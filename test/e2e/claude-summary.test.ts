/**
 * What a session summary says, from sessions run live through the real Claude Code CLI and the installed plugin:
 * only writes that succeeded are files changed (a Write refused by print mode's permissions, one denied by the
 * prose gate and an Edit that failed are not); git-kb's own writes are shown with their text elided and the id
 * they wrote; a compact recap is the model's summary without Claude Code's wrapper blocks; a one-prompt session
 * that fixed something with Bash is offered on the next session's first prompt, with its pointer cut at a word
 * and its prompt count whole, while a session that only looked around is not.
 *
 * With RECORD_TRANSCRIPTS=1 the transcripts the CLI wrote are saved as the fixtures test/sessions.test.ts reads
 * (test/fixtures/transcripts/cli-<version>-*.jsonl; see the README there).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kbJson } from '../helpers/cli.js';
import { textsOf, type ModelRequest, type Reply } from '../helpers/model-api.js';
import { claude, contextsOf, installed, installedRig, isJudgeRequest, prompt, verdictReply, waitFor, type Rig } from './claude-support.js';

let rig: Rig;
let version = '';
beforeAll(async () => {
  rig = await installedRig('gkb-cc-summary-');
  version = /^\S+/.exec((await claude(rig.sb, ['--version'])).stdout.trim())?.[0] ?? 'unknown';
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

const FIXTURES = path.resolve(import.meta.dirname, '..', 'fixtures', 'transcripts');
/** Every Stop writes its summary (no debounce window), so each turn's summary can be read right after it. */
const ENV = { KB_SESSION_DEBOUNCE_S: '0' };

/** The lesson a session saves with `git-kb add`: words that appear nowhere else. */
const LESSON =
  'Quillwort notes files keep their typos on the first line because the generator copies the heading verbatim; read the whole file before editing it.';
const LESSON_TITLE = 'Quillwort notes keep typos in the heading line';
const HEREDOC_LESSON = 'Marshwort changelog checks fail on a typo anywhere in the first paragraph, not only in the heading of the file.';
/** The compact summary the stand-in writes when Claude Code asks for one. */
const RECAP = 'Primary request: fix the typo in notes.txt. Done: the first line now reads "the first line".';

/** True for the request Claude Code sends to have the conversation summarised (`/compact`). */
function isCompactRequest(req: ModelRequest): boolean {
  return textsOf(req).some((t) => t.includes('an <analysis> block followed by a <summary> block'));
}

/** Scripts the main conversation with `steps`; the compaction request gets RECAP; judge children pass. */
function script(steps: Reply[]): void {
  const queue = [...steps];
  rig.api.script((req) => {
    if (isJudgeRequest(req)) return verdictReply(req, { pass: true });
    if (isCompactRequest(req)) return `<analysis>\nThe user asked for a typo fix.\n</analysis>\n\n<summary>\n${RECAP}\n</summary>`;
    if (!req.main) return 'OK.';
    return queue.shift() ?? 'Done.';
  });
}

function transcriptOf(session: string, cwd = rig.sb.project): string {
  return path.join(rig.sb.home, '.claude', 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${session}.jsonl`);
}

/** Saves a session's transcript as a fixture when RECORD_TRANSCRIPTS=1. */
function record(session: string, name: string, cwd?: string): void {
  if (process.env.RECORD_TRANSCRIPTS !== '1') return;
  fs.copyFileSync(transcriptOf(session, cwd), path.join(FIXTURES, `cli-${version}-${name}.jsonl`));
}

type Listed = { sessions: Array<{ id: string; session_id: string; turns: number; path: string }> };

/** The summary file of a session once `ready(text)` holds for it. */
async function summaryText(session: string, ready: (text: string) => boolean = () => true): Promise<{ id: string; text: string }> {
  const found = await waitFor(async () => {
    const s = (await kbJson<Listed>(rig.sb, ['session', 'list'])).sessions.find((x) => x.session_id === session);
    if (!s) return undefined;
    const text = fs.readFileSync(path.join(rig.sb.data, s.path), 'utf8');
    return ready(text) ? { id: s.id, text } : undefined;
  }, 20_000);
  expect(found, `no summary of ${session}`).toBeDefined();
  return found!;
}

/** A summary's `## <heading>` section. */
function section(text: string, heading: string): string {
  const part = text.split(/^## /m).find((p) => p.startsWith(`${heading}\n`));
  return part ? part.slice(heading.length + 1).trim() : '';
}

describe('a session with failed writes, git-kb writes and a compaction', () => {
  it('lists only the file it wrote, elides the notes it saved, and keeps the recap without the wrapper', async () => {
    const { sb } = rig;
    const notes = path.join(sb.project, 'notes.txt');
    fs.writeFileSync(notes, 'teh first line\n');
    const outside = path.join(sb.root, 'elsewhere', 'out.txt');
    fs.mkdirSync(path.dirname(outside), { recursive: true });
    const plugin = installed(sb).installPath;
    script([
      { tool: 'Write', input: { file_path: outside, content: 'x\n' } }, // outside the project: print mode refuses
      { tool: 'Write', input: { file_path: path.join(sb.project, 'README.md'), content: 'We leverage the planner.\n' } }, // the gate denies
      { tool: 'Edit', input: { file_path: notes, old_string: 'tehh', new_string: 'the' } }, // fails: no such string
      { tool: 'Read', input: { file_path: notes } },
      { tool: 'Edit', input: { file_path: notes, old_string: 'teh', new_string: 'the' } },
      { tool: 'Bash', input: { command: `git-kb add --type lesson_learned --title "${LESSON_TITLE}" --tags notes -- "${LESSON}"`, description: 'Save the lesson' } },
      { tool: 'Bash', input: { command: `node ${plugin}/bin/git-kb add --type lesson_learned --title "Marshwort changelog checks" <<'EOF'\n${HEREDOC_LESSON}\nEOF`, description: 'Save another' } },
      { tool: 'Bash', input: { command: 'git-kb search "quillwort typos"', description: 'Check it is found' } },
      'Fixed the typo in notes.txt and saved two lessons.',
    ]);
    const first = await prompt(sb, 'Fix the typo in notes.txt and save what we learned.', ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'], { env: ENV });
    const session = first.json.session_id!;
    expect(first.json.permission_denials).toHaveLength(2); // the Write outside, and the gate's deny
    expect(fs.readFileSync(notes, 'utf8')).toBe('the first line\n');
    expect(fs.existsSync(path.join(sb.project, 'README.md'))).toBe(false);

    script([]);
    const compact = await claude(sb, ['-p', '/compact', '--output-format', 'json', '--resume', session], { env: ENV });
    expect(compact.code, compact.stderr).toBe(0);
    script(['Nothing left to do.']);
    await prompt(sb, 'Anything left?', ['--resume', session], { env: ENV });
    record(session, 'failed-writes-compact');

    const { id, text } = await summaryText(session, (t) => /^turns: 2$/m.test(t));
    expect(text).toMatch(/^files_changed: 1$/m);
    expect(section(text, 'Files changed')).toBe('- notes.txt');
    expect(text).not.toContain('out.txt');
    expect(text).not.toContain('README.md');

    const commands = section(text, 'Commands');
    const lessons = (await kbJson<{ entries: Array<{ id: string; title: string }> }>(sb, ['list', '--type', 'lesson_learned'])).entries;
    const quill = lessons.find((e) => e.title === LESSON_TITLE)!.id;
    const marsh = lessons.find((e) => e.title === 'Marshwort changelog checks')!.id;
    expect(commands).toContain(`git-kb add --type lesson_learned --title … --tags notes -- … # text elided; wrote ${quill}`);
    expect(commands).toContain(`git-kb add --type lesson_learned --title … # text elided; wrote ${marsh}`);
    expect(commands).toContain('git-kb search "quillwort typos"');
    expect(text).not.toContain('generator copies the heading');
    expect(text).not.toContain('anywhere in the first paragraph');

    // The session is no near-duplicate of the note it wrote: a search for the note's words finds the note, and the
    // session at most as a faint match (with the note's text in it, it scored as high as the note).
    const hits = (await kbJson<{ results: Array<{ id: string; score: number }> }>(sb, ['search', 'generator copies the heading verbatim'])).results;
    expect(hits[0]!.id).toBe(quill);
    expect(hits.find((h) => h.id === id)?.score ?? 0).toBeLessThan(hits[0]!.score / 5);

    expect(section(text, 'Recaps')).toBe(RECAP);
    expect(text).not.toContain('system-reminder');
    expect(text).not.toContain('tools-used-before-summary');
  }, 120_000);
});

/** A first prompt longer than a pointer line, so the pointer must cut the title. */
const LONG_PROMPT =
  'The first line of notes.txt has a typo that breaks the release notes generator and the changelog check in CI; please find it and fix it.';

describe('short sessions', () => {
  it('offers a one-prompt session that fixed something with Bash, cut at a word with its prompt count whole, and not one that only looked', async () => {
    const { api, sb } = rig;
    fs.writeFileSync(path.join(sb.project, 'notes.txt'), 'teh first line\n');
    script([
      { tool: 'Bash', input: { command: 'ls', description: 'List files' } },
      { tool: 'Bash', input: { command: 'grep -n teh notes.txt', description: 'Find the typo' } },
      { tool: 'Bash', input: { command: "sed -i 's/teh/the/' notes.txt", description: 'Fix it' } },
      'Fixed the typo on line 1.',
    ]);
    const fix = await prompt(sb, LONG_PROMPT, ['--allowedTools', 'Bash'], { env: ENV });
    expect(fs.readFileSync(path.join(sb.project, 'notes.txt'), 'utf8')).toBe('the first line\n');
    record(fix.json.session_id!, 'bash-fix');
    const fixed = await summaryText(fix.json.session_id!);
    expect(fixed.text).toMatch(/^commands: 1$/m);
    expect(fixed.text).not.toMatch(/^files_changed:/m);

    script([
      { tool: 'Bash', input: { command: 'ls -la', description: 'List files' } },
      { tool: 'Bash', input: { command: 'git-kb search "notes typo"', description: 'Search the knowledge base' } },
      'There is one file, notes.txt.',
    ]);
    const look = await prompt(sb, 'What is in this folder?', ['--allowedTools', 'Bash'], { env: ENV });
    record(look.json.session_id!, 'look-only');
    const looked = await summaryText(look.json.session_id!);
    expect(looked.text).not.toMatch(/^commands:/m);

    // The next session's first prompt in this folder points to the fix and not to the look around.
    script(['Hello.']);
    api.reset();
    await prompt(sb, 'Let us continue with the release notes generator and its changelog check.', [], { env: ENV });
    const context = contextsOf(api.mainRequests()[0]!).join('\n');
    const line = context.split('\n').find((l) => l.startsWith(`- ${fixed.id} — earlier session: `));
    expect(line, context).toBeDefined();
    expect(line).toMatch(/ \(1 prompt\)$/);
    const title = line!.slice(`- ${fixed.id} — `.length);
    expect(title.length).toBeLessThanOrEqual(120);
    // The title (the prompt's first line) is cut after a whole word.
    const shown = /· ([^·]*)… \(1 prompt\)$/.exec(title)![1]!;
    expect(LONG_PROMPT.startsWith(shown)).toBe(true);
    expect(LONG_PROMPT[shown.length]).toBe(' ');
    expect(context).not.toContain(looked.id);
  }, 120_000);
});

