/**
 * Auto mode (spec/sync.md, "Auto mode"): with `auto_sync: true` in the config, a CLI write pushes after its
 * commit, bounded in time; a failure leaves the commit local and says so; hooks never go near the network.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, git, kb, makeSandbox, ROOT, type Sandbox } from './helpers/cli.js';
import { cleanGitEnv, startGitServer, type GitServer } from './helpers/git-server.js';

let server: GitServer | undefined;
let blackhole: net.Server | undefined;
const sockets = new Set<net.Socket>();
const sandboxes: Sandbox[] = [];

afterEach(async () => {
  try {
    if (server) for (const name of fs.readdirSync(server.root)) expect((await git(path.join(server.root, name), ['fsck', '--strict', '--no-dangling', '--no-progress'], cleanGitEnv())).trim()).toBe('');
  } finally {
    await server?.stop();
    server = undefined;
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => (blackhole ? blackhole.close(() => resolve()) : resolve()));
    blackhole = undefined;
    for (const sb of sandboxes.splice(0)) sb.cleanup();
  }
});

function machine(): Sandbox {
  const sb = makeSandbox('gkb-auto-');
  sandboxes.push(sb);
  return sb;
}

function setConfig(sb: Sandbox, extra: Record<string, unknown>): void {
  const file = path.join(sb.home, '.config', 'git-kb', 'config.json');
  const cfg = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ ...cfg, ...extra }));
}

async function add(sb: Sandbox, title: string, env?: NodeJS.ProcessEnv) {
  const r = await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', title, '--json', '--', 'body'], { env });
  expect(r.code).toBe(0);
  return { ...r, entry: JSON.parse(r.stdout) as { id: string; commit: string } };
}

const remoteHead = async (): Promise<string> => (await git(path.join(server!.root, 'kb.git'), ['rev-parse', 'main'], cleanGitEnv())).trim();

describe('auto-sync after CLI writes', () => {
  it('pushes after add and edit; off by default, off with GIT_KB_AUTO_SYNC=0; reads never touch the network', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const a = machine();
    expect((await kb(a, ['--data', a.data, 'init', '--clone', server.repoUrl('kb')])).code).toBe(0);
    expect((await kb(a, ['--data', a.data, 'sync'])).code).toBe(0);

    // Off by default: the commit stays local.
    const off = await add(a, 'Not pushed by default');
    expect(off.stderr).toBe('');
    expect(await remoteHead()).not.toBe(off.entry.commit);

    setConfig(a, { auto_sync: true });
    const on = await add(a, 'Pushed at once');
    expect(on.stderr).toMatch(/^git-kb: auto-sync: synced with origin \(pushed\)/);
    expect(await remoteHead()).toBe(on.entry.commit);
    const edited = await kb(a, ['--data', a.data, 'edit', on.entry.id, '--append', 'more', '--json']);
    expect(edited.code).toBe(0);
    expect(await remoteHead()).toBe(JSON.parse(edited.stdout).commit);

    const killed = await add(a, 'Switched off by env', { GIT_KB_AUTO_SYNC: '0' });
    expect(killed.stderr).toBe('');
    expect(await remoteHead()).not.toBe(killed.entry.commit);

    const before = server.requests;
    expect((await kb(a, ['--data', a.data, 'search', 'pushed'])).code).toBe(0);
    expect((await kb(a, ['--data', a.data, 'list'])).code).toBe(0);
    expect(server.requests).toBe(before);
    await expectCleanRepo(a.data);
  });

  it('a remote that never answers: the write succeeds within the bound and says the commit is kept locally', async () => {
    blackhole = net.createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => blackhole!.listen(0, '127.0.0.1', resolve));
    const port = (blackhole.address() as net.AddressInfo).port;
    const a = machine();
    expect((await kb(a, ['--data', a.data, 'init', '--remote', `http://127.0.0.1:${port}/kb.git`])).code).toBe(0);
    setConfig(a, { auto_sync: true, auto_sync_timeout_ms: 1500 });
    const r = await add(a, 'Written with the remote hanging');
    expect(r.stderr).toMatch(/auto-sync failed \(NETWORK\): http:\/\/127\.0\.0\.1:\d+\/kb\.git did not answer in time.*the commit is kept locally/);
    expect((await git(a.data, ['log', '--format=%H', '-1'], a.env)).trim()).toBe(r.entry.commit);
    await expectCleanRepo(a.data);

    // An explicit sync with --timeout fails the same way, with the sync exit code.
    const s = await kb(a, ['--data', a.data, 'sync', '--timeout', '1', '--json']);
    expect(s.code).toBe(6);
    expect(JSON.parse(s.stderr).error.code).toBe('NETWORK');
  });

  it('hooks never sync: no hook module imports the sync code', () => {
    const dir = path.join(ROOT, 'src', 'hooks');
    for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(dir, f), 'utf8');
      expect(text, f).not.toMatch(/from '\.\.\/(kb\/)?sync(-merge)?\.js'|autoSyncAfterWrite|isomorphic-git\/http/);
    }
  });
});
