/**
 * A data repo where plain git waits on the user (a merge stopped on a conflict, a cherry-pick, a revert): git-kb
 * commits nothing there. `add` and `sync` refuse with CONFLICT (exit 4), naming the operation and how to finish it;
 * the Stop hook stays fail-open (exit 0, no output), commits nothing under the merge, and commits the summary at
 * its first Stop after it; git's state (MERGE_HEAD,
 * the conflicted index) is left as it was. Once the merge is finished or aborted, writes go on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, kb, makeSandbox, ROOT, run, type Sandbox } from '../helpers/cli.js';
import { kbj, type Added } from './support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-inprog-');
});
afterEach(() => sb.cleanup());

/** A data repo whose `git merge side` stopped on a conflict in one entry. */
async function mergeStopped(): Promise<{ entry: Added }> {
  const entry = await kbj<Added>(sb, ['add', '--type', 'decision', '--title', 'Shared entry', '--', 'First text.']);
  const g = (args: string[]) => git(sb.data, args, sb.env);
  await g(['checkout', '-q', '-b', 'side']);
  fs.writeFileSync(path.join(sb.data, entry.path), fs.readFileSync(path.join(sb.data, entry.path), 'utf8').replace('First text.', 'Side text.'));
  await g(['commit', '-q', '-am', 'side edit']);
  await g(['checkout', '-q', '-']);
  fs.writeFileSync(path.join(sb.data, entry.path), fs.readFileSync(path.join(sb.data, entry.path), 'utf8').replace('First text.', 'Main text.'));
  await g(['commit', '-q', '-am', 'main edit']);
  const merge = await run('git', ['merge', 'side'], { cwd: sb.data, env: sb.env });
  expect(merge.code).not.toBe(0);
  expect(fs.existsSync(path.join(sb.data, '.git', 'MERGE_HEAD'))).toBe(true);
  return { entry };
}

const head = async (): Promise<string> => (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
const unmerged = async (): Promise<string> => git(sb.data, ['ls-files', '--unmerged'], sb.env);

describe('git-kb commits nothing while plain git waits on a merge, cherry-pick or revert', () => {
  it('add and sync refuse with CONFLICT naming the merge; the merge state is left as it was; after the merge, add works', async () => {
    await mergeStopped();
    const before = { head: await head(), unmerged: await unmerged() };
    expect(before.unmerged).not.toBe('');

    const add = await kb(sb, ['--data', sb.data, '--json', 'add', '--type', 'decision', '--title', 'Written during the merge', '--', 'Body.']);
    expect(add.code, add.stderr).toBe(4);
    const e = JSON.parse(add.stderr).error as { code: string; message: string };
    expect(e.code).toBe('CONFLICT');
    expect(e.message).toContain('in the middle of a git merge');
    expect(e.message).toContain('git merge --abort');

    const remote = path.join(sb.root, 'remote.git');
    await git(sb.root, ['init', '-q', '--bare', remote], sb.env);
    await git(sb.data, ['remote', 'add', 'origin', remote], sb.env);
    const sync = await kb(sb, ['--data', sb.data, 'sync']);
    expect(sync.code, sync.stderr).toBe(4);
    expect(sync.stderr).toContain('in the middle of a git merge');

    expect(await head()).toBe(before.head);
    expect(await unmerged()).toBe(before.unmerged);
    expect(fs.existsSync(path.join(sb.data, '.git', 'MERGE_HEAD'))).toBe(true);
    expect(fs.readdirSync(path.join(sb.data, 'entries')).some((f) => f.includes('written-during'))).toBe(false);

    await git(sb.data, ['merge', '--abort'], sb.env);
    const after = await kbj<Added>(sb, ['add', '--type', 'decision', '--title', 'Written after the merge', '--', 'Body.']);
    expect((await git(sb.data, ['log', '-1', '--format=%H'], sb.env)).trim()).toBe(after.commit);
    expect((await git(sb.data, ['status', '--porcelain'], sb.env)).trim()).toBe('');
  });

  it('the Stop hook exits 0 with no output and commits nothing under the merge', async () => {
    await mergeStopped();
    const before = await head();
    const t = path.join(sb.root, 'sess-merge.jsonl');
    const line = (rec: Record<string, unknown>, i: number): string =>
      `${JSON.stringify({ sessionId: 'sess-merge', cwd: '/home/u/proj', uuid: `u-${i}`, timestamp: new Date(Date.UTC(2026, 4, 1, 10, 0, i)).toISOString(), ...rec })}\n`;
    fs.writeFileSync(
      t,
      line({ type: 'user', message: { role: 'user', content: 'why does the gallery page load slowly' } }, 1) +
        line({ type: 'assistant', message: { id: 'm-1', role: 'assistant', model: 'claude-test-1', content: [{ type: 'text', text: 'The images are not lazy-loaded.' }] } }, 2),
    );
    const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
    const command = config.hooks.Stop![0]!.hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
    const payload = { session_id: 'sess-merge', transcript_path: t, cwd: '/home/u/proj', hook_event_name: 'Stop', stop_hook_active: false };
    const r = await run('sh', ['-c', command], { env: { ...sb.env, GIT_KB_DATA: sb.data }, input: JSON.stringify(payload), timeoutMs: 30_000 });
    expect([r.code, r.stdout, r.stderr]).toEqual([0, '', '']);
    expect(await head()).toBe(before);
    expect(fs.existsSync(path.join(sb.data, '.git', 'MERGE_HEAD'))).toBe(true);
    expect(await git(sb.data, ['log', '--format=%s', 'HEAD'], sb.env)).not.toContain('session');
    // Once the merge is aborted, the next Stop commits the session's summary.
    await git(sb.data, ['merge', '--abort'], sb.env);
    const again = await run('sh', ['-c', command], { env: { ...sb.env, GIT_KB_DATA: sb.data }, input: JSON.stringify(payload), timeoutMs: 30_000 });
    expect([again.code, again.stdout, again.stderr]).toEqual([0, '', '']);
    expect(await git(sb.data, ['log', '-1', '--format=%s'], sb.env)).toContain('session');
    expect((await git(sb.data, ['status', '--porcelain'], sb.env)).trim()).toBe('');
  });

  it('a cherry-pick or revert stopped on a conflict is refused the same way', async () => {
    for (const op of ['cherry-pick', 'revert'] as const) {
      const { entry } = await mergeStopped();
      await git(sb.data, ['merge', '--abort'], sb.env);
      const g = (args: string[]) => run('git', args, { cwd: sb.data, env: sb.env });
      if (op === 'cherry-pick') {
        expect((await g(['cherry-pick', 'side'])).code).not.toBe(0);
        expect(fs.existsSync(path.join(sb.data, '.git', 'CHERRY_PICK_HEAD'))).toBe(true);
      } else {
        fs.writeFileSync(path.join(sb.data, entry.path), fs.readFileSync(path.join(sb.data, entry.path), 'utf8').replace('Main text.', 'Later text.'));
        await g(['commit', '-q', '-am', 'later edit']);
        expect((await g(['revert', '--no-edit', 'HEAD~1'])).code).not.toBe(0);
        expect(fs.existsSync(path.join(sb.data, '.git', 'REVERT_HEAD'))).toBe(true);
      }
      const add = await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', `During ${op}`, '--', 'Body.']);
      expect(add.code, add.stderr).toBe(4);
      expect(add.stderr).toContain(`in the middle of a git ${op}`);
      sb.cleanup();
      sb = makeSandbox('gkb-inprog-');
    }
  });
});
