/**
 * Recurring lessons through the CLI (spec/memory.md, "Learnings"): `add --pattern-key` records a recurrence on the
 * entry that has the key instead of a duplicate; seen `promote_after` times it is a promotion candidate in
 * `status`; `promote` makes it kernel within the kernel budget, and the next prompt carries its body. Also the
 * budgets of kb.json as `status` shows them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { contextOf, payload, runPromptHook } from '../hooks/prompt-support.js';
import { commitAll, commitCount, initRepo, jsonError, kbd, kbj, treePaths } from './support.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
});
afterAll(() => sb.cleanup());

const lesson = (context: string): string[] => ['add', '--type', 'lesson_learned', '--title', 'pnpm install needs --frozen-lockfile in CI', '--tags', 'pnpm,ci', '--pattern-key', 'pnpm-frozen-lockfile', '--', context];

describe('learnings', () => {
  let id: string;

  it('records the same pattern key three times on one entry, and lists it as a promotion candidate', async () => {
    const first = await kbj(sb, lesson('Without it CI rewrote the lockfile (zebracorn build).'));
    expect(first).toMatchObject({ recurred: false, count: 1 });
    id = first.id;
    const second = await kbj(sb, lesson('Happened again on the release branch.'));
    expect(second).toEqual({ id, path: first.path, commit: expect.stringMatching(/^[0-9a-f]{40}$/), recurred: true, count: 2 });
    const third = await kbd(sb, lesson('And a third time in the docs job.'));
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain(`no new entry: recorded a recurrence on ${id} (seen 3 times`);
    expect(await treePaths(sb)).toEqual([first.path]);
    const text = fs.readFileSync(path.join(sb.data, first.path), 'utf8');
    expect(text).toMatch(/^pattern_key: pnpm-frozen-lockfile$/m);
    expect(text).toMatch(/^recurrences: 3$/m);
    expect(text.match(/^Seen again \d{4}-\d\d-\d\d:$/gm)).toHaveLength(2);
    expect(text).toContain('And a third time in the docs job.');
    const s = await kbj(sb, ['status']);
    expect(s.memory.promotion_candidates).toEqual([{ id, title: 'pnpm install needs --frozen-lockfile in CI', count: 3 }]);
    expect((await kbd(sb, ['status'])).stdout).toMatch(new RegExp(`^ {2}${id} {2}3x {2}pnpm install`, 'm'));
  });

  it('refuses a pattern key that is not a slug, writing nothing', async () => {
    const n = await commitCount(sb);
    const r = await kbd(sb, ['--json', 'add', '--type', 'lesson_learned', '--title', 'x', '--pattern-key', 'Not A Slug', '--', 'body']);
    expect(r.code).toBe(5);
    expect(jsonError(r).message).toContain('pattern_key');
    expect(await commitCount(sb)).toBe(n);
  });

  it('refuses a decision given a lesson\'s pattern key instead of folding it into the lesson (issue 29)', async () => {
    const n = await commitCount(sb);
    const r = await kbd(sb, ['--json', 'add', '--type', 'decision', '--title', 'We pin pnpm in CI', '--pattern-key', 'pnpm-frozen-lockfile', '--', 'Decided: pin it.']);
    expect(r.code).toBe(4);
    const err = jsonError(r);
    expect(err.message).toContain(`pattern key pnpm-frozen-lockfile belongs to ${id} "pnpm install needs --frozen-lockfile in CI", a lesson_learned; a decision is not a recurrence of it`);
    expect(err.message).toContain('without --pattern-key');
    expect(await commitCount(sb)).toBe(n);
    expect((await kbd(sb, ['get', id])).stdout).not.toContain('Decided: pin it.');
  });

  it('writes kernel prose rules with --rule on add and edit, and removes one with --remove-rule', async () => {
    const r = await kbj(sb, ['add', '--kernel', '--type', 'pattern_convention', '--title', 'Plain words', '--rule', '\\bleverag(e|es|ed|ing)\\b => Say "use", not "leverage".', '--rule', '/!{2,}/ => One exclamation mark at most.', '--', 'Write plainly.']);
    const file = (): string => fs.readFileSync(path.join(sb.data, r.path), 'utf8');
    expect(file()).toContain("rules:\n  - pattern: \\bleverag(e|es|ed|ing)\\b\n    message: Say \"use\", not \"leverage\".\n  - pattern: \"!{2,}\"\n    message: One exclamation mark at most.\n    flags: \"\"");
    await kbj(sb, ['edit', r.id, '--rule', '\\butilise\\b => Say "use".', '--remove-rule', '!{2,}']);
    const after = file();
    expect(after).toContain('utilise');
    expect(after).not.toContain('exclamation');
    expect(after).toContain('leverag');
    const bad = await kbd(sb, ['--json', 'edit', r.id, '--rule', 'no arrow here']);
    expect(bad.code).toBe(2);
    expect(jsonError(bad).message).toContain('must be PATTERN => MESSAGE');
    const unsafe = await kbd(sb, ['--json', 'add', '--type', 'pattern_convention', '--title', 'x', '--rule', '(a+)+ => no', '--', 'x']);
    expect(unsafe.code).toBe(5);
    expect(jsonError(unsafe).message).toContain('rules[0]');
    await kbj(sb, ['edit', r.id, '--no-kernel']);
  });

  it('edit --pattern-key names a lesson for later recurrences; a key another entry has is refused; \'\' removes it', async () => {
    const other = (await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'Docker layer cache misses', '--', 'COPY . before npm ci busts the cache.'])).id as string;
    const n = await commitCount(sb);
    const taken = await kbd(sb, ['--json', 'edit', other, '--pattern-key', 'pnpm-frozen-lockfile']);
    expect(taken.code).toBe(4);
    expect(jsonError(taken)).toMatchObject({ code: 'CONFLICT' });
    expect(await commitCount(sb)).toBe(n);
    expect((await kbj(sb, ['edit', other, '--pattern-key', 'docker-layer-cache'])).diff).toContain('+pattern_key: docker-layer-cache');
    expect(await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'cache again', '--pattern-key', 'docker-layer-cache', '--', 'Again.'])).toMatchObject({ id: other, recurred: true, count: 2 });
    expect((await kbj(sb, ['edit', other, '--pattern-key', ''])).diff).toContain('-pattern_key: docker-layer-cache');
    await kbj(sb, ['delete', other]);
  });

  it('promotes the candidate to the kernel, and the next prompt carries its body', async () => {
    const r = await kbj(sb, ['promote', id]);
    expect(r).toMatchObject({ id, changed: true, budget: 6000 });
    expect((await kbj(sb, ['status'])).memory.promotion_candidates).toEqual([]);
    const ctx = contextOf(await runPromptHook(sb, payload('how should the continuous integration job install dependencies for this project?')));
    expect(ctx).toContain('zebracorn build');
    // The lesson, not its history: the Seen again log stays in the file, off the prompt (issue 29).
    expect(ctx).not.toContain('Seen again');
    expect(ctx).not.toContain('And a third time in the docs job.');
    expect((await kbj(sb, ['promote', id])).changed).toBe(false);
  });

  it('refuses a promotion over the kernel budget of kb.json, naming what to compact', async () => {
    const big = await kbj(sb, ['add', '--type', 'pattern_convention', '--title', 'A long convention', '--', 'word '.repeat(100)]);
    const manifest = JSON.parse(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8'));
    fs.writeFileSync(path.join(sb.data, 'kb.json'), `${JSON.stringify({ ...manifest, budgets: { kernel_chars: 600, host_chars: 50, entry_chars: 400 } }, null, 2)}\n`);
    await commitAll(sb, 'budgets');
    const n = await commitCount(sb);
    const r = await kbd(sb, ['--json', 'promote', big.id]);
    expect(r.code).toBe(4);
    const err = jsonError(r);
    expect(err.message).toContain('/git-kb compact kernel in Claude Code'); // the skill's: the CLI has no compact ID
    expect(err.message).toContain('git-kb edit');
    expect(err.message).toContain(id);
    expect(await commitCount(sb)).toBe(n);
    const s = await kbj(sb, ['status']);
    expect(s.memory.kernel).toMatchObject({ budget: 600, over: false, entries: 1 });
    expect(s.memory.biggest_entry).toMatchObject({ id: big.id, budget: 400, over: true });
    expect((await kbd(sb, ['status'])).stdout).toContain(`biggest entry: ${big.id}, ${s.memory.biggest_entry.chars} of 400 characters OVER BUDGET`);
  });

  it("warns when add or edit leaves an entry's body over its type's budget (the Stop hook would block on it), and says nothing within it", async () => {
    const big = await kbd(sb, ['add', '--type', 'lesson_learned', '--title', 'A long lesson', '--', 'word '.repeat(100)]);
    expect(big.code, big.stderr).toBe(0);
    // Before: no word, and the next Stop hook blocked the turn for it.
    expect(big.stderr).toBe('git-kb: warning: the body is 500 characters, over this type\'s budget of 400 (kb.json "budgets.entry_chars"): the next Stop hook asks to compact it; shorten it with git-kb edit, or split it into linked entries\n');
    const id = big.stdout.trim();
    expect(JSON.parse((await kbd(sb, ['--json', 'edit', id, '--append', 'more'])).stdout).entry_over).toEqual({ chars: 506, budget: 400 });
    const fits = await kbd(sb, ['edit', id, '--body', 'short now']);
    expect([fits.code, fits.stderr]).toEqual([0, '']);
  });

  it('warns when add --kernel or edit of a kernel entry puts the kernel over its budget, naming what the prompt shows as a pointer', async () => {
    const added = await kbd(sb, ['add', '--kernel', '--type', 'pattern_convention', '--title', 'Commit style', '--', 'word '.repeat(130)]);
    expect(added.code, added.stderr).toBe(0);
    const kid = added.stdout.trim();
    expect(kid).toMatch(/^kb-[0-9a-z]+$/);
    expect(added.stderr).toMatch(/git-kb: warning: the kernel is \d+ of its 600-character budget \(kb.json "budgets.kernel_chars"\): every kernel body is still shown whole/);
    expect(added.stderr).toContain('git-kb compact kernel');
    const grown = await kbd(sb, ['--json', 'edit', kid, '--body', 'word '.repeat(1250)]);
    expect(grown.code, grown.stderr).toBe(0);
    expect(JSON.parse(grown.stdout).kernel_over).toMatchObject({ budget: 600, pointers: [{ id: kid, title: 'Commit style' }] });
    const text = await kbd(sb, ['edit', kid, '--append', 'one more']);
    expect(text.stderr).toContain(`the prompt now shows ${kid} "Commit style" as a pointer instead of its body`);
    // An ordinary entry says nothing.
    expect((await kbd(sb, ['add', '--type', 'decision', '--title', 'Plain', '--', 'plain'])).stderr).toBe('');
    await kbj(sb, ['edit', kid, '--no-kernel']);
    // edit --kernel: the same warning.
    const again = await kbd(sb, ['edit', kid, '--kernel']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`${kid} "Commit style" as a pointer`);
    await kbj(sb, ['edit', kid, '--no-kernel']);
  });

  it('refuses a kb.json budget that is not a positive whole number, or a kernel budget the hook cannot inject', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8'));
    fs.writeFileSync(path.join(sb.data, 'kb.json'), JSON.stringify({ ...manifest, budgets: { kernel_chars: 9000 } }));
    const r = await kbd(sb, ['status']);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('kb.json: "budgets.kernel_chars" must be a whole number from 1 to 6000');
    fs.writeFileSync(path.join(sb.data, 'kb.json'), JSON.stringify({ ...manifest, promote_after: 0 }));
    expect((await kbd(sb, ['status'])).stderr).toContain('"promote_after"');
  });
});
