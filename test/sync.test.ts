/**
 * `git-kb sync` between machines, against a real smart-HTTP git server on loopback (git http-backend), checked
 * with the real git CLI. Each machine is a sandbox (its own HOME and config) that runs the built CLI as a process.
 * The server runs in this process, so the git CLI is only ever run asynchronously here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, git, kb, makeSandbox, type RunResult, type Sandbox } from './helpers/cli.js';
import { cleanGitEnv, startGitServer, type GitServer } from './helpers/git-server.js';

let server: GitServer | undefined;
const sandboxes: Sandbox[] = [];

function machine(env: NodeJS.ProcessEnv = {}): Sandbox {
  const sb = makeSandbox('gkb-sync-');
  Object.assign(sb.env, env);
  sandboxes.push(sb);
  return sb;
}

async function fsckBare(dir: string): Promise<void> {
  const out = await git(dir, ['fsck', '--strict', '--no-dangling', '--no-progress'], cleanGitEnv());
  expect(out.trim()).toBe('');
}

afterEach(async () => {
  try {
    // Real git fsck on every bare repo the server holds, after every test.
    if (server) for (const name of fs.readdirSync(server.root)) await fsckBare(path.join(server.root, name));
  } finally {
    await server?.stop();
    server = undefined;
    for (const sb of sandboxes.splice(0)) sb.cleanup();
  }
});

async function run(sb: Sandbox, args: string[], env?: NodeJS.ProcessEnv): Promise<RunResult> {
  return kb(sb, ['--data', sb.data, ...args], { env });
}

async function json<T = any>(sb: Sandbox, args: string[], env?: NodeJS.ProcessEnv): Promise<T> {
  const r = await run(sb, ['--json', ...args], env); // before the verb's arguments: a body after -- may follow
  if (r.code !== 0) throw new Error(`git-kb ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** `sync --json`: exit 0, or 4 while conflicts remain; anything else fails the test. */
async function sync(sb: Sandbox, env?: NodeJS.ProcessEnv): Promise<any> {
  const r = await run(sb, ['sync', '--json'], env);
  if (r.code !== 0 && r.code !== 4) throw new Error(`sync exited ${r.code}: ${r.stderr}`);
  const out = JSON.parse(r.stdout);
  expect(r.code).toBe(out.unresolved.length ? 4 : 0);
  return out;
}

async function add(sb: Sandbox, title: string, body: string, env?: NodeJS.ProcessEnv): Promise<{ id: string; path: string; commit: string }> {
  return json(sb, ['add', '--type', 'factual_reference', '--title', title, '--tags', 'sync', '--', body], env);
}

/** Adds entries with several processes at once (they queue on the write lock). */
async function addMany(sb: Sandbox, n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 10) {
    const batch = await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, k) => add(sb, `${prefix} note ${i + k}`, `Written offline on ${prefix}, number ${i + k}.`)));
    ids.push(...batch.map((b) => b.id));
  }
  return ids;
}

const gitIn = (sb: Sandbox, args: string[], dir = sb.data): Promise<string> => git(dir, args, sb.env);

async function tree(sb: Sandbox): Promise<string> {
  return gitIn(sb, ['ls-tree', '-r', 'HEAD']);
}

