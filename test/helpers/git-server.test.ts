import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import nodeHttp from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cleanGitEnv, startGitServer, type GitServer } from './git-server.js';

const execFileAsync = promisify(execFile);

// The server runs in this process, so the git CLI must be run asynchronously (never execFileSync).
const cliEnv = cleanGitEnv({
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'CLI Tester',
  GIT_AUTHOR_EMAIL: 'cli@example.com',
  GIT_COMMITTER_NAME: 'CLI Tester',
  GIT_COMMITTER_EMAIL: 'cli@example.com',
});

async function cli(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync('git', args, { cwd, env: cliEnv, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

async function cliFails(cwd: string, ...args: string[]): Promise<string> {
  try {
    await execFileAsync('git', args, { cwd, env: cliEnv });
  } catch (err) {
    return String((err as { stderr?: string }).stderr ?? err);
  }
  throw new Error(`expected git ${args.join(' ')} to fail`);
}

async function fsckClean(bare: string): Promise<void> {
  // `git fsck` exits non-zero on corruption; --strict also flags malformed trees/commits.
  const { stdout, stderr } = await execFileAsync('git', ['fsck', '--strict', '--no-dangling'], {
    cwd: bare,
    env: cliEnv,
  });
  expect(stdout.trim()).toBe('');
  expect(stderr).not.toMatch(/error|missing|broken|bad/i);
}

const author = { name: 'Iso Tester', email: 'iso@example.com' };

async function isoCommitFile(dir: string, file: string, content: string, message: string): Promise<string> {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), content);
  await git.add({ fs, dir, filepath: file });
  return git.commit({ fs, dir, message, author });
}

let work: string;
let server: GitServer | undefined;

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'git-kb-http-test-'));
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
  fs.rmSync(work, { recursive: true, force: true });
});

describe('git server basics', () => {
  it('serves bare repos, counts requests, 404s unknown repos, removes its root on stop', async () => {
    const s = (server = await startGitServer());
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.repoUrl('notes')).toBe(`${s.url}/notes.git`);
    const bare = s.createBare('notes');
    expect(bare).toBe(path.join(s.root, 'notes.git'));
    expect(await cli(bare, 'config', 'http.receivepack')).toBe('true');
    expect(await cli(bare, 'symbolic-ref', 'HEAD')).toBe('refs/heads/main');

    const before = s.requests;
    const res = await fetch(`${s.repoUrl('notes')}/info/refs?service=git-receive-pack`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-receive-pack-advertisement');
    expect(await res.text()).toContain('# service=git-receive-pack');
    expect(s.requests).toBe(before + 1);

    const missing = await fetch(`${s.repoUrl('nope')}/info/refs?service=git-upload-pack`);
    expect(missing.status).toBe(404);
    await missing.arrayBuffer();

    const root = s.root;
    await s.stop();
    server = undefined;
    expect(fs.existsSync(root)).toBe(false);
    await expect(fetch(`${s.url}/notes.git/info/refs`)).rejects.toThrow();
  });
});

describe('git server idle', () => {
  it('waits for a lock to go, and takes one left with no backend running for stale', async () => {
    const s = (server = await startGitServer());
    const bare = s.createBare('notes');
    await s.idle();
    const lock = path.join(bare, 'refs', 'heads', 'main.lock');
    fs.writeFileSync(lock, '');
    const t = Date.now();
    await s.idle();
    expect(Date.now() - t).toBeGreaterThanOrEqual(1_900);
    expect(fs.existsSync(lock)).toBe(false);
  });
});

describe('git server with a client gone mid-pack', () => {
  it('leaves no backend behind when the client drops the connection while the pack streams', async () => {
    const s = (server = await startGitServer());
    const bare = s.createBare('big');
    // A pack far larger than a pipe holds: 8 MB that do not compress.
    const src = path.join(work, 'src');
    await cli(work, 'init', '-q', '-b', 'main', src);
    fs.writeFileSync(path.join(src, 'blob.bin'), crypto.randomBytes(8 * 1024 * 1024));
    await cli(src, 'add', 'blob.bin');
    await cli(src, 'commit', '-q', '-m', 'big');
    await cli(src, 'push', '-q', bare, 'main');
    const oid = await cli(bare, 'rev-parse', 'main');
    // An upload-pack request as a fetch sends it (protocol v0), whose answer is read only until its first bytes.
    const pkt = (line: string): string => `${(line.length + 4).toString(16).padStart(4, '0')}${line}`;
    const body = `${pkt(`want ${oid}\n`)}0000${pkt('done\n')}`;
    await new Promise<void>((resolve, reject) => {
      const req = nodeHttp.request(`${s.repoUrl('big')}/git-upload-pack`, { method: 'POST', headers: { 'Content-Type': 'application/x-git-upload-pack-request' } }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
        res.on('error', () => {});
      });
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      req.end(body);
    });
    // The backend's pack program would block for ever writing into a pipe nobody reads: the server must close it.
    await s.idle(10_000);
  });
});

