/**
 * "Did you mean" for every closed set a flag or argument takes (spec/cli.md, "Errors"), through the real CLI:
 * each typo is a usage error (exit 2; compact's target: not found, exit 3) that names the set and the closest
 * choice, and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitCount, initRepo } from './support.js';

let sb: Sandbox;
let id: string;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  id = (await addEntry(sb, { type: 'decision', title: 'Use pnpm', body: 'Strict.' })).id;
});
afterAll(() => sb.cleanup());

describe('a typo in a closed set', () => {
  it.each([
    [['add', '--type', 'decison', '--title', 'T', 'body'], 2, 'did you mean "decision"?'],
    [['edit', '@ID', '--type', 'lesson-learned'], 2, 'did you mean "lesson_learned"?'],
    [['search', 'x', '--type', 'bookmrk'], 2, 'did you mean "bookmark"?'],
    [['list', '--type', 'decison'], 2, 'did you mean "decision"?'],
    [['adopt', '--type', 'decison'], 2, 'did you mean "decision"?'],
    [['add', '--type', 'decision', '--title', 'T', '--link', 'relats_to:@ID', 'body'], 2, 'did you mean "relates_to"?'],
    [['add', '--type', 'decision', '--title', 'T', '--applies-to', 'writting', 'body'], 2, '--applies-to: unknown activity "writting"; one of: writing, reviewing, planning, coding; did you mean "writing"?'],
    [['edit', '@ID', '--applies-to', 'coding,reviwing'], 2, 'did you mean "reviewing"?'],
    [['resolve', '--all', '--keep', 'ourz'], 2, 'unknown --keep "ourz"; one of: ours, theirs, both; did you mean "ours"?'],
    [['completion', 'bsh'], 2, 'unknown shell "bsh"; one of: bash, zsh, fish; did you mean "bash"?'],
    [['compact', 'check', 'kernl', '--baseline', 'HEAD'], 3, 'did you mean "kernel"?'],
    [['list', '--since', 'yesterdy'], 2, 'did you mean "yesterday"?'],
  ])('%j', async (args, code, message) => {
    const before = await commitCount(sb);
    const r = await kb(sb, ['--data', sb.data, ...args.map((a) => a.replace('@ID', id))]);
    expect(r.stderr).toContain(message);
    expect(r.code).toBe(code);
    expect(await commitCount(sb)).toBe(before);
  });
});