describe('two machines through a loopback git server', () => {
  it('add offline on both, conflicting edits, sync until quiet: identical, nothing lost, conflicts visible until resolved', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    const b = machine();

    // A clones the empty remote (gets a fresh data repo), writes 5 shared entries, publishes them.
    const ia = await json(a, ['init', '--clone', url]);
    expect(ia).toMatchObject({ action: 'cloned' });
    const shared: { id: string; path: string }[] = [];
    for (let i = 0; i < 5; i++) shared.push(await add(a, `Shared note ${i}`, `The original text of shared note ${i}.`));
    const clean = await add(a, 'Edited on both sides, cleanly', 'First paragraph.\n\nSecond paragraph.');
    const first = await sync(a);
    expect(first).toMatchObject({ pushed: true, merge: 'none', transport: 'isomorphic-git', unresolved: [] });
    expect((await git(path.join(server.root, 'kb.git'), ['rev-parse', 'main'], cleanGitEnv())).trim()).toBe(first.head_after);

    // B clones it: the same entries, found by search.
    expect(await json(b, ['init', '--clone', url])).toMatchObject({ action: 'cloned', entries: 6 });
    expect((await json(b, ['search', 'shared note'])).results.length).toBe(5);
    expect(fs.readFileSync(path.join(b.data, clean.path), 'utf8')).toContain('Second paragraph.');

    // Offline: 50 new entries each, and the 5 shared entries edited differently on each side.
    const [idsA, idsB] = await Promise.all([addMany(a, 50, 'alpha'), addMany(b, 50, 'bravo')]);
    for (let i = 0; i < 5; i++) {
      await json(a, ['edit', shared[i]!.id, '--body', `Alpha rewrote shared note ${i}.`]);
      await json(b, ['edit', shared[i]!.id, '--body', `Bravo rewrote shared note ${i}.`, ...(i === 0 ? ['--title', 'Shared note zero, renamed on bravo'] : [])]);
    }
    // Changes on both sides that do not overlap merge cleanly.
    await json(a, ['edit', clean.id, '--add-tag', 'from-alpha']);
    await json(b, ['edit', clean.id, '--append', 'Third paragraph, from bravo.']);

    // Sync in turn until a whole round moves nothing.
    const reports: any[] = [];
    for (let round = 0; round < 5; round++) {
      const ra = await sync(a);
      const rb = await sync(b);
      reports.push(ra, rb);
      if (ra.status === 'up-to-date' && rb.status === 'up-to-date') break;
    }
    const last = reports.slice(-2);
    expect(last.map((r) => r.status)).toEqual(['up-to-date', 'up-to-date']);
    // Every push and fetch went through git-kb's own packs (never the isomorphic-git fallback).
    for (const r of reports) expect(r.notes.join('\n')).not.toMatch(/isomorphic-git's own (push|fetch)/);
    expect(reports.length).toBeLessThanOrEqual(6);

    // Identical commits and trees on both machines and on the server.
    expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(await gitIn(b, ['rev-parse', 'HEAD']));
    expect(await tree(a)).toBe(await tree(b));
    expect((await git(path.join(server.root, 'kb.git'), ['rev-parse', 'main'], cleanGitEnv())).trim()).toBe((await gitIn(a, ['rev-parse', 'HEAD'])).trim());

    // All 100 new entries on both.
    for (const sb of [a, b]) {
      const files = (await gitIn(sb, ['ls-tree', '-r', '--name-only', 'HEAD', 'entries'])).trim().split('\n');
      for (const id of [...idsA, ...idsB]) expect(files.some((f) => f.startsWith(`entries/${id}-`))).toBe(true);
      expect(files.length).toBe(100 + 5 + 1); // new, shared, the cleanly merged one
    }

    // The clean two-sided edit merged both changes, no conflict.
    const cleanText = fs.readFileSync(path.join(b.data, clean.path), 'utf8');
    expect(cleanText).toContain('from-alpha');
    expect(cleanText).toContain('Third paragraph, from bravo.');
    expect(cleanText).not.toContain('<<<<<<<');

    // Both versions of each conflicting entry, on both machines, in the documented form.
    for (const sb of [a, b]) {
      for (let i = 0; i < 5; i++) {
        const text = fs.readFileSync(path.join(sb.data, shared[i]!.path), 'utf8');
        expect(text).toContain(`Alpha rewrote shared note ${i}.`);
        expect(text).toContain(`Bravo rewrote shared note ${i}.`);
        expect(text).toMatch(/^<<<<<<< git-kb conflict: theirs \(origin\/main at [0-9a-f]{8}\) is below/m);
        expect(text).toMatch(/^>>>>>>> git-kb conflict end$/m);
      }
    }
    // Reported by the sync that merged them, and by every later sync as unresolved.
    const merging = reports.find((r) => r.conflicts.length > 0);
    expect(merging.merge).toBe('merge');
    expect(merging.conflicts.map((c: any) => c.id).sort()).toEqual(shared.map((s) => s.id).sort());
    for (const r of last) expect(r.unresolved.map((c: any) => c.id).sort()).toEqual(shared.map((s) => s.id).sort());

    // lint flags each one with its file and the line of the conflict block.
    for (const sb of [a, b]) {
      const l = await run(sb, ['lint', '--json']);
      expect(l.code).toBe(5);
      const problems = JSON.parse(l.stdout).problems.filter((p: any) => p.rule === 'conflict-unresolved');
      expect(problems.map((p: any) => p.file).sort()).toEqual(shared.map((s) => s.path).sort());
      for (const p of problems) {
        const lines = fs.readFileSync(path.join(sb.data, p.file), 'utf8').split('\n');
        expect(lines[p.line - 1]).toMatch(/^<<<<<<< git-kb conflict/);
      }
    }
    // get and search still work on a conflicted entry and show both versions.
    const got = await run(b, ['get', shared[1]!.id]);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('Alpha rewrote shared note 1.');
    expect(got.stdout).toContain('Bravo rewrote shared note 1.');
    for (const word of ['alpha rewrote', 'bravo rewrote']) {
      const s = await json(a, ['search', word]);
      expect(s.results.map((x: any) => x.id)).toContain(shared[2]!.id);
    }

    // Resolve on A: one command per choice; then a last sync on each leaves them identical and clean.
    const mergedBy = reports.indexOf(merging) % 2 === 0 ? 'a' : 'b'; // ours is the version of the machine that merged
    const ours = mergedBy === 'a' ? 'Alpha' : 'Bravo';
    const theirs = mergedBy === 'a' ? 'Bravo' : 'Alpha';
    const r0 = await json(a, ['resolve', shared[0]!.id, '--keep', 'theirs']);
    expect(r0.unresolved.length).toBe(4);
    await json(a, ['resolve', shared[1]!.id, '--keep', 'ours']);
    await json(a, ['resolve', shared[2]!.id, '--keep', 'both']);
    const rest = await json(a, ['resolve', '--all', '--keep', 'ours']);
    expect(rest.resolved.map((x: any) => x.id).sort()).toEqual([shared[3]!.id, shared[4]!.id].sort());
    expect(rest.unresolved).toEqual([]);
    const t0 = fs.readFileSync(path.join(a.data, shared[0]!.path), 'utf8');
    expect(t0).toContain(`${theirs} rewrote shared note 0.`);
    expect(t0).not.toContain(`${ours} rewrote shared note 0.`);
    const t2 = fs.readFileSync(path.join(a.data, shared[2]!.path), 'utf8');
    expect(t2).toContain('Alpha rewrote shared note 2.');
    expect(t2).toContain('Bravo rewrote shared note 2.');
    expect(t2).not.toContain('<<<<<<<');

    const fa = await sync(a);
    const fb = await sync(b);
    expect(fa).toMatchObject({ pushed: true, unresolved: [] });
    expect(fb).toMatchObject({ merge: 'fast-forward', unresolved: [] });
    expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(await gitIn(b, ['rev-parse', 'HEAD']));
    expect(await tree(a)).toBe(await tree(b));
    for (const sb of [a, b]) {
      expect((await run(sb, ['lint'])).code).toBe(0);
      await expectCleanRepo(sb.data);
    }
    expect(await sync(a)).toMatchObject({ status: 'up-to-date' });
  });

  it('a clone made with the real git CLI works with no conversion: search, add, sync', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    await json(a, ['init', '--clone', url]);
    const first = await add(a, 'Made with git-kb', 'Written before the plain git clone.');
    await sync(a);

    const c = machine();
    await git(c.root, ['clone', '--quiet', url, c.data], c.env);
    const found = await json(c, ['search', 'plain git clone']);
    expect(found.results.map((r: any) => r.id)).toEqual([first.id]);
    const added = await add(c, 'Made on the git CLI clone', 'Written on a clone made by git itself.');
    const r = await sync(c);
    expect(r).toMatchObject({ pushed: true, merge: 'none', transport: 'isomorphic-git' });
    await expectCleanRepo(c.data);
    expect(await gitIn(c, ['log', '--format=%s', '-1'])).toContain(added.id);

    const back = await sync(a);
    expect(back).toMatchObject({ merge: 'fast-forward', changed: { added: 1, modified: 0, deleted: 0 } });
    expect((await json(a, ['get', added.id])).entries[0].id).toBe(added.id);
    // The git CLI reads the history git-kb pushed.
    await git(c.data, ['pull', '--quiet', '--ff-only'], c.env);
    expect((await gitIn(c, ['log', '--oneline'])).trim().split('\n').length).toBeGreaterThanOrEqual(3);
    await expectCleanRepo(a.data);
  });

  it('a delete and a restore after an unpushed add: the push sends what the add wrote (the tree came back with another parent)', async () => {
    server = await startGitServer();
    const bare = server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    const b = machine();
    expect(await json(a, ['init', '--clone', url])).toMatchObject({ action: 'cloned' });
    const first = await add(a, 'Note A', 'body A');
    await sync(a);
    const second = await add(a, 'Note B', 'body B');
    await json(a, ['delete', first.id]);
    await json(a, ['restore', first.id]);
    // Before: "missing necessary objects", on this sync and every later one (B's blob was never packed).
    expect(await sync(a)).toMatchObject({ pushed: true });
    expect((await git(bare, ['rev-parse', 'main'], cleanGitEnv())).trim()).toBe((await gitIn(a, ['rev-parse', 'HEAD'])).trim());
    expect(await json(b, ['init', '--clone', url])).toMatchObject({ action: 'cloned', entries: 2 });
    expect(fs.readFileSync(path.join(b.data, second.path), 'utf8')).toContain('body B');
  });

  it('concurrent syncs from two machines race on the push; both land, nothing lost', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    const b = machine();
    await json(a, ['init', '--clone', url]);
    await sync(a);
    await json(b, ['init', '--clone', url]);
    const ids: string[] = [];
    for (let round = 0; round < 3; round++) {
      ids.push((await add(a, `alpha race ${round}`, 'race')).id, (await add(b, `bravo race ${round}`, 'race')).id);
      const [ra, rb] = await Promise.all([sync(a), sync(b)]);
      expect(ra.pushed || rb.pushed).toBe(true);
    }
    for (let i = 0; i < 3; i++) await Promise.all([sync(a), sync(b)]);
    expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(await gitIn(b, ['rev-parse', 'HEAD']));
    const files = await gitIn(a, ['ls-tree', '-r', '--name-only', 'HEAD', 'entries']);
    for (const id of ids) expect(files).toContain(`entries/${id}-`);
    await expectCleanRepo(a.data);
    await expectCleanRepo(b.data);
  });
});