describe('git CLI over smart HTTP', () => {
  it('clones an empty repo, commits, pushes, pulls, with protocol v2 and v0', async () => {
    const s = (server = await startGitServer());
    const bare = s.createBare('kb');

    const a = path.join(work, 'a');
    await cli(work, 'clone', '--quiet', s.repoUrl('kb'), a);
    await cli(a, 'checkout', '--quiet', '-b', 'main');
    fs.writeFileSync(path.join(a, 'one.md'), '# one\n');
    await cli(a, 'add', '.');
    await cli(a, 'commit', '--quiet', '-m', 'one');
    await cli(a, 'push', '--quiet', 'origin', 'main');

    // Second clone using the old protocol, commits and pushes.
    const b = path.join(work, 'b');
    await cli(work, '-c', 'protocol.version=0', 'clone', '--quiet', s.repoUrl('kb'), b);
    expect(fs.readFileSync(path.join(b, 'one.md'), 'utf8')).toBe('# one\n');
    fs.writeFileSync(path.join(b, 'two.md'), '# two\n');
    await cli(b, 'add', '.');
    await cli(b, 'commit', '--quiet', '-m', 'two');
    await cli(b, '-c', 'protocol.version=0', 'push', '--quiet', 'origin', 'main');

    // First clone pulls (protocol v2) and sees it.
    await cli(a, 'pull', '--quiet', '--ff-only', 'origin', 'main');
    expect(fs.readFileSync(path.join(a, 'two.md'), 'utf8')).toBe('# two\n');
    expect(await cli(a, 'rev-parse', 'HEAD')).toBe(await cli(bare, 'rev-parse', 'main'));

    // A non-fast-forward push is refused by the server.
    fs.writeFileSync(path.join(b, 'three.md'), '3\n');
    await cli(b, 'add', '.');
    await cli(b, 'commit', '--quiet', '-m', 'three');
    await cli(b, 'push', '--quiet', 'origin', 'main');
    fs.writeFileSync(path.join(a, 'four.md'), '4\n');
    await cli(a, 'add', '.');
    await cli(a, 'commit', '--quiet', '-m', 'four');
    expect(await cliFails(a, 'push', 'origin', 'main')).toMatch(/rejected|fetch first|non-fast-forward/);

    await fsckClean(bare);
  });

  it('handles large chunked pushes and gzip-compressed upload-pack requests', async () => {
    const s = (server = await startGitServer());
    const bare = s.createBare('big');
    const a = path.join(work, 'a');
    await cli(work, 'init', '--quiet', '-b', 'main', a);
    await cli(a, 'remote', 'add', 'origin', s.repoUrl('big'));
    // Incompressible 3 MB: larger than http.postBuffer (1 MB), so the CLI sends a chunked body
    // without Content-Length and http-backend has to read to EOF.
    fs.writeFileSync(path.join(a, 'blob.bin'), Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, () => Math.floor(Math.random() * 256))));
    await cli(a, 'add', '.');
    await cli(a, 'commit', '--quiet', '-m', 'big');
    // 150 branches: a clone then wants 150 refs, an upload-pack request > 1 KB that the CLI gzips.
    for (let i = 0; i < 150; i++) {
      fs.writeFileSync(path.join(a, 'n.txt'), `${i}\n`);
      await cli(a, 'add', 'n.txt');
      await cli(a, 'commit', '--quiet', '-m', `n${i}`);
      await cli(a, 'branch', `b${i}`);
    }
    await cli(a, 'push', '--quiet', '--all', 'origin');
    expect(await cli(bare, 'for-each-ref', '--format=%(refname)', 'refs/heads')).toContain('refs/heads/b149');

    for (const version of ['2', '0']) {
      const c = path.join(work, `c${version}`);
      await cli(work, '-c', `protocol.version=${version}`, 'clone', '--quiet', '--mirror', s.repoUrl('big'), c);
      expect(await cli(c, 'rev-parse', 'b149')).toBe(await cli(bare, 'rev-parse', 'b149'));
    }
    await fsckClean(bare);
  });
});

