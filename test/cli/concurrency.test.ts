/**
 * Concurrent writers all land: 8 processes at a time, each worker adding 10 entries one after another, give 80
 * entries in HEAD and 80 commits on top of the creation commit, with a clean `git fsck` and `git status`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitCount, initRepo, kbd, kbj, sgit, treePaths, type Added } from './support.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
});
afterAll(() => sb.cleanup());

const WORKERS = 8;
const EACH = 10;

describe('concurrent adds', () => {
  it(`${WORKERS} processes each adding ${EACH} entries at once all land, one commit each`, { timeout: 240_000 }, async () => {
    const results = await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        const mine: Added[] = [];
        for (let i = 0; i < EACH; i++) {
          const r = await kbd(sb, ['add', '--json', '--type', 'factual_reference', '--title', `Worker ${w} entry ${i}`, '--tags', `w${w}`, '--', `Body of worker ${w} number ${i}, zanzibar${w}x${i}.`]);
          expect(r.code, r.stderr).toBe(0);
          mine.push(JSON.parse(r.stdout) as Added);
        }
        return mine;
      }),
    );
    const added = results.flat();
    expect(new Set(added.map((a) => a.id)).size).toBe(WORKERS * EACH);
    expect(new Set(added.map((a) => a.commit)).size).toBe(WORKERS * EACH);

    const inHead = await treePaths(sb);
    expect(inHead).toHaveLength(WORKERS * EACH);
    expect(new Set(inHead)).toEqual(new Set(added.map((a) => a.path)));
    expect(await commitCount(sb)).toBe(WORKERS * EACH + 1);
    // A straight line of commits, each adding exactly one entry.
    const log = (await sgit(sb, ['log', '--format=%H %P', '--name-status'])).trim();
    const commits = (await sgit(sb, ['rev-list', 'HEAD'])).trim().split('\n');
    for (const a of added) expect(commits).toContain(a.commit);
    expect((await sgit(sb, ['rev-list', '--merges', 'HEAD'])).trim()).toBe('');
    expect(log.match(/^A\tentries\//gm)).toHaveLength(WORKERS * EACH);
    await expectCleanRepo(sb.data);

    // Every entry is whole and served.
    expect(await kbj(sb, ['lint'])).toEqual({ ok: true, files: WORKERS * EACH, problems: [] });
    expect((await kbj(sb, ['list'])).entries).toHaveLength(WORKERS * EACH);
    const probe = added[37]!;
    const hit = (await kbj(sb, ['search', `zanzibar${Math.floor(37 / EACH)}x${37 % EACH}`])).results[0];
    expect(hit.id).toBe(probe.id);
  });
});
