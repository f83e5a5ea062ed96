/**
 * Notes and prompts written without spaces between words (spec/search.md, "Terms"): Japanese text is read as
 * pairs of characters, so a word is found inside a longer run, by search and by the prompt hook (run through the
 * exact command of hooks/hooks.json), and a short Japanese prompt is not skipped as short.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { contextOf, makeRepo, payload, pointerIds, runPromptHook, tid } from './prompt-support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-prompt-cjk-');
});
afterEach(() => sb.cleanup());

describe('text with no spaces between words', () => {
  it('finds a Japanese note by a word inside its runs, in search and in the prompt hook', async () => {
    await makeRepo(sb, [
      { id: tid(1), title: '京都の旅館の予約手順', tags: ['travel'], body: '旅館の予約は二週間前までに電話で行う。キャンセル料は前日から発生する。' },
      { id: tid(2), title: 'Rebase feature branches before merging', tags: ['git'], body: 'Rebase onto main, then merge with a fast-forward.' },
      { id: tid(3), title: 'Vitest snapshot tests', tags: ['testing'], body: 'Update snapshots with the -u flag after a deliberate change.' },
    ]);
    const found = JSON.parse((await kb(sb, ['--data', sb.data, 'search', '旅館', '--json'])).stdout) as { results: { id: string }[] };
    expect(found.results.map((r) => r.id)).toEqual([tid(1)]);
    // 13 characters: no short prompt in Japanese.
    const fires = contextOf(await runPromptHook(sb, payload('京都の旅館を予約する手順は？')));
    expect(pointerIds(fires)).toEqual([tid(1)]);
    // Another subject in the same script shares a particle or two, not the note's words: quiet.
    const quiet = contextOf(await runPromptHook(sb, payload('東京でおいしいラーメン屋を探しています', 'session-b')));
    expect(pointerIds(quiet)).toEqual([]);
  });
});
