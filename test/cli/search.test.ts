/**
 * `git-kb search` over a hand-written corpus committed with plain git: ranking, filters, merged multi-query
 * search, snippets, prefix and fuzzy matching, recency ties, and 1-hop link neighbours marked with `via`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitAll, entryText, initRepo, jsonError, kbd, kbj, writeFile } from './support.js';

let sb: Sandbox;

interface Hit {
  id: string;
  title: string;
  type: string;
  tags: string[];
  path: string;
  score: number;
  snippet: string;
  via?: { from: string; rel: string };
}

const filler = 'The pipeline runs on every push and the team reviews the numbers each week. '.repeat(4);

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  const put = (file: string, fields: Record<string, string | string[]>, body: string, extra = ''): void => {
    const text = entryText(fields, body).replace(/^---\n/, `---\n${extra}`);
    writeFile(sb, file, text);
  };
  put('entries/kb-0001-rebase-onto-main.md', { id: 'kb-0001', title: 'Rebase onto main before a pull request', type: 'pattern_convention', tags: ['git', 'workflow'], updated: '2024-03-01' }, 'Run git rebase origin/main, then squash fixups later.');
  put('entries/kb-0002-squash-merge-policy.md', { id: 'kb-0002', title: 'Squash merge policy', type: 'decision', tags: ['git'], updated: '2024-05-01' }, 'Every pull request lands as one squashed commit.', 'links:\n  - rel: depends_on\n    to: kb-0001\n');
  put('entries/kb-0003-docker-build-cache.md', { id: 'kb-0003', title: 'Docker build cache on CI', type: 'lesson_learned', tags: ['docker', 'ci'], updated: '2024-06-01' }, `${filler}At the very end: mount the buildkit cache directory so layers survive between runners.`, 'links:\n  - rel: relates_to\n    to: kb-0006\n');
  put('entries/kb-0004-kubernetes-pod-eviction.md', { id: 'kb-0004', title: 'Kubernetes pod eviction', type: 'factual_reference', tags: ['k8s'], updated: '2023-12-01' }, 'Pods are evicted under memory pressure.');
  put('hosts/build-01/kb-0005-docker-data-dir.md', { id: 'kb-0005', title: 'Docker data lives on /data', type: 'host_fact', host: 'build-01', tags: ['docker'], updated: '2024-01-15' }, 'The docker root dir was moved to /data/docker.');
  put('entries/kb-0006-image-layering.md', { id: 'kb-0006', title: 'Container image layering', type: 'factual_reference', tags: ['containers'], updated: '2024-02-01' }, 'Layers are reused when unchanged.');
  // The newer of two identical entries has the smaller id, so only recency can put it first.
  put('entries/kb-0007-zebra-new.md', { id: 'kb-0007', title: 'Zebra stripes', type: 'factual_reference', updated: '2024-01-01' }, 'Zebra stripes confuse flies.');
  put('entries/kb-0008-zebra-old.md', { id: 'kb-0008', title: 'Zebra stripes', type: 'factual_reference', updated: '2022-01-01' }, 'Zebra stripes confuse flies.');
  await commitAll(sb, 'hand-written corpus');
});
afterAll(() => sb.cleanup());

const search = async (args: string[]): Promise<{ query: string; queries: string[]; results: Hit[] }> => kbj(sb, ['search', ...args]);
const ids = (r: { results: Hit[] }): string[] => r.results.map((h) => h.id);

describe('search', () => {
  it('ranks a title match first and returns the documented result shape', async () => {
    const r = await search(['rebase']);
    expect(r.query).toBe('rebase');
    expect(r.queries).toEqual(['rebase']);
    expect(r.results[0]).toEqual({
      id: 'kb-0001',
      title: 'Rebase onto main before a pull request',
      type: 'pattern_convention',
      tags: ['git', 'workflow'],
      path: 'entries/kb-0001-rebase-onto-main.md',
      score: expect.any(Number),
      snippet: 'Run git rebase origin/main, then squash fixups later.',
    });
    for (const h of r.results) {
      expect(Object.keys(h).sort()).toEqual(h.via ? ['id', 'path', 'score', 'snippet', 'tags', 'title', 'type', 'via'] : ['id', 'path', 'score', 'snippet', 'tags', 'title', 'type']);
    }
  });

  it('--host takes the alias of a registered host, as host add and host load do (search and list)', async () => {
    expect((await kbd(sb, ['host', 'register', 'build-01', '--alias', 'ci-box'])).code).toBe(0);
    expect(ids(await search(['docker', '--host', 'ci-box']))).toEqual(['kb-0005']);
    expect(ids(await search(['docker', '--host', 'CI-Box']))).toEqual(['kb-0005']);
    expect((await kbj(sb, ['list', '--host', 'ci-box'])).entries.map((e: { id: string }) => e.id)).toEqual(['kb-0005']);
    // A name no registration knows filters by itself: no facts, no error.
    expect(ids(await search(['docker', '--host', 'no-such-box']))).toEqual([]);
  });

  it('filters by --type, --tag, --host, --since and caps with --limit', async () => {
    expect(ids(await search(['git', '--type', 'decision']))).toEqual(['kb-0002']);
    const tagged = await search(['docker', '--tag', 'docker']);
    expect(new Set(ids(tagged))).toEqual(new Set(['kb-0003', 'kb-0005']));
    expect(ids(await search(['docker', '--host', 'build-01']))).toEqual(['kb-0005']);
    const since = await search(['docker', '--since', '2024-03-01']);
    expect(ids(since)).toContain('kb-0003');
    expect(ids(since)).not.toContain('kb-0005');
    const limited = await search(['docker', '--limit', '1']);
    expect(limited.results.filter((h) => !h.via)).toHaveLength(1);
  });

  it('merges several queries: an entry that more phrasings find rises above one that only one finds', async () => {
    expect(ids(await search(['squash']))[0]).toBe('kb-0002');
    const merged = await search(['squash', 'rebase']);
    expect(merged.query).toBe('squash | rebase');
    expect(merged.queries).toEqual(['squash', 'rebase']);
    expect(ids(merged).slice(0, 2)).toEqual(['kb-0001', 'kb-0002']);
    expect(merged.results[0]!.score).toBeGreaterThan(merged.results[1]!.score);
  });

  it('cuts a snippet around the match deep in a long body', async () => {
    const r = await search(['buildkit']);
    expect(r.results[0]!.id).toBe('kb-0003');
    const snip = r.results[0]!.snippet;
    expect(snip).toContain('buildkit');
    expect(snip.startsWith('…')).toBe(true);
    expect(snip.length).toBeLessThanOrEqual(170);
  });

  it('matches a prefix of the last term, a misspelling, and a different word form', async () => {
    expect(ids(await search(['kuber']))[0]).toBe('kb-0004');
    expect(ids(await search(['kubernetis']))[0]).toBe('kb-0004');
    expect(ids(await search(['rebasing']))[0]).toBe('kb-0001');
    expect(ids(await search(['evictions']))[0]).toBe('kb-0004');
  });

  it('breaks score ties by recency: the newer entry first', async () => {
    expect(ids(await search(['zebra']))).toEqual(['kb-0007', 'kb-0008']);
  });

  it('adds 1-hop link neighbours of strong hits, marked with via', async () => {
    const r = await search(['docker build cache']);
    expect(r.results[0]!.id).toBe('kb-0003');
    const n = r.results.find((h) => h.id === 'kb-0006');
    expect(n?.via).toEqual({ from: 'kb-0003', rel: 'relates_to' });
    // Incoming links are followed too: kb-0002 links to kb-0001.
    const back = await search(['rebase onto main']);
    expect(back.results.find((h) => h.id === 'kb-0002')).toBeDefined();
    const text = await kbd(sb, ['search', 'docker build cache']);
    expect(text.stdout).toMatch(/^kb-0006 {2}Container image layering {2}\[containers\] {2}\(linked: relates_to kb-0003\)$/m);
  });

  it('prints hits for people, and says so when nothing matches', async () => {
    const r = await kbd(sb, ['search', 'pods']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^kb-0004 {2}Kubernetes pod eviction {2}\[k8s\]\n {4}Pods are evicted under memory pressure\.\n/);
    const none = await kbd(sb, ['search', 'xylophone', 'marimba']);
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe('no results for "xylophone", "marimba"');
    expect((await search(['xylophone'])).results).toEqual([]);
  });

  it('refuses an empty query, an unknown type and a bad limit with exit 2', async () => {
    for (const args of [['search', '  '], ['search', 'x', '--type', 'nonsense'], ['search', 'x', '--limit', '0'], ['search', 'x', '--limit', 'ten']]) {
      const r = await kbd(sb, [...args, '--json']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(jsonError(r).code).toBe('USAGE');
    }
  });
});