describe('sync failures: clear errors, sync exit codes, local commits intact', () => {
  const auth = { username: 'alice', password: 'right-token' };

  function errorOf(r: RunResult): { code: string; message: string } {
    return JSON.parse(r.stderr).error;
  }

  it('wrong token and no token: AUTH_FAILED (exit 6); the right token then pushes', async () => {
    server = await startGitServer({ auth });
    server.createBare('kb');
    const url = server.repoUrl('kb');
    const good = { GIT_KB_TOKEN: 'right-token', GIT_KB_USERNAME: 'alice' };
    const a = machine(good);
    await json(a, ['init', '--clone', url]);
    await sync(a);
    const e = await add(a, 'Kept through an auth failure', 'body');
    const head = await gitIn(a, ['rev-parse', 'HEAD']);

    for (const env of [{ GIT_KB_TOKEN: 'wrong-token' }, { GIT_KB_TOKEN: '' }]) {
      const r = await run(a, ['sync', '--json'], env);
      expect(r.code).toBe(6);
      const err = errorOf(r);
      expect(err.code).toBe('AUTH_FAILED');
      expect(err.message).toMatch(/GIT_KB_TOKEN/);
      expect(err.message).toMatch(/local commits are kept/);
      expect(err.message).not.toContain('right-token');
      expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(head);
    }
    const text = await run(a, ['sync'], { GIT_KB_TOKEN: 'wrong-token' });
    expect(text.stderr).toMatch(/^git-kb: error: authentication to http:\/\/127\.0\.0\.1:\d+\/kb\.git failed \(HTTP 401\)/);
    expect(text.stderr).not.toMatch(/\n\s+at /); // no stack trace

    // Token from the config file works as well as the env.
    fs.mkdirSync(path.join(a.home, '.config', 'git-kb'), { recursive: true });
    const cfgFile = path.join(a.home, '.config', 'git-kb', 'config.json');
    const cfg = fs.existsSync(cfgFile) ? JSON.parse(fs.readFileSync(cfgFile, 'utf8')) : {}; // init writes it only with --default
    fs.writeFileSync(cfgFile, JSON.stringify({ ...cfg, token: 'right-token', username: 'alice' }));
    const ok = await sync(a, { GIT_KB_TOKEN: '', GIT_KB_USERNAME: '' });
    expect(ok.pushed).toBe(true);
    expect(await git(path.join(server.root, 'kb.git'), ['log', '--format=%s', '-1', 'main'], cleanGitEnv())).toContain(e.id);
  });

  it('server stopped: NETWORK (exit 6), commits kept; the next sync after it is back pushes them', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    await json(a, ['init', '--clone', url]);
    await sync(a);
    const e = await add(a, 'Written while the server is down', 'body');
    const head = await gitIn(a, ['rev-parse', 'HEAD']);
    const bare = path.join(server.root, 'kb.git');
    // Keep the bare repo: stop() removes the server's root, so move it aside first.
    const keep = path.join(a.root, 'kept.git');
    fs.cpSync(bare, keep, { recursive: true });
    await server.stop();
    const r = await run(a, ['sync', '--json']);
    expect(r.code).toBe(6);
    expect(errorOf(r)).toMatchObject({ code: 'NETWORK' });
    expect(errorOf(r).message).toMatch(/cannot reach http:\/\/127\.0\.0\.1:\d+\/kb\.git .*local commits are kept/);
    expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(head);
    await expectCleanRepo(a.data);

    // Back online (a new server with the same repo): the kept commit goes up.
    server = await startGitServer();
    fs.cpSync(keep, path.join(server.root, 'kb.git'), { recursive: true });
    await gitIn(a, ['remote', 'set-url', 'origin', server.repoUrl('kb')]);
    const ok = await sync(a);
    expect(ok.pushed).toBe(true);
    expect(await git(path.join(server.root, 'kb.git'), ['log', '--format=%s', '-1', 'main'], cleanGitEnv())).toContain(e.id);
  });

  it('a push the server refuses: PUSH_REJECTED (exit 6), the merge and local commits kept', async () => {
    server = await startGitServer();
    const bare = server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    await json(a, ['init', '--clone', url]);
    await sync(a);
    const hook = path.join(bare, 'hooks', 'pre-receive');
    fs.writeFileSync(hook, '#!/bin/sh\necho "read-only for maintenance" >&2\nexit 1\n', { mode: 0o755 });
    await add(a, 'Refused by the server', 'body');
    const head = await gitIn(a, ['rev-parse', 'HEAD']);
    const r = await run(a, ['sync', '--json']);
    expect(r.code).toBe(6);
    expect(JSON.parse(r.stderr).error).toMatchObject({ code: 'PUSH_REJECTED' });
    expect(JSON.parse(r.stderr).error.message).toMatch(/refused the update.*the server said: .*read-only for maintenance.*local commits are kept/);
    expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(head);
    fs.rmSync(hook);
    expect((await sync(a)).pushed).toBe(true);
  });

  it('ssh URL: the system git is used and says so; without git, UNSUPPORTED_REMOTE; both exit 6', async () => {
    const a = machine();
    await json(a, ['init']);
    await add(a, 'Local only', 'body');
    const head = await gitIn(a, ['rev-parse', 'HEAD']);
    await json(a, ['init', '--remote', 'ssh://git@127.0.0.1:1/kb.git']);
    const r = await run(a, ['sync', '--json']);
    expect(r.code).toBe(6);
    const err = JSON.parse(r.stderr).error;
    expect(['NETWORK', 'SYNC_FAILED']).toContain(err.code);
    expect(err.message).toMatch(/system git/);
    expect(err.message).toMatch(/ssh:\/\/git@127\.0\.0\.1:1\/kb\.git/);

    // No git on PATH: a clear UNSUPPORTED_REMOTE.
    const empty = path.join(a.root, 'empty-bin');
    fs.mkdirSync(empty);
    const r2 = await run(a, ['sync', '--json'], { PATH: empty });
    expect(r2.code).toBe(6);
    expect(JSON.parse(r2.stderr).error.code).toBe('UNSUPPORTED_REMOTE');
    expect(JSON.parse(r2.stderr).error.message).toMatch(/install git/i);
    expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(head);
    await expectCleanRepo(a.data);

    // No remote at all: a usage error that says how to set one.
    const b = machine();
    await json(b, ['init']);
    const r3 = await run(b, ['sync', '--json']);
    expect(r3.code).toBe(2);
    expect(JSON.parse(r3.stderr).error.message).toMatch(/init --data \S+ --remote URL/);
  });

  it('a local-path remote syncs through the system git, and says so', async () => {
    const a = machine();
    const b = machine();
    const bare = path.join(a.root, 'remote.git');
    await git(a.root, ['init', '--quiet', '--bare', '-b', 'main', bare], a.env);
    await json(a, ['init']);
    await json(a, ['init', '--remote', bare]);
    const e = await add(a, 'Through a local path', 'body');
    const r = await sync(a);
    expect(r).toMatchObject({ transport: 'system-git', pushed: true });
    expect(r.notes.join(' ')).toMatch(/system git/);
    const c = await json(b, ['init', '--clone', bare]);
    expect(c.notes.join(' ')).toMatch(/system git/);
    expect((await json(b, ['get', e.id])).entries[0].id).toBe(e.id);
    const e2 = await add(b, 'Back through the path', 'body');
    expect((await sync(b)).pushed).toBe(true);
    expect((await sync(a)).merge).toBe('fast-forward');
    expect(fs.readdirSync(path.join(a.data, 'entries')).some((f) => f.startsWith(e2.id))).toBe(true);
    await fsckBare(bare);
  });
});