describe('isomorphic-git over smart HTTP', () => {
  it('pushes to an empty repo, clones, commits, pushes, fetches; rejects non-fast-forward', async () => {
    const s = (server = await startGitServer());
    const bare = s.createBare('kb');
    const url = s.repoUrl('kb');

    const a = path.join(work, 'a');
    await git.init({ fs, dir: a, defaultBranch: 'main' });
    await git.addRemote({ fs, dir: a, remote: 'origin', url });
    const c1 = await isoCommitFile(a, 'notes/one.md', '# one\n', 'one');
    const r1 = await git.push({ fs, http, dir: a, remote: 'origin', ref: 'main' });
    expect(r1.ok).toBe(true);
    expect(await cli(bare, 'rev-parse', 'main')).toBe(c1);

    const b = path.join(work, 'b');
    await git.clone({ fs, http, dir: b, url, singleBranch: true });
    expect(await git.currentBranch({ fs, dir: b })).toBe('main');
    expect(fs.readFileSync(path.join(b, 'notes/one.md'), 'utf8')).toBe('# one\n');
    const c2 = await isoCommitFile(b, 'notes/two.md', '# two\n', 'two');
    await git.push({ fs, http, dir: b, remote: 'origin', ref: 'main' });
    expect(await cli(bare, 'rev-parse', 'main')).toBe(c2);

    // a fetches and fast-forwards.
    const f = await git.fetch({ fs, http, dir: a, remote: 'origin', ref: 'main', singleBranch: true });
    expect(f.fetchHead).toBe(c2);
    await git.merge({ fs, dir: a, ours: 'main', theirs: 'origin/main', fastForwardOnly: true, author });
    await git.checkout({ fs, dir: a, ref: 'main' });
    expect(fs.readFileSync(path.join(a, 'notes/two.md'), 'utf8')).toBe('# two\n');

    // b moves on; a commits on the old tip without fetching: non-fast-forward.
    await isoCommitFile(b, 'notes/three.md', '3\n', 'three');
    await git.push({ fs, http, dir: b, remote: 'origin', ref: 'main' });
    await isoCommitFile(a, 'notes/four.md', '4\n', 'four');
    const err = await git.push({ fs, http, dir: a, remote: 'origin', ref: 'main' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(git.Errors.PushRejectedError);
    expect((err as InstanceType<typeof git.Errors.PushRejectedError>).data.reason).toBe('not-fast-forward');

    // After fetch + merge (a real merge commit), the push goes through.
    await git.fetch({ fs, http, dir: a, remote: 'origin', ref: 'main', singleBranch: true });
    await git.merge({ fs, dir: a, ours: 'main', theirs: 'origin/main', author, message: 'merge' });
    await git.checkout({ fs, dir: a, ref: 'main' });
    const r2 = await git.push({ fs, http, dir: a, remote: 'origin', ref: 'main' });
    expect(r2.ok).toBe(true);
    expect(await cli(bare, 'rev-parse', 'main')).toBe(await git.resolveRef({ fs, dir: a, ref: 'main' }));

    // The git CLI sees the same history.
    const c = path.join(work, 'c');
    await cli(work, 'clone', '--quiet', url, c);
    expect(fs.readdirSync(path.join(c, 'notes')).sort()).toEqual(['four.md', 'one.md', 'three.md', 'two.md']);
    await fsckClean(bare);
  });

  it('clones an empty repo', async () => {
    const s = (server = await startGitServer());
    s.createBare('empty');
    const a = path.join(work, 'a');
    await git.clone({ fs, http, dir: a, url: s.repoUrl('empty') });
    expect(await git.listRemotes({ fs, dir: a })).toEqual([{ remote: 'origin', url: s.repoUrl('empty') }]);
  });

  it('pushes 2,000 small files in one go', async () => {
    const s = (server = await startGitServer());
    const bare = s.createBare('many');
    const a = path.join(work, 'a');
    await git.init({ fs, dir: a, defaultBranch: 'main' });
    for (let i = 0; i < 2000; i++) {
      const dir = path.join(a, `d${i % 40}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `note-${i}.md`), `# note ${i}\n\nbody ${i}\n`);
    }
    await git.add({ fs, dir: a, filepath: '.' });
    const oid = await git.commit({ fs, dir: a, message: 'bulk', author });
    const r = await git.push({ fs, http, dir: a, url: s.repoUrl('many'), ref: 'main' });
    expect(r.ok).toBe(true);
    expect(await cli(bare, 'rev-parse', 'main')).toBe(oid);
    expect((await cli(bare, 'ls-tree', '-r', '--name-only', 'main')).split('\n')).toHaveLength(2000);
    await fsckClean(bare);

    const b = path.join(work, 'b');
    await git.clone({ fs, http, dir: b, url: s.repoUrl('many') });
    expect(fs.readFileSync(path.join(b, 'd7', 'note-1207.md'), 'utf8')).toBe('# note 1207\n\nbody 1207\n');
  });
});

describe('Basic auth', () => {
  const auth = { username: 'alice', password: 's3cret' };

  it('401s without or with wrong credentials, serves with the right ones', async () => {
    const s = (server = await startGitServer({ auth }));
    s.createBare('kb');
    const infoRefs = `${s.repoUrl('kb')}/info/refs?service=git-upload-pack`;
    const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

    const none = await fetch(infoRefs);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Basic realm="git"');
    await none.arrayBuffer();
    const wrong = await fetch(infoRefs, { headers: { authorization: basic('alice', 'nope') } });
    expect(wrong.status).toBe(401);
    await wrong.arrayBuffer();
    const right = await fetch(infoRefs, { headers: { authorization: basic('alice', 's3cret') } });
    expect(right.status).toBe(200);
    await right.arrayBuffer();
  });

  it('works with the git CLI (URL credentials and http.extraHeader)', async () => {
    const s = (server = await startGitServer({ auth }));
    const bare = s.createBare('kb');
    const withCreds = (u: string, p: string) => s.repoUrl('kb').replace('http://', `http://${u}:${p}@`);

    expect(await cliFails(work, 'clone', s.repoUrl('kb'), path.join(work, 'x'))).toMatch(/Authentication failed|401|could not read Username/i);
    expect(await cliFails(work, 'clone', withCreds('alice', 'wrong'), path.join(work, 'y'))).toMatch(/Authentication failed|401/i);

    const a = path.join(work, 'a');
    await cli(work, 'clone', '--quiet', withCreds('alice', 's3cret'), a);
    await cli(a, 'checkout', '--quiet', '-b', 'main');
    fs.writeFileSync(path.join(a, 'one.md'), '# one\n');
    await cli(a, 'add', '.');
    await cli(a, 'commit', '--quiet', '-m', 'one');
    await cli(a, 'push', '--quiet', 'origin', 'main');

    const header = `Authorization: Basic ${Buffer.from('alice:s3cret').toString('base64')}`;
    const b = path.join(work, 'b');
    await cli(work, '-c', `http.extraHeader=${header}`, 'clone', '--quiet', s.repoUrl('kb'), b);
    fs.writeFileSync(path.join(b, 'two.md'), '# two\n');
    await cli(b, 'add', '.');
    await cli(b, 'commit', '--quiet', '-m', 'two');
    await cli(b, '-c', `http.extraHeader=${header}`, 'push', '--quiet', 'origin', 'main');

    await cli(a, 'pull', '--quiet', '--ff-only', 'origin', 'main');
    expect(fs.readFileSync(path.join(a, 'two.md'), 'utf8')).toBe('# two\n');
    await fsckClean(bare);
  });

  it('works with isomorphic-git onAuth; a wrong password is an HttpError 401', async () => {
    const s = (server = await startGitServer({ auth }));
    const bare = s.createBare('kb');
    const url = s.repoUrl('kb');
    const onAuth = () => ({ username: 'alice', password: 's3cret' });

    const a = path.join(work, 'a');
    await git.init({ fs, dir: a, defaultBranch: 'main' });
    // fetch({ url }) without a configured remote throws NoRefspecError: configure one.
    await git.addRemote({ fs, dir: a, remote: 'origin', url });
    const c1 = await isoCommitFile(a, 'one.md', '# one\n', 'one');
    await git.push({ fs, http, dir: a, ref: 'main', onAuth });
    expect(await cli(bare, 'rev-parse', 'main')).toBe(c1);

    const b = path.join(work, 'b');
    await git.clone({ fs, http, dir: b, url, onAuth });
    const c2 = await isoCommitFile(b, 'two.md', '# two\n', 'two');
    await git.push({ fs, http, dir: b, onAuth });
    const f = await git.fetch({ fs, http, dir: a, ref: 'main', singleBranch: true, onAuth });
    expect(f.fetchHead).toBe(c2);

    const failures: unknown[] = [];
    for (const attempt of [
      () => git.fetch({ fs, http, dir: a, ref: 'main', onAuth: () => ({ username: 'alice', password: 'wrong' }) }),
      () => git.push({ fs, http, dir: a, ref: 'main', onAuth: () => ({ username: 'alice', password: 'wrong' }) }),
      () => git.fetch({ fs, http, dir: a, ref: 'main' }), // no onAuth at all
    ]) {
      failures.push(await attempt().then(() => null, (e: unknown) => e));
    }
    for (const err of failures) {
      expect(err).toBeInstanceOf(git.Errors.HttpError);
      expect((err as InstanceType<typeof git.Errors.HttpError>).data.statusCode).toBe(401);
    }
    await fsckClean(bare);
  });
});
