// A real smart-HTTP git server for tests: a Node `http` server on 127.0.0.1 (port 0) that runs
// `git http-backend` as a CGI script in front of bare repositories in a temp directory.
//
// Works with the git CLI (protocol v0/v1 and v2, gzip and chunked request bodies) and with
// isomorphic-git (protocol v1). Optional HTTP Basic auth on every request.

import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface GitServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** directory holding the bare repositories */
  root: string;
  /** `${url}/${name}.git` */
  repoUrl(name: string): string;
  /** `git init --bare -b main <root>/<name>.git` with http.receivepack true; returns its path */
  createBare(name: string): string;
  /** count of HTTP requests served (including 401s) */
  readonly requests: number;
  /**
   * Resolves once no http-backend child is running and no `*.lock` file is left in the bare
   * repositories (a client killed mid-push leaves receive-pack finishing its ref update; one left
   * for 2 s with no backend running is stale and removed), or rejects after `timeoutMs`.
   */
  idle(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export interface GitServerOptions {
  auth?: { username: string; password: string };
}

/** Environment for git child processes: the parent's, minus anything that points git elsewhere. */
export function cleanGitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('GIT_')) continue; // GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE from hooks etc.
    env[key] = value;
  }
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_TERMINAL_PROMPT = '0';
  return { ...env, ...extra };
}

function splitHeaderBlock(buf: Buffer): { end: number; sepLen: number } | null {
  // CGI headers end with an empty line; http-backend uses CRLF, but accept bare LF too.
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf === -1 && lf === -1) return null;
  if (crlf !== -1 && (lf === -1 || crlf < lf)) return { end: crlf, sepLen: 4 };
  return { end: lf, sepLen: 2 };
}

function checkAuth(header: string | undefined, auth: { username: string; password: string }): boolean {
  if (!header) return false;
  const match = /^Basic\s+(\S+)\s*$/i.exec(header);
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return false;
  return decoded.slice(0, colon) === auth.username && decoded.slice(colon + 1) === auth.password;
}

/** The first `*.lock` file under `dir` (HEAD.lock, refs/heads/main.lock, packed-refs.lock…), if any. */
/** How long a lock with no backend running may stay before idle() takes it for stale. */
const STALE_LOCK_MS = 2_000;

function findLock(dir: string): string | null {
  let names;
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const d of names) {
    const full = path.join(dir, d.name);
    if (d.isFile() && d.name.endsWith('.lock')) return full;
    if (d.isDirectory() && d.name !== 'objects') {
      const inner = findLock(full);
      if (inner) return inner;
    }
  }
  return null;
}

