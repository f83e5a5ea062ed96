/**
 * Hostile battery (issue 16), what a remote can do to sync (F20, F21, F9): a rename on one clone against an edit
 * on the other, a server that answers with an error or a web page, a wrong password, secrets pushed by plain git,
 * and a submodule entry pushed by plain git. Real smart-HTTP git server on loopback (test/helpers/git-server.ts); every git call is async since
 * the server runs in this process.
 */
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, git, kb, makeSandbox, run, type RunResult, type Sandbox } from '../helpers/cli.js';
import { cleanGitEnv, startGitServer, type GitServer } from '../helpers/git-server.js';
import { SECRET_BATTERY } from '../fixtures/secrets.js';

let server: GitServer | undefined;
const sandboxes: Sandbox[] = [];
const stops: (() => Promise<void>)[] = [];

function machine(): Sandbox {
  const sb = makeSandbox('gkb-hremote-');
  sandboxes.push(sb);
  return sb;
}

afterEach(async () => {
  for (const s of stops.splice(0)) await s();
  await server?.stop();
  server = undefined;
  for (const sb of sandboxes.splice(0)) sb.cleanup();
});

async function ok(sb: Sandbox, args: string[]): Promise<RunResult> {
  const r = await kb(sb, ['--data', sb.data, ...args]);
  if (r.code !== 0) throw new Error(`git-kb ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

async function json<T = any>(sb: Sandbox, args: string[]): Promise<T> {
  return JSON.parse((await ok(sb, ['--json', ...args])).stdout) as T;
}

/** `git-kb sync` bounded: killed after `capMs` (a sync that hangs shows as code 128 and ms >= capMs). */
function syncBounded(sb: Sandbox, capMs: number, extra: string[] = []): Promise<RunResult> {
  return run(process.execPath, [CLI, '--data', sb.data, 'sync', ...extra], { env: sb.env, timeoutMs: capMs });
}

/**
 * A web server in front of the real git server: GET (the ref advertisement) goes through to it, and every POST
 * (upload-pack, receive-pack) gets `answer` at once, without reading the request body. With `all`, every request
 * gets the answer.
 */
async function brokenFront(upstream: string, answer: { status: number; type: string; body: string }, all = false): Promise<string> {
  const sockets = new Set<Socket>();
  const srv = http.createServer((req, res) => {
    if (!all && req.method === 'GET') {
      const u = new URL(req.url ?? '/', upstream);
      const p = http.request(u, { method: 'GET', headers: { ...req.headers, host: u.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      p.on('error', () => res.destroy());
      p.end();
      return;
    }
    res.writeHead(answer.status, { 'Content-Type': answer.type, 'Content-Length': Buffer.byteLength(answer.body) });
    res.end(answer.body);
  });
  srv.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  stops.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  });
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

/** A bare TCP server that writes `head` the moment a request arrives and then keeps the connection open. */
async function rawServer(head: string): Promise<string> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
    sock.once('data', () => sock.write(head));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  stops.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => srv.close(() => resolve()));
  });
  return `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
}

describe('F20: rename on one clone, edit on the other', () => {
  for (const order of ['renamer merges', 'editor merges'] as const) {
    it(`F20: after sync there is one file per id (or sync reports the conflict, exit 4, and resolve settles it); get and edit work (${order})`, async () => {
      server = await startGitServer();
      server.createBare('kb');
      const url = server.repoUrl('kb');
      const a = machine();
      const b = machine();
      await ok(a, ['init', '--clone', url]);
      const e = await json(a, ['add', '--type', 'decision', '--title', 'Cache policy for images', '--', 'Cache images for a day.']);
      await ok(a, ['sync']);
      await ok(b, ['init', '--clone', url]);
      // A renames the file (plain git: `edit --title` keeps the file name); B edits the body. The second to sync
      // makes the merge.
      const renamed = `entries/${e.id}-image-caching-rules.md`;
      await git(a.data, ['mv', e.path, renamed], a.env);
      await git(a.data, ['commit', '-q', '-m', 'rename to match the topic'], a.env);
      await ok(b, ['edit', e.id, '--body', 'Cache images for a week, edited on bravo.']);
      const [first, merger] = order === 'editor merges' ? [a, b] : [b, a];
      await ok(first, ['sync']);
      const rm = await kb(merger, ['--data', merger.data, '--json', 'sync']);
      expect([0, 4], rm.stderr).toContain(rm.code);
      const unresolved = (JSON.parse(rm.stdout).unresolved as { id?: string }[]).map((c) => c.id);
      if (rm.code === 4) {
        // Reported: resolve must settle it into one file.
        expect(unresolved).toContain(e.id);
        const res = await kb(merger, ['--data', merger.data, '--json', 'resolve', e.id, '--keep', 'both']);
        expect(res.code, res.stderr).toBe(0);
      }
      const files = (await git(merger.data, ['ls-tree', '-r', '--name-only', 'HEAD', 'entries'], merger.env)).trim().split('\n').filter((p) => path.basename(p).startsWith(`${e.id}-`));
      expect(files, `files for ${e.id} in HEAD after a sync that exited ${rm.code} (unresolved: ${JSON.stringify(unresolved)})`).toHaveLength(1);
      const got = await kb(merger, ['--data', merger.data, 'get', e.id]);
      expect(got.code, got.stderr).toBe(0);
      const ed = await kb(merger, ['--data', merger.data, 'edit', e.id, '--add-tag', 'checked']);
      expect(ed.code, ed.stderr).toBe(0);
    });
  }
});

describe('F21: a server that is not a git server, or refuses the password', () => {
  const HTML = '<!doctype html><html><body><h1>Welcome</h1></body></html>\n';
  const NOT_GIT = /not a git server|smart"? ?HTTP|html/i;

  it('F21: a server that answers HTTP 500 or a web page at once and keeps the connection open: sync fails within a few seconds naming the cause', async () => {
    // The status line and headers (no length) come at once, then nothing: a proxy or a web app that never ends
    // its error page. The status is known at once; waiting for the body to end is not needed to report it.
    const cases = [
      { name: 'HTTP 500', head: 'HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\n\r\n<html><body>Oops', want: /\b500\b/ },
      { name: 'an HTML page', head: `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n${HTML}`, want: NOT_GIT },
    ];
    const results = await Promise.all(
      cases.map(async (c) => {
        const url = await rawServer(c.head);
        const sb = machine();
        await ok(sb, ['init', '--remote', `${url}/kb.git`]);
        await ok(sb, ['add', '--type', 'decision', '--title', 'Something to push', '--', 'A body.']);
        const r = await syncBounded(sb, 15_000);
        return { c, r };
      }),
    );
    const failures: string[] = [];
    for (const { c, r } of results) {
      const text = `${r.stdout}${r.stderr}`.trim();
      const label = `${c.name}: exit ${r.code} after ${r.ms} ms: ${text.slice(0, 300)}`;
      if (r.code === 0 || r.code === 128) failures.push(`${label} (did not fail by itself within 15 s)`);
      else if (r.ms > 8_000) failures.push(`${label} (too slow to fail)`);
      else if (!c.want.test(text) || /did not answer in time/.test(text)) failures.push(`${label} (message does not name the cause, want ${c.want})`);
    }
    expect(failures).toEqual([]);
  });

  it('F21: HTTP 500 or a web page in answer to the pack requests (fetch and push): fails at once naming the cause', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const up = machine();
    await ok(up, ['init', '--clone', server.repoUrl('kb')]);
    await ok(up, ['add', '--type', 'decision', '--title', 'On the remote already', '--', 'A body.']);
    await ok(up, ['sync']);
    const cases = [
      { name: 'HTTP 500 on every request', answer: { status: 500, type: 'text/plain', body: 'Internal Server Error\n' }, all: true, want: /\b500\b/ },
      { name: 'an HTML page on every request', answer: { status: 200, type: 'text/html', body: HTML }, all: true, want: NOT_GIT },
      { name: 'HTTP 500 on the pack requests', answer: { status: 500, type: 'text/plain', body: 'Internal Server Error\n' }, all: false, want: /\b500\b/ },
      { name: 'an HTML page on the pack requests', answer: { status: 200, type: 'text/html', body: HTML }, all: false, want: NOT_GIT },
    ];
    const failures: string[] = [];
    for (const c of cases) {
      const front = await brokenFront(server.url, c.answer, c.all);
      // Fetch side: a repo that must get the remote's commit first; push side: only local commits to send.
      for (const side of ['fetch', 'push'] as const) {
        const sb = machine();
        await ok(sb, ['init', '--remote', `${front}/kb.git`]);
        await ok(sb, ['add', '--type', 'decision', '--title', `Local note for the ${side} side`, '--', 'A body.']);
        if (side === 'push') {
          // Share the remote's history first (plain git), so only a push is left to do.
          await git(sb.data, ['fetch', '-q', server.repoUrl('kb'), 'main'], sb.env);
          await git(sb.data, ['merge', '-q', '--allow-unrelated-histories', '-m', 'merge', 'FETCH_HEAD'], sb.env);
        }
        const r = await syncBounded(sb, 15_000);
        const text = `${r.stdout}${r.stderr}`.trim();
        const label = `${c.name}, ${side} side: exit ${r.code} after ${r.ms} ms: ${text.slice(0, 300)}`;
        if (r.code === 0 || r.code === 128) failures.push(`${label} (did not fail by itself)`);
        else if (r.ms > 8_000) failures.push(`${label} (too slow to fail)`);
        else if (!c.want.test(text) || /did not answer in time/.test(text)) failures.push(`${label} (message does not name the cause, want ${c.want})`);
        else if (side === 'fetch' && /reply to the push/.test(text)) failures.push(`${label} (a fetch reported as a push)`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('F21: a wrong password in the URL is reported as refused credentials, not as missing ones', async () => {
    server = await startGitServer({ auth: { username: 'dana', password: 'right-horse-battery' } });
    server.createBare('kb');
    const sb = machine();
    const wrong = server.repoUrl('kb').replace('http://', 'http://dana:wrong-horse-battery@');
    await ok(sb, ['init', '--remote', wrong]);
    await ok(sb, ['add', '--type', 'decision', '--title', 'Needs a push', '--', 'A body.']);
    const r = await syncBounded(sb, 20_000);
    const text = `${r.stdout}${r.stderr}`;
    expect(r.code, text).not.toBe(0);
    expect(text).not.toMatch(/none are set/);
    expect(text).toMatch(/refused|rejected|wrong|invalid|denied|not accepted|401/i);
    expect(text).not.toContain('wrong-horse-battery');
  });
});

describe('F9: secrets pushed to the remote by plain git', () => {
  it('F9: lint reports the secret (file and line), and git-kb\'s own merge commit writes no new blob holding it', async () => {
    server = await startGitServer();
    const bare = server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    const b = machine();
    await ok(a, ['init', '--clone', url]);
    const e = await json(a, ['add', '--type', 'pattern_convention', '--title', 'Deploy checklist', '--', 'First paragraph: build.\n\nSecond paragraph: test.\n\nThird paragraph: ship.']);
    await ok(a, ['sync']);
    // B, with plain git: clones, appends a line holding a secret to the entry, commits and pushes.
    const item = SECRET_BATTERY.find((s) => s.kind === 'GitHub token')!;
    await git(b.root, ['clone', '-q', url, b.data], b.env);
    const file = path.join(b.data, e.path);
    const text = fs.readFileSync(file, 'utf8').replace('Third paragraph: ship.', `Third paragraph: ship.\n\n${item.text}`);
    fs.writeFileSync(file, text);
    const secretLine = text.split('\n').findIndex((l) => l.includes(item.secret)) + 1;
    await git(b.data, ['commit', '-q', '-am', 'add the token line'], b.env);
    await git(b.data, ['push', '-q', 'origin', 'HEAD:main'], b.env);
    const remoteBlobs = await blobsHolding(bare, item.secret, cleanGitEnv());
    expect(remoteBlobs.length).toBe(1);
    // A edits the same entry elsewhere (merges cleanly), then syncs: git-kb makes a merge commit.
    await ok(a, ['edit', e.id, '--add-tag', 'release']);
    const s = await kb(a, ['--data', a.data, '--json', 'sync']);
    expect([0, 4], s.stderr).toContain(s.code);
    if (s.code === 0 && JSON.parse(s.stdout).merge === 'merge') {
      // Merged: git-kb's merge commit may reference the remote's blob, never write a new one with the secret.
      const mine = await blobsHolding(a.data, item.secret, a.env);
      const extra = mine.filter((oid) => !remoteBlobs.includes(oid));
      expect(extra, 'new blobs holding the secret written by git-kb\'s merge').toEqual([]);
    }
    const lint = await kb(a, ['--data', a.data, '--json', 'lint']);
    const problems = JSON.parse(lint.stdout).problems as { rule: string; file: string; line: number; message: string }[];
    const secretProblems = problems.filter((p) => /secret/i.test(p.rule) || /secret/i.test(p.message));
    expect(lint.code).toBe(5);
    expect(secretProblems.map((p) => [p.file, p.line])).toEqual([[e.path, secretLine]]);
    expect(lint.stdout + lint.stderr).not.toContain(item.secret);
  });
});

describe('a submodule entry (gitlink) pushed to the remote by plain git', () => {
  it('sync keeps it in .git/index (mode 160000, its commit) with an empty folder, merged or fast-forward, and drops it when the remote removes it: git status stays clean', async () => {
    server = await startGitServer();
    server.createBare('kb');
    const url = server.repoUrl('kb');
    const a = machine();
    const b = machine();
    await ok(a, ['init', '--clone', url]);
    await json(a, ['add', '--type', 'decision', '--title', 'Vendor policy', '--', 'Pin every vendored library.']);
    await ok(a, ['sync']);
    const c = machine();
    await ok(c, ['init', '--clone', url]);
    // A commit of another repository (never fetched by anyone here): what a submodule entry names.
    const lib = path.join(b.root, 'lib');
    await git(b.root, ['init', '-q', '-b', 'main', lib], b.env);
    await git(lib, ['commit', '-q', '--allow-empty', '-m', 'the library'], b.env);
    const sub = (await git(lib, ['rev-parse', 'HEAD'], b.env)).trim();
    // B, with plain git: a note (written by git-kb) and a submodule entry, pushed.
    await git(b.root, ['clone', '-q', url, b.data], b.env);
    const note = await json(b, ['add', '--type', 'decision', '--title', 'Library pinned', '--', 'vendor/lib is pinned.']);
    await git(b.data, ['update-index', '--add', '--cacheinfo', `160000,${sub},vendor/lib`], b.env);
    await git(b.data, ['commit', '-q', '-m', 'add vendor/lib as a submodule'], b.env);
    await git(b.data, ['push', '-q', 'origin', 'HEAD:main'], b.env);
    // A wrote a note meanwhile: its sync merges (the merge commit keeps the submodule entry), then pushes.
    await json(a, ['add', '--type', 'decision', '--title', 'Written on alpha', '--', 'Meanwhile on alpha.']);
    const merged = await json(a, ['sync']);
    expect(merged).toMatchObject({ merge: 'merge', pushed: true });
    expect((await git(a.data, ['ls-tree', 'HEAD', 'vendor/lib'], a.env)).trim()).toBe(`160000 commit ${sub}\tvendor/lib`);
    expect((await git(a.data, ['ls-files', '-s', 'vendor/lib'], a.env)).trim()).toBe(`160000 ${sub} 0\tvendor/lib`);
    expect(fs.readdirSync(path.join(a.data, 'vendor', 'lib'))).toEqual([]);
    expect(await git(a.data, ['status', '--porcelain'], a.env)).toBe('');
    expect((await json(a, ['get', note.id])).entries[0].id).toBe(note.id);
    // C, cloned before the submodule came, only ever fast-forwards: the same.
    const cFrom = (await git(c.data, ['rev-parse', 'HEAD'], c.env)).trim();
    expect(await json(c, ['sync'])).toMatchObject({ merge: 'fast-forward' });
    expect((await git(c.data, ['ls-files', '-s', 'vendor/lib'], c.env)).trim()).toBe(`160000 ${sub} 0\tvendor/lib`);
    expect(await git(c.data, ['status', '--porcelain'], c.env)).toBe('');
    // Killed after the branch moved, before the index was written: the next sync's replay of the journal adds it.
    await git(c.data, ['update-index', '--force-remove', 'vendor/lib'], c.env);
    fs.rmSync(path.join(c.data, 'vendor'), { recursive: true });
    const cTo = (await git(c.data, ['rev-parse', 'HEAD'], c.env)).trim();
    fs.writeFileSync(path.join(c.data, '.git', 'git-kb', 'journal.json'), JSON.stringify({ kind: 'checkout', from: cFrom, to: cTo, paths: ['vendor/lib'] }));
    expect(await json(c, ['sync'])).toMatchObject({ status: 'up-to-date' });
    expect((await git(c.data, ['ls-files', '-s', 'vendor/lib'], c.env)).trim()).toBe(`160000 ${sub} 0\tvendor/lib`);
    expect(await git(c.data, ['status', '--porcelain'], c.env)).toBe('');
    // B removes the submodule entry and pushes: the next sync drops it from the index and its empty folder goes.
    await git(b.data, ['pull', '-q', '--no-rebase', 'origin', 'main'], b.env);
    await git(b.data, ['rm', '-q', '--cached', 'vendor/lib'], b.env);
    await git(b.data, ['commit', '-q', '-m', 'drop vendor/lib'], b.env);
    await git(b.data, ['push', '-q', 'origin', 'HEAD:main'], b.env);
    for (const sb of [a, c]) {
      expect(await json(sb, ['sync'])).toMatchObject({ merge: 'fast-forward' });
      expect((await git(sb.data, ['ls-files', '-s', 'vendor/lib'], sb.env)).trim()).toBe('');
      expect(fs.existsSync(path.join(sb.data, 'vendor'))).toBe(false);
      expect(await git(sb.data, ['status', '--porcelain'], sb.env)).toBe('');
    }
    // The same removal killed before the index was written: the replay drops the entry and its empty folder.
    const [aTo, aFrom] = (await git(a.data, ['rev-parse', 'HEAD', 'HEAD~1'], a.env)).trim().split('\n');
    await git(a.data, ['update-index', '--add', '--cacheinfo', `160000,${sub},vendor/lib`], a.env);
    fs.mkdirSync(path.join(a.data, 'vendor', 'lib'), { recursive: true });
    fs.writeFileSync(path.join(a.data, '.git', 'git-kb', 'journal.json'), JSON.stringify({ kind: 'checkout', from: aFrom, to: aTo, paths: ['vendor/lib'] }));
    expect(await json(a, ['sync'])).toMatchObject({ status: 'up-to-date' });
    expect((await git(a.data, ['ls-files', '-s', 'vendor/lib'], a.env)).trim()).toBe('');
    expect(fs.existsSync(path.join(a.data, 'vendor'))).toBe(false);
    expect(await git(a.data, ['status', '--porcelain'], a.env)).toBe('');
  });
});

/** Blob ids in a repo whose content holds `needle`. */
async function blobsHolding(dir: string, needle: string, env?: NodeJS.ProcessEnv): Promise<string[]> {
  const list = (await git(dir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)'], env)).trim().split('\n');
  const out: string[] = [];
  for (const line of list) {
    const [oid, type] = line.split(' ');
    if (type !== 'blob') continue;
    if ((await git(dir, ['cat-file', 'blob', oid!], env)).includes(needle)) out.push(oid!);
  }
  return out;
}
