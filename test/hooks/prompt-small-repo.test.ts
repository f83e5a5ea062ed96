/**
 * The keyword signal on tiny repos (issue 11): its IDF never zeroes a word in a repo of 1 to 3 entries, so a
 * prompt about the one note points to it. Run through the exact command of hooks/hooks.json.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { contextOf, makeRepo, payload, pointerIds, runPromptHook, tid } from './prompt-support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-prompt-small-');
});
afterEach(() => sb.cleanup());

describe('prompt hook on a small repo', () => {
  it('one note and one kernel entry: a prompt about the note points to it', async () => {
    await makeRepo(sb, [
      { id: tid(1), title: 'Postgres analytics database scaling with read replicas', tags: ['postgres', 'analytics', 'scaling'] },
      { id: tid(2), title: 'House rule', tags: ['style'], kernel: true, body: 'Write plain sentences.' },
    ]);
    const ctx = contextOf(await runPromptHook(sb, payload('How should we scale the analytics database running on postgres?')));
    expect(pointerIds(ctx)).toEqual([tid(1)]);
    // An unrelated prompt gets the kernel only.
    const other = contextOf(await runPromptHook(sb, payload('Write a haiku about autumn leaves falling in the park', 'session-b')));
    expect(pointerIds(other)).toEqual([]);
  });

  it('three seeded entries: a matching prompt points to its entry, a non-matching one to none', async () => {
    await makeRepo(sb, [
      { id: tid(1), title: 'Use Postgres for the billing service', type: 'decision', tags: ['postgres', 'billing'], body: 'We chose Postgres over MySQL for billing: transactions and JSONB.' },
      { id: tid(2), title: 'Vitest documentation', type: 'bookmark', tags: ['testing', 'vitest'], body: 'The Vitest guide on mocking and snapshot testing.' },
      { id: tid(3), title: 'Rebase feature branches before merging', tags: ['git', 'workflow'], body: 'Rebase onto main, then merge with a fast-forward.' },
    ]);
    const ctx = contextOf(await runPromptHook(sb, payload('Which database did we decide on for the billing service, postgres or mysql?')));
    expect(pointerIds(ctx)).toEqual([tid(1)]);
    const none = contextOf(await runPromptHook(sb, payload('Plan a weekend trip to the mountains with a budget for two', 'session-b')));
    expect(pointerIds(none)).toEqual([]);
  });

  it('a prompt in the words of a body (not the title) reaches the note', async () => {
    await makeRepo(sb, [
      { id: tid(1), title: 'Vacuum settings', tags: ['postgres'], body: 'Autovacuum falls behind on the events table; lower autovacuum_vacuum_scale_factor and raise the cost limit.' },
      { id: tid(2), title: 'Vim registers', tags: ['vim'], body: 'The black hole register discards a yank.' },
    ]);
    const ctx = contextOf(await runPromptHook(sb, payload('autovacuum keeps falling behind on our events table, what cost limit should we use?')));
    expect(pointerIds(ctx)).toEqual([tid(1)]);
  });
});