export async function startGitServer(options: GitServerOptions = {}): Promise<GitServer> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'git-kb-http-'));
  const auth = options.auth;
  const sockets = new Set<Socket>();
  /**
   * The running backends, each with `check`, which stops it when its client is gone (see `abandon` below; idle()
   * calls these too), and `what`, what it serves, for idle()'s error.
   */
  const running = new Map<ChildProcess, { check: () => void; what: () => string }>();
  let requests = 0;

  const server = http.createServer((req, res) => {
    requests++;

    if (auth && !checkAuth(req.headers.authorization, auth)) {
      req.resume(); // discard any body so the connection stays usable
      res.writeHead(401, {
        'WWW-Authenticate': 'Basic realm="git"',
        'Content-Type': 'text/plain',
      });
      res.end('Authentication required\n');
      return;
    }

    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const env = cleanGitEnv({
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      // upload-pack requests are buffered in memory by http-backend; the default cap is 10 MB.
      GIT_HTTP_MAX_REQUEST_BUFFER: '1000M',
      GATEWAY_INTERFACE: 'CGI/1.1',
      SERVER_PROTOCOL: `HTTP/${req.httpVersion}`,
      SERVER_SOFTWARE: 'git-kb-test-server',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ''),
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      // With REMOTE_USER set, http-backend allows receive-pack even without http.receivepack.
      REMOTE_USER: auth ? auth.username : 'git-kb-test',
      ...(auth ? { AUTH_TYPE: 'Basic' } : {}),
    });
    // Standard CGI meta-variables for the request headers. CONTENT_LENGTH is left unset for
    // chunked bodies (the git CLI chunks bodies over http.postBuffer): http-backend then reads to EOF.
    if (req.headers['content-type']) env.CONTENT_TYPE = req.headers['content-type'];
    if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
    for (const [name, value] of Object.entries(req.headers)) {
      if (value === undefined) continue;
      const lower = name.toLowerCase();
      if (lower === 'authorization' || lower === 'content-type' || lower === 'content-length') continue;
      // Gives HTTP_CONTENT_ENCODING (gzip request bodies) and HTTP_GIT_PROTOCOL (protocol v2).
      env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(', ') : value;
    }

    const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'pipe'] });

    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    // http-backend may exit (e.g. 403/404) without reading the body: ignore EPIPE.
    child.stdin.on('error', () => {});
    req.pipe(child.stdin);

    let head: Buffer = Buffer.alloc(0);
    let headersSent = false;
    const onStdout = (chunk: Buffer): void => {
      if (headersSent) return;
      head = Buffer.concat([head, chunk]);
      const split = splitHeaderBlock(head);
      if (!split) return;
      headersSent = true;
      child.stdout.off('data', onStdout);
      let status = 200;
      let statusMessage: string | undefined;
      const headers: Record<string, string | string[]> = {};
      for (const line of head.subarray(0, split.end).toString('utf8').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon <= 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') {
          const m = /^(\d{3})\s*(.*)$/.exec(value);
          if (m) {
            status = Number(m[1]);
            statusMessage = m[2] || undefined;
          }
        } else {
          const existing = headers[name];
          if (existing === undefined) headers[name] = value;
          else headers[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
        }
      }
      if (statusMessage) res.writeHead(status, statusMessage, headers);
      else res.writeHead(status, headers);
      const rest = head.subarray(split.end + split.sepLen);
      if (rest.length > 0) res.write(rest);
      child.stdout.pipe(res);
    };
    child.stdout.on('data', onStdout);

    child.on('error', (err) => {
      running.delete(child);
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'text/plain' });
        res.end(`git http-backend failed to start: ${err.message}\n`);
      } else {
        res.destroy();
      }
    });
    child.on('close', (code) => {
      running.delete(child);
      if (!headersSent) {
        headersSent = true;
        if (!res.headersSent) {
          res.writeHead(500, { 'Content-Type': 'text/plain' });
          res.end(`git http-backend exited with ${code} without a response\n${stderr}`);
        }
      }
    });
    // Client went away mid-request: stop the backend, and close both ends of its pipes here. The pack program it runs
    // (receive-pack, upload-pack) holds the same pipes: on stdin it would wait for the rest of a body that never
    // comes; on stdout, no longer read once the response is gone, it would block for ever writing a pack into a full
    // pipe (a slow machine lets the client be killed mid-pack). Either keeps the backend's stdout open, so its
    // 'close' never comes, long after the backend itself was killed or had exited. Closed here, the writer gets EPIPE.
    // idle() runs this too for every backend whose client socket is gone, should a 'close' have been missed.
    const started = Date.now();
    let abandoned = 0;
    const abandon = (): void => {
      if (res.writableFinished) return;
      child.stdin.destroy();
      child.stdout.destroy();
      child.stderr.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGTERM first; a backend still there a second later is killed outright.
      child.kill(abandoned && Date.now() - abandoned > 1_000 ? 'SIGKILL' : 'SIGTERM');
      abandoned ||= Date.now();
    };
    res.on('close', abandon);
    running.set(child, {
      check: () => {
        if (res.destroyed || req.socket.destroyed) abandon();
      },
      what: () =>
        `${req.method} ${url.pathname} for ${Date.now() - started} ms (pid ${child.pid}, exit ${child.exitCode ?? child.signalCode ?? 'none'}, client ${req.socket.destroyed ? 'gone' : 'connected'}, response ${res.writableFinished ? 'finished' : res.headersSent ? 'streaming' : 'not started'})`,
    });
    req.on('close', () => {
      if (!req.complete) child.stdin.destroy();
    });
  });

  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | null = null;

  return {
    url,
    root,
    get requests() {
      return requests;
    },
    repoUrl(name: string): string {
      return `${url}/${name}.git`;
    },
    createBare(name: string): string {
      const dir = path.join(root, `${name}.git`);
      const env = cleanGitEnv();
      execFileSync('git', ['init', '--quiet', '--bare', '-b', 'main', dir], { env, stdio: 'pipe' });
      execFileSync('git', ['-C', dir, 'config', 'http.receivepack', 'true'], { env, stdio: 'pipe' });
      return dir;
    },
    async idle(timeoutMs = 15_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      const seen = new Map<string, number>();
      const busy = (): string | null => {
        for (const r of [...running.values()]) r.check();
        if (running.size > 0) return `${running.size} http-backend process(es) running: ${[...running.values()].map((r) => r.what()).join('; ')}`;
        for (const repo of readdirSync(root)) {
          const lock = findLock(path.join(root, repo));
          if (!lock) continue;
          // A lock left for 2 s with no backend running is stale: its receive-pack was killed with the request
          // of the killed client (res 'close' below). Removed, as git tells an admin to do.
          const since = seen.get(lock) ?? Date.now();
          seen.set(lock, since);
          if (Date.now() - since >= STALE_LOCK_MS) {
            rmSync(lock, { force: true });
            return `stale lock file ${lock} removed`;
          }
          return `lock file ${lock}`;
        }
        return null;
      };
      for (let why = busy(); why; why = busy()) {
        if (Date.now() > deadline) throw new Error(`git server not idle after ${timeoutMs} ms: ${why}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop(): Promise<void> {
      stopped ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
        const exits = [...running.keys()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('close', () => resolve());
              child.kill('SIGKILL');
            }),
        );
        await Promise.all([closed, ...exits]);
        rmSync(root, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