describe('a remote made by plain "git init --bare" (HEAD -> master, unborn): every machine syncs one branch', () => {
  /** A bare repo as a new user makes one: HEAD names master, whatever this machine's git config says. */
  async function plainBare(sb: Sandbox, name: string): Promise<string> {
    const bare = path.join(sb.root, name);
    await git(sb.root, ['-c', 'init.defaultBranch=master', 'init', '--quiet', '--bare', bare], sb.env);
    expect((await git(sb.root, ['--git-dir', bare, 'symbolic-ref', 'HEAD'], sb.env)).trim()).toBe('refs/heads/master');
    return bare;
  }

  const branchesOf = async (bare: string): Promise<string[]> =>
    (await git(path.dirname(bare), ['--git-dir', bare, 'for-each-ref', '--format=%(refname)', 'refs/heads'], cleanGitEnv())).trim().split('\n').filter(Boolean);

  /** A inits and pushes, B clones, B adds and pushes, A pulls: both see both entries, the remote has one branch. */
  async function roundTrip(a: Sandbox, b: Sandbox, url: string, bare: string): Promise<void> {
    await json(a, ['init']);
    await json(a, ['init', '--remote', url]);
    const fromA = await add(a, 'From A', 'Written on machine A.');
    expect(await sync(a)).toMatchObject({ branch: 'main', pushed: true });

    const c = await json(b, ['init', '--clone', url]);
    expect(c).toMatchObject({ action: 'cloned', entries: 1 });
    expect(c.notes.join(' ')).not.toMatch(/remote was empty/);
    expect((await gitIn(b, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/main');
    expect((await json(b, ['get', fromA.id])).entries[0].id).toBe(fromA.id);

    const fromB = await add(b, 'From B', 'Written on machine B.');
    expect(await sync(b)).toMatchObject({ branch: 'main', pushed: true });
    expect(await sync(a)).toMatchObject({ branch: 'main', merge: 'fast-forward' });
    expect((await json(a, ['get', fromB.id])).entries[0].id).toBe(fromB.id);
    expect(await branchesOf(bare)).toEqual(['refs/heads/main']);
    await expectCleanRepo(a.data);
    await expectCleanRepo(b.data);
  }

  it('a local path: init --clone checks out the branch A pushed (main), and B\'s entry reaches A', async () => {
    const a = machine();
    const b = machine();
    const bare = await plainBare(a, 'r.git');
    await roundTrip(a, b, bare, bare);
    await fsckBare(bare);
  });

  it('over smart HTTP: the same (isomorphic-git cannot clone it; git-kb fetches the branch itself)', async () => {
    server = await startGitServer();
    const bare = server.createBare('kb');
    await git(server.root, ['--git-dir', bare, 'symbolic-ref', 'HEAD', 'refs/heads/master'], cleanGitEnv());
    const a = machine();
    const b = machine();
    await roundTrip(a, b, server.repoUrl('kb'), bare);
  });

  it('an empty one: the clone is a new data repo on main (not master), and its first sync pushes main', async () => {
    const b = machine();
    const a = machine();
    const bare = await plainBare(b, 'r.git');
    const c = await json(b, ['init', '--clone', bare]);
    expect(c.notes.join(' ')).toMatch(/remote was empty/);
    expect((await gitIn(b, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/main');
    const fromB = await add(b, 'From B first', 'Written on the first machine.');
    expect(await sync(b)).toMatchObject({ branch: 'main', pushed: true });
    expect(await branchesOf(bare)).toEqual(['refs/heads/main']);
    // A second clone (the remote's HEAD still names master) gets it.
    expect(await json(a, ['init', '--clone', bare])).toMatchObject({ action: 'cloned', entries: 1 });
    expect((await json(a, ['get', fromB.id])).entries[0].id).toBe(fromB.id);
  });

  it('several branches, none of them main: init --clone refuses (exit 4) naming them, and leaves nothing', async () => {
    const a = machine();
    const b = machine();
    const bare = await plainBare(a, 'r.git');
    await json(a, ['init']);
    await gitIn(a, ['push', '--quiet', bare, 'HEAD:refs/heads/dev', 'HEAD:refs/heads/feature']);
    const r = await run(b, ['init', '--clone', bare, '--json']);
    expect(r.code).toBe(4);
    const err = JSON.parse(r.stderr).error;
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toMatch(/dev, feature/);
    expect(err.data.branches).toEqual(['dev', 'feature']);
    expect(fs.existsSync(b.data) ? fs.readdirSync(b.data) : []).toEqual([]);
    expect(fs.readdirSync(path.dirname(b.data)).filter((n) => n.includes('.clone-'))).toEqual([]);
  });

  it('a local-path remote that does not exist: the error names the path and says it does not exist, not "when online"', async () => {
    const a = machine();
    const b = machine();
    const missing = path.join(a.root, 'no-such-remote.git');
    await json(a, ['init']);
    await json(a, ['init', '--remote', missing]);
    const e = await add(a, 'Kept locally', 'body');
    const r = await run(a, ['sync', '--json']);
    expect(r.code).toBe(6);
    const err = JSON.parse(r.stderr).error;
    expect(err.code).toBe('SYNC_FAILED');
    expect(err.data).toMatchObject({ path: missing, reason: 'missing-path' });
    expect(err.message).toContain(`the remote path ${missing} does not exist`);
    expect(err.message).not.toMatch(/online/);
    expect(err.message).toMatch(/local commits are kept/);
    expect((await json(a, ['get', e.id])).entries[0].id).toBe(e.id);
    // The same for a clone from it.
    const c = await run(b, ['init', '--clone', missing, '--json']);
    expect(c.code).toBe(6);
    expect(JSON.parse(c.stderr).error.message).toContain(`the remote path ${missing} does not exist`);
  });
});

describe('one branch per remote: sync never starts a second branch on a remote that has one', () => {
  /** A bare repo as a new user makes one: HEAD names master, whatever this machine's git config says. */
  async function plainBare(sb: Sandbox, name: string): Promise<string> {
    const bare = path.join(sb.root, name);
    await git(sb.root, ['-c', 'init.defaultBranch=master', 'init', '--quiet', '--bare', bare], sb.env);
    return bare;
  }

  const branchesOf = async (bare: string): Promise<string[]> =>
    (await git(path.dirname(bare), ['--git-dir', bare, 'for-each-ref', '--format=%(refname)', 'refs/heads'], cleanGitEnv())).trim().split('\n').filter(Boolean);
  const tipOf = async (bare: string, branch: string): Promise<string> => (await git(path.dirname(bare), ['--git-dir', bare, 'rev-parse', `refs/heads/${branch}`], cleanGitEnv())).trim();

  /** Machine A: a data repo made by git-kb (on main), one entry, pushed to `url`. */
  async function firstMachine(url: string): Promise<{ a: Sandbox; fromA: { id: string } }> {
    const a = machine();
    await json(a, ['init']);
    await json(a, ['init', '--remote', url]);
    const fromA = await add(a, 'From A', 'Written on machine A.');
    expect(await sync(a)).toMatchObject({ branch: 'main', pushed: true });
    return { a, fromA };
  }

  /** Machine C: a repo git made on master, adopted by git-kb before it had a remote, so master has commits. */
  async function adoptedOnMaster(url: string): Promise<Sandbox> {
    const c = machine();
    await git(c.root, ['init', '--quiet', '-b', 'master', c.data], c.env);
    await json(c, ['init']);
    const r = await json(c, ['init', '--remote', url]);
    expect(r.notes ?? []).toEqual([]); // a branch with commits is never renamed
    expect((await gitIn(c, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/master');
    return c;
  }

  async function bothSeeBoth(a: Sandbox, c: Sandbox, ids: string[], bare: string): Promise<void> {
    for (const sb of [a, c]) for (const id of ids) expect((await json(sb, ['get', id])).entries[0].id).toBe(id);
    expect(await branchesOf(bare)).toEqual(['refs/heads/main']);
    for (const sb of [a, c]) await expectCleanRepo(sb.data);
  }

  it('a local path: the remote has main, this repo syncs master: refused (exit 4) naming both and the fix, nothing pushed; the fix merges both ways', async () => {
    const { a, fromA } = await firstMachine(await plainBare(machine(), 'r.git'));
    const bare = (await gitIn(a, ['remote', 'get-url', 'origin'])).trim();
    const mainBefore = await tipOf(bare, 'main');
    const c = await adoptedOnMaster(bare);
    const fromC = await add(c, 'From C', 'Written on machine C.');

    const r = await run(c, ['sync', '--json']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    const err = JSON.parse(r.stderr).error;
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toContain('has no branch "master"');
    expect(err.message).toContain(`git -C ${c.data} branch -m master main`);
    expect(err.message).toMatch(/Nothing was pushed/);
    expect(err.data).toMatchObject({ branch: 'master', remote_branches: ['main'], remote_branch: 'main' });
    // Text mode: the same refusal on stderr, exit 4.
    const text = await run(c, ['sync']);
    expect(text.code).toBe(4);
    expect(text.stderr).toMatch(/^git-kb: error: .*has no branch "master" .*branch -m master main/);
    // Nothing reached the remote: still only main, where A left it.
    expect(await branchesOf(bare)).toEqual(['refs/heads/main']);
    expect(await tipOf(bare, 'main')).toBe(mainBefore);
    expect((await run(c, ['sync', '--no-push', '--json'])).code).toBe(4);

    // The fix the message names: rename, sync (the unrelated histories merge), and both machines see both notes.
    await gitIn(c, ['branch', '-m', 'master', 'main']);
    expect(await sync(c)).toMatchObject({ branch: 'main', merge: 'merge', pushed: true, unresolved: [] });
    expect(await sync(a)).toMatchObject({ merge: 'fast-forward', unresolved: [] });
    await bothSeeBoth(a, c, [fromA.id, fromC.id], bare);
    expect(await gitIn(a, ['rev-parse', 'HEAD'])).toBe(await gitIn(c, ['rev-parse', 'HEAD']));
    await fsckBare(bare);
  });

  it('over smart HTTP: the same refusal (the remote\'s HEAD names its branch), and the same fix', async () => {
    server = await startGitServer();
    const bare = server.createBare('kb');
    const url = server.repoUrl('kb');
    const { a, fromA } = await firstMachine(url);
    const c = await adoptedOnMaster(url);
    const fromC = await add(c, 'From C', 'Written on machine C.');
    const r = await run(c, ['sync', '--json']);
    expect(r.code).toBe(4);
    const err = JSON.parse(r.stderr).error;
    expect(err).toMatchObject({ code: 'CONFLICT', data: { branch: 'master', remote_branches: ['main'], remote_branch: 'main' } });
    expect(err.message).toContain(`git -C ${c.data} branch -m master main`);
    expect(await branchesOf(bare)).toEqual(['refs/heads/main']);
    await gitIn(c, ['branch', '-m', 'master', 'main']);
    expect(await sync(c)).toMatchObject({ merge: 'merge', pushed: true, unresolved: [] });
    expect(await sync(a)).toMatchObject({ merge: 'fast-forward' });
    await bothSeeBoth(a, c, [fromA.id, fromC.id], bare);
  });

  it('several branches, none of them the remote\'s default: the refusal lists them and names none', async () => {
    const a = machine();
    const bare = await plainBare(a, 'r.git');
    await json(a, ['init']);
    await gitIn(a, ['push', '--quiet', bare, 'HEAD:refs/heads/dev', 'HEAD:refs/heads/notes']);
    const c = await adoptedOnMaster(bare);
    const r = await run(c, ['sync', '--json']);
    expect(r.code).toBe(4);
    const err = JSON.parse(r.stderr).error;
    expect(err.data).toMatchObject({ branch: 'master', remote_branches: ['dev', 'notes'], remote_branch: null });
    expect(err.message).toContain(`git -C ${c.data} branch -m master NAME`);
    expect(err.message).toContain('"dev", "notes"');
    expect(await branchesOf(bare)).toEqual(['refs/heads/dev', 'refs/heads/notes']);
  });

  it('an empty remote still gets the first push, whatever the branch (master here), and keeps it', async () => {
    const c = machine();
    const bare = await plainBare(c, 'r.git');
    await git(c.root, ['init', '--quiet', '-b', 'master', c.data], c.env);
    const r = await json(c, ['init', '--remote', bare]);
    expect(r.notes ?? []).toEqual([]);
    expect((await gitIn(c, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/master');
    await add(c, 'First', 'The first note.');
    expect(await sync(c)).toMatchObject({ branch: 'master', pushed: true, remote_before: null });
    expect(await branchesOf(bare)).toEqual(['refs/heads/master']);
    await add(c, 'Second', 'The second note.');
    expect(await sync(c)).toMatchObject({ branch: 'master', pushed: true });
  });

  it('init --remote on a repo with no commit yet (git init on master) takes the remote\'s branch: no split at all', async () => {
    const { a, fromA } = await firstMachine(await plainBare(machine(), 'r.git'));
    const bare = (await gitIn(a, ['remote', 'get-url', 'origin'])).trim();
    // The new user's steps: git init (master), git-kb init --remote, add, sync.
    const c = machine();
    await git(c.root, ['init', '--quiet', '-b', 'master', c.data], c.env);
    const r = await json(c, ['init', '--remote', bare]);
    expect(r.action).toBe('adopted');
    expect(r.notes.join(' ')).toMatch(/its branch is now "main" \(was "master"\)/);
    expect((await gitIn(c, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/main');
    const fromC = await add(c, 'From C', 'Written on machine C.');
    expect(await sync(c)).toMatchObject({ branch: 'main', merge: 'merge', pushed: true, unresolved: [] });
    expect(await sync(a)).toMatchObject({ merge: 'fast-forward' });
    await bothSeeBoth(a, c, [fromA.id, fromC.id], bare);
  });

  it('a hand "git clone" of a remote whose HEAD names a missing branch: init adopts it on the remote\'s branch, sync pushes no second branch', async () => {
    const { a, fromA } = await firstMachine(await plainBare(machine(), 'r.git'));
    const bare = (await gitIn(a, ['remote', 'get-url', 'origin'])).trim();
    const d = machine();
    await git(d.root, ['clone', '--quiet', bare, d.data], d.env); // "remote HEAD refers to nonexistent ref"
    expect((await gitIn(d, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/master');
    const r = await json(d, ['init']);
    expect(r.notes.join(' ')).toMatch(/its branch is now "main"/);
    const fromD = await add(d, 'From D', 'Written on machine D.');
    expect(await sync(d)).toMatchObject({ branch: 'main', pushed: true, unresolved: [] });
    expect(await sync(a)).toMatchObject({ merge: 'fast-forward' });
    await bothSeeBoth(a, d, [fromA.id, fromD.id], bare);
  });
});
