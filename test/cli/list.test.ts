/**
 * `git-kb list`: entries newest first (by `updated`, else `created`), filtered by type, tag, host and date.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitAll, entryText, initRepo, jsonError, kbd, kbj, writeFile } from './support.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  writeFile(sb, 'entries/kb-0001-oldest.md', entryText({ id: 'kb-0001', title: 'Oldest', type: 'decision', tags: ['a'], created: '2021-01-01', updated: '2021-01-01' }));
  writeFile(sb, 'entries/kb-0002-edited-late.md', entryText({ id: 'kb-0002', title: 'Created early, edited late', type: 'lesson_learned', tags: ['a', 'B'], created: '2020-01-01', updated: '2024-06-01T10:00:00Z' }));
  writeFile(sb, 'entries/kb-0003-created-only.md', entryText({ id: 'kb-0003', title: 'Only a created date', type: 'decision', tags: ['big-data'], created: '2023-05-05' }));
  writeFile(sb, 'hosts/db-1/kb-0004-host-fact.md', entryText({ id: 'kb-0004', title: 'Host fact', type: 'host_fact', host: 'db-1', created: '2022-02-02', updated: '2022-02-02' }));
  writeFile(sb, 'entries/kb-0005-middle.md', entryText({ id: 'kb-0005', title: 'Middle', type: 'bookmark', url: 'https://example.com', created: '2022-08-08', updated: '2023-01-01' }));
  await commitAll(sb, 'entries with known dates');
});
afterAll(() => sb.cleanup());

const listIds = async (args: string[] = []): Promise<string[]> => (await kbj(sb, ['list', ...args])).entries.map((e: { id: string }) => e.id);

describe('list', () => {
  it('lists every entry newest first, by updated then created', async () => {
    expect(await listIds()).toEqual(['kb-0002', 'kb-0003', 'kb-0005', 'kb-0004', 'kb-0001']);
  });

  it('prints the documented JSON shape and a line per entry for people', async () => {
    const j = await kbj(sb, ['list', '--limit', '1']);
    expect(j).toEqual({
      entries: [{ id: 'kb-0002', title: 'Created early, edited late', type: 'lesson_learned', tags: ['a', 'B'], path: 'entries/kb-0002-edited-late.md', created: '2020-01-01', updated: '2024-06-01T10:00:00Z' }],
    });
    const r = await kbd(sb, ['list']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^kb-0002 {2}2024-06-01 {2}lesson_learned +Created early, edited late$/);
    expect(lines[1]).toMatch(/^kb-0003 {2}2023-05-05 {2}decision +Only a created date$/);
  });

  it('filters by --type, --tag (any case), --host and --since, and caps with --limit', async () => {
    expect(await listIds(['--type', 'decision'])).toEqual(['kb-0003', 'kb-0001']);
    expect(await listIds(['--tag', 'b'])).toEqual(['kb-0002']);
    expect(await listIds(['--tag', 'a'])).toEqual(['kb-0002', 'kb-0001']);
    expect(await listIds(['--host', 'db-1'])).toEqual(['kb-0004']);
    expect(await listIds(['--since', '2023-01-01'])).toEqual(['kb-0002', 'kb-0003', 'kb-0005']);
    expect(await listIds(['--limit', '2'])).toEqual(['kb-0002', 'kb-0003']);
    expect(await listIds(['--type', 'host_fact', '--since', '2023-01-01'])).toEqual([]);
    expect((await kbd(sb, ['list', '--tag', 'nothing'])).stdout.trim()).toBe('no entries');
  });

  it('reads a --tag filter as add writes a tag: "Big Data" and "#big-data" find big-data, in list and search', async () => {
    expect(await listIds(['--tag', 'Big Data'])).toEqual(['kb-0003']);
    expect(await listIds(['--tag', '#big-data'])).toEqual(['kb-0003']);
    const found = await kbj(sb, ['search', 'created date', '--tag', 'Big Data']);
    expect(found.results.map((h: { id: string }) => h.id)).toEqual(['kb-0003']);
    expect((await kbj(sb, ['search', 'created date', '--tag', 'big data stuff'])).results).toEqual([]);
  });

  it('refuses an unknown type or a date that is not one (exit 2)', async () => {
    for (const args of [['--type', 'notes'], ['--since', 'last tuesday'], ['--limit', '-3']]) {
      const r = await kbd(sb, ['list', ...args, '--json']);
      expect(r.code, args.join(' ')).toBe(2);
      expect(jsonError(r).message).toContain(args[1]!.replace(/^-/, ''));
    }
  });

  it('leaves out a file that does not parse, and lists the rest', async () => {
    writeFile(sb, 'entries/kb-0006-broken.md', '---\nid: kb-0006\ntitle: [broken\n---\n');
    expect(await listIds()).toEqual(['kb-0002', 'kb-0003', 'kb-0005', 'kb-0004', 'kb-0001']);
  });

  it('writes to a pipe whole, and stops quietly when the reader goes away (git-kb list | head -1)', () => {
    const run = (sh: string) => spawnSync('sh', ['-c', sh], { env: sb.env, encoding: 'utf8' });
    const whole = run(`"${process.execPath}" "${CLI}" --data "${sb.data}" list | cat`);
    expect(whole.stdout.trim().split('\n')).toHaveLength(5);
    // the broken file of the test before is said on stderr, stdout keeps the entries alone
    expect(whole.stderr).toBe('git-kb: warning: 1 entry could not be read and was skipped (entries/kb-0006-broken.md); "git-kb lint" says why\n');
    // a reader that closes at once: the output stops, no EPIPE trace, the verb's exit stays clean
    const many = run(`for i in 1 2 3 4 5 6 7 8; do "${process.execPath}" "${CLI}" --data "${sb.data}" list --json; echo "rc=$?" >&2; done | head -c 1 >/dev/null; echo done`);
    expect(many.stderr.trim().split('\n')).toEqual(Array.from({ length: 8 }, () => 'rc=0'));
    expect(many.stdout.trim()).toBe('done');
    // commander's own output (help, version) goes the same way
    const help = run(`(sleep 0.3; "${process.execPath}" "${CLI}" --help; echo "rc=$?" >&2; "${process.execPath}" "${CLI}" --version; echo "rc=$?" >&2) | true`);
    expect(help.stderr.trim().split('\n')).toEqual(['rc=0', 'rc=0']);
  });
});
