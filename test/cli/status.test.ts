/**
 * `git-kb status`: where the data repo is and why, entries by type, kernel size against its budget, problems,
 * HEAD and the remote. Reading it writes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, expectUnchanged, headOf, initRepo, kbd, kbj, sgit, snapshot, writeFile } from './support.js';

let sb: Sandbox;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  await addEntry(sb, { type: 'decision', title: 'D1' });
  await addEntry(sb, { type: 'decision', title: 'D2' });
  await addEntry(sb, { type: 'pattern_convention', title: 'House style', body: 'No em dashes.', extra: ['--kernel'] });
  await addEntry(sb, { type: 'host_fact', title: 'Runs Debian', extra: ['--host', 'web-1'] });
});
afterAll(() => sb.cleanup());

describe('status', () => {
  it('reports the repo, counts by type, the kernel against its budget, HEAD and no remote', async () => {
    const before = await snapshot(sb);
    const s = await kbj(sb, ['status']);
    expect(s).toEqual({
      data_dir: sb.data,
      source: 'flag',
      entries: 4,
      by_type: { decision: 2, pattern_convention: 1, host_fact: 1 },
      kernel: { entries: 1, chars: expect.any(Number), budget: expect.any(Number) },
      memory: expect.objectContaining({ kernel: expect.objectContaining({ entries: 1, over: false }), promotion_candidates: [] }),
      problems: 0,
      head: await headOf(sb),
      ...(s.remote === undefined ? {} : { remote: s.remote }),
      sync: { auto_sync: false, unresolved: 0 },
    });
    expect(s.remote).toBeUndefined();
    expect(s.kernel.budget).toBeGreaterThan(0);
    // The body's length, give or take its final newline.
    expect(s.kernel.chars - 'No em dashes.'.length).toBeGreaterThanOrEqual(0);
    expect(s.kernel.chars - 'No em dashes.'.length).toBeLessThanOrEqual(1);
    const text = await kbd(sb, ['status']);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`data repo: ${sb.data} (from flag)`);
    expect(text.stdout).toContain('entries: 4');
    expect(text.stdout).toMatch(/^ {2}decision: 2$/m);
    expect(text.stdout).toMatch(/^kernel: 1 entry, 1[34] of \d+ characters$/m);
    expect(text.stdout).toContain('remote: (none)');
    await expectUnchanged(sb, before);
  });

  it('counts problems and shows the remote once one is set', async () => {
    writeFile(sb, 'entries/kb-0001-broken.md', '---\nid: kb-0001\ntitle: [\n---\n');
    await commitAll(sb, 'broken by hand');
    // Named only in the config file, the remote sync will use is shown too.
    fs.mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(sb.home, '.claude', 'kb-config.json'), JSON.stringify({ remote: 'https://example.com/me/from-config.git' }));
    expect((await kbj(sb, ['status'])).remote).toBe('https://example.com/me/from-config.git');
    expect((await kbd(sb, ['status'])).stdout).toMatch(/^remote: https:\/\/example\.com\/me\/from-config\.git\nsync: never synced$/m);
    fs.rmSync(path.join(sb.home, '.claude', 'kb-config.json'));
    await sgit(sb, ['remote', 'add', 'origin', 'https://example.com/me/kb.git']);
    const s = await kbj(sb, ['status']);
    expect(s.problems).toBe(1);
    expect(s.entries).toBe(4);
    expect(s.remote).toBe('https://example.com/me/kb.git');
    expect((await kbd(sb, ['status'])).stdout).toContain('problems: 1 (run git-kb lint)');
    await expectCleanRepo(sb.data);
  });
});
