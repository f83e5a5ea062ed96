/**
 * The installed plugin across a session, with the real Claude Code CLI: a pointer once per session across
 * `--resume` turns (the kernel every time); the model running `git-kb search` and `git-kb get` through the skill
 * with no permission prompt; and the transcript the CLI writes becoming a session summary in which secrets typed
 * in the prompt are nowhere in the data repo's git objects.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, kb, kbJson } from '../helpers/cli.js';
import { lastToolResults } from '../helpers/model-api.js';
import { contextsOf, converse, installedRig, KERNEL_BODY, POSTGRES_PROMPT, prompt, waitFor, type Rig } from './claude-support.js';

let rig: Rig;
beforeAll(async () => {
  rig = await installedRig('gkb-cc-session-');
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

/** A second prompt that matches the postgres note as well as the first. */
const FOLLOW_UP = 'Which autovacuum settings would you change first for postgres tables with large row counts?';

describe('one session, several turns', () => {
  it('points to a note in the first turn only, across --resume, again after the note changes, and shows the kernel every turn', async () => {
    const { api, sb, seeded } = rig;
    const pointer = `- ${seeded.notes.postgres} — `;

    // Control: the follow-up alone, in a session of its own, gets the pointer.
    converse(api, ['Fresh.']);
    api.reset();
    await prompt(sb, FOLLOW_UP);
    expect(contextsOf(api.mainRequests()[0]!).join('\n')).toContain(pointer);

    converse(api, ['First answer.']);
    api.reset();
    const first = await prompt(sb, POSTGRES_PROMPT);
    const firstContexts = contextsOf(api.mainRequests()[0]!);
    expect(firstContexts).toHaveLength(1);
    expect(firstContexts[0]).toContain(KERNEL_BODY);
    expect(firstContexts[0]).toContain(pointer);
    const session = first.json.session_id!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);

    converse(api, ['Second answer.']);
    api.reset();
    const second = await prompt(sb, FOLLOW_UP, ['--resume', session]);
    expect(second.json.session_id).toBe(session);
    const contexts = contextsOf(api.mainRequests()[0]!);
    // The first turn's context is replayed from the transcript; the second turn's own comes last.
    expect(contexts).toHaveLength(2);
    expect(contexts[0]).toContain(pointer);
    expect(contexts[1]).toContain(KERNEL_BODY);
    expect(contexts[1]).not.toContain(seeded.notes.postgres);

    // A change to the knowledge base (an edit of that note) resets the session's ledger: the pointer comes back.
    const edit = await kb(sb, ['--data', sb.data, 'edit', seeded.notes.postgres!, '--append', 'Check pg_stat_user_tables.n_dead_tup first.']);
    expect(edit.code, edit.stderr).toBe(0);
    converse(api, ['Third answer.']);
    api.reset();
    await prompt(sb, FOLLOW_UP, ['--resume', session]);
    const third = contextsOf(api.mainRequests()[0]!);
    expect(third.at(-1)).toContain(pointer);
  }, 120_000);
});

describe('the skill', () => {
  it('lets the model run git-kb search and git-kb get with no permission prompt, and shows it their output', async () => {
    const { api, sb, seeded } = rig;
    const id = seeded.notes.redis!;
    converse(api, [
      { tool: 'Bash', input: { command: 'git-kb search "redis eviction" "cache keys" --limit 5', description: 'Search the knowledge base' } },
      { tool: 'Bash', input: { command: `git-kb get ${id}`, description: 'Fetch the entry' } },
      'Use allkeys-lru.',
    ]);
    api.reset();
    const r = await prompt(sb, '/git-kb:git-kb search which redis eviction policy suits a cache');
    expect(r.json.permission_denials).toEqual([]);
    expect(r.json.result).toBe('Use allkeys-lru.');
    const main = api.mainRequests();
    expect(main).toHaveLength(3);
    const [search] = lastToolResults(main[1]!);
    expect(search!.is_error).toBeFalsy();
    expect(search!.text).toContain(`${id}  Redis eviction policy for caches`);
    const [get] = lastToolResults(main[2]!);
    expect(get!.is_error).toBeFalsy();
    expect(get!.text).toContain(`id: ${id}`);
    expect(get!.text).toContain('Use allkeys-lru for pure caches');

    // Outside the skill too, the prose gate answers "allow" for git-kb's own read-only commands (the pointer text
    // asks for `git-kb get`), while a write outside the skill still needs permission.
    converse(api, [
      { tool: 'Bash', input: { command: `git-kb get ${id}`, description: 'Fetch the entry' } },
      { tool: 'Bash', input: { command: `git-kb add --type decision --title "Use allkeys-lru" "for caches"`, description: 'Save it' } },
      'Done.',
    ]);
    api.reset();
    const outside = await prompt(sb, 'Which redis eviction policy suits a cache of session tokens?');
    const [read] = lastToolResults(api.mainRequests()[1]!);
    expect(read!.is_error).toBeFalsy();
    expect(read!.text).toContain(`id: ${id}`);
    expect(outside.json.permission_denials).toHaveLength(1);
    expect(JSON.stringify(outside.json.permission_denials)).toContain('git-kb add');
    expect(lastToolResults(api.mainRequests()[2]!)[0]!.is_error).toBe(true);
  }, 60_000);
});

describe('session summaries', () => {
  it('turn the transcript the CLI wrote into a summary, with the secrets of the prompt in no git object', async () => {
    const { api, sb } = rig;
    const aws = 'AKIAQ3ZT5XW7RB2KMN4P';
    const gh = `ghp_${'x7Kq2mVb9RtL4nWc8ZyH1pDs6FgJ3aE5uQo0'}`;
    converse(api, ['Rotate both now.']);
    api.reset();
    const r = await prompt(sb, `The flamegraph job failed after I pasted AWS key ${aws} and token ${gh} into its config; what leaks?`);
    const session = r.json.session_id!;
    // The request carried the secrets: the test really typed them.
    expect(api.mainRequests()[0]!.raw).toContain(aws);
    const transcript = path.join(sb.home, '.claude', 'projects', sb.project.replace(/[^A-Za-z0-9]/g, '-'), `${session}.jsonl`);
    expect(fs.readFileSync(transcript, 'utf8')).toContain(aws);

    type Listed = { sessions: Array<{ id: string; session_id: string; title: string; turns: number; path: string }> };
    const found = await waitFor(async () => (await kbJson<Listed>(sb, ['session', 'list'])).sessions.find((s) => s.session_id === session), 15_000);
    expect(found, 'no summary for the session').toBeDefined();
    expect(found!.turns).toBe(1);
    const text = fs.readFileSync(path.join(sb.data, found!.path), 'utf8');
    expect(text).toContain(`session_id: ${session}`);
    expect(text).toContain('flamegraph job failed');

    const objects = await git(sb.data, ['cat-file', '--batch-all-objects', '--batch']);
    expect(objects).toContain('flamegraph job failed');
    expect(objects).not.toContain(aws);
    expect(objects).not.toContain(gh);
    expect(objects).not.toContain(gh.slice(0, 20));
  }, 60_000);
});
