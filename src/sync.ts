/**
 * Contract: talking to remotes (spec/sync.md, "Transport"). Smart HTTP(S) goes through isomorphic-git with the
 * token from GIT_KB_TOKEN or the config; ssh, file:// and local-path remotes, which isomorphic-git cannot speak,
 * go through the system git when it is installed (and the result says so), else fail with UNSUPPORTED_REMOTE.
 * Every failure is a KbError with a sync exit code and a message that says local commits are kept. Network
 * calls honour an AbortSignal and an idle timeout, so a caller can bound how long it waits.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import http from 'isomorphic-git/http/node';
import { readConfig } from './config.js';
import { KbError } from './errors.js';
import { gfs, isogit as git } from './git.js';

/** How a remote is reached. */
export type Transport = 'isomorphic-git' | 'system-git';

/** One remote branch to sync with. */
export interface RemoteTarget {
  dir: string;
  remote: string;
  url: string;
  branch: string;
  transport: Transport;
  /** Aborts network calls (the auto-sync bound). */
  signal?: AbortSignal;
  /** Idle timeout of one request or git process, in ms. */
  timeoutMs?: number;
}

/** True for URLs isomorphic-git can fetch from (http and https). */
export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** A URL with any embedded credentials removed, for messages and results. */
export function redactUrl(url: string): string {
  // NOTE: over http(s) a bare user name can be a token (https://TOKEN@host), so all of it goes; an ssh user stays.
  if (isHttpUrl(url)) return url.replace(/^(https?:\/\/)[^/@]*@/i, '$1');
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*):[^/@]*@/i, '$1@');
}

let systemGit: boolean | undefined;

/** True when a system git binary is on PATH (checked once per process). */
export function hasSystemGit(): boolean {
  if (systemGit !== undefined) return systemGit;
  const dirs = (process.env.PATH ?? '').split(process.platform === 'win32' ? ';' : ':').filter(Boolean);
  const names = process.platform === 'win32' ? ['git.exe', 'git.cmd'] : ['git'];
  systemGit = dirs.some((d) =>
    names.some((n) => {
      try {
        fs.accessSync(`${d}/${n}`, fs.constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }),
  );
  return systemGit;
}

/** Picks the transport for a URL, or fails with UNSUPPORTED_REMOTE when only the system git could do it and it is missing. */
export function transportFor(url: string): Transport {
  if (isHttpUrl(url)) return 'isomorphic-git';
  if (hasSystemGit()) return 'system-git';
  throw new KbError(
    'UNSUPPORTED_REMOTE',
    `${redactUrl(url)} is not an http(s) URL: isomorphic-git speaks only smart HTTP, and ssh or local remotes need the system git, which is not installed. Install git, or use an https remote (token in GIT_KB_TOKEN)`,
    { url: redactUrl(url) },
  );
}

/** The onAuth callback: a token from GIT_KB_TOKEN or the config, as HTTP Basic credentials. */
export function authFor(): (url: string) => { username: string; password: string } | { cancel: true } {
  const cfg = readConfig();
  const token = process.env.GIT_KB_TOKEN || (typeof cfg.token === 'string' ? cfg.token : undefined);
  const username = process.env.GIT_KB_USERNAME || (typeof cfg.username === 'string' ? cfg.username : 'x-access-token');
  return () => (token ? { username, password: token } : { cancel: true });
}

/** isomorphic-git's node HTTP client with our abort signal and idle timeout on every request. */
function httpClient(signal?: AbortSignal, timeoutMs = 30_000): typeof http {
  return {
    request: (req) => http.request({ ...req, signal: req.signal ?? signal, fetchOptions: { ...(req.fetchOptions ?? {}), timeout: timeoutMs } } as Parameters<typeof http.request>[0]),
  };
}

const KEPT = 'local commits are kept';

/** Explains an isomorphic-git network failure as a KbError with a sync exit code. */
export function networkError(err: unknown, url: string): KbError {
  if (err instanceof KbError) return err;
  const e = err as { code?: string; name?: string; message?: string; data?: { statusCode?: number; reason?: string; result?: unknown } };
  const where = redactUrl(url);
  const msg = (e.message ?? String(err)).split('\n')[0];
  if (e.code === 'HttpError' && (e.data?.statusCode === 401 || e.data?.statusCode === 403)) {
    return new KbError('AUTH_FAILED', `authentication to ${where} failed (HTTP ${e.data.statusCode}); set GIT_KB_TOKEN (and GIT_KB_USERNAME if the server needs one) or "token" in the config; ${KEPT}`, { url: where, status: e.data.statusCode });
  }
  if (e.code === 'UserCanceledError') return new KbError('AUTH_FAILED', `${where} asks for credentials and none are set; set GIT_KB_TOKEN or "token" in the config; ${KEPT}`, { url: where });
  if (e.code === 'PushRejectedError') {
    return new KbError('PUSH_REJECTED', `${where} refused the push (${e.data?.reason ?? 'rejected'}): the remote moved on meanwhile; run "git-kb sync" again; ${KEPT}`, { url: where, reason: e.data?.reason ?? 'rejected' });
  }
  if (e.code === 'GitPushError') {
    const refs = (e.data?.result as { refs?: Record<string, { ok: boolean; error?: string }> } | undefined)?.refs ?? {};
    const why = Object.entries(refs)
      .filter(([, v]) => !v.ok)
      .map(([k, v]) => `${k.replace(/^refs\/heads\//, '')}: ${v.error ?? 'rejected'}`)
      .join('; ');
    // Two pushes landing at once: the server's ref moved under us. That is a race, and a retry settles it.
    if (/lock|non-fast-forward|fetch first|stale|failed to update ref|expected/i.test(why)) {
      return new KbError('PUSH_REJECTED', `${where} refused the push (${why}): another push landed at the same time; run "git-kb sync" again; ${KEPT}`, { url: where, reason: 'not-fast-forward' });
    }
    return new KbError('PUSH_REJECTED', `${where} refused the update (${why || msg}); ${KEPT}`, { url: where, reason: 'refused' });
  }
  if (e.name === 'AbortError' || e.code === 'ABORT_ERR' || /aborted|Request timed out/i.test(msg)) {
    return new KbError('NETWORK', `${where} did not answer in time; ${KEPT}, sync again later`, { url: where, reason: 'timeout' });
  }
  if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET|EAI_AGAIN|socket hang up/i.test(`${e.code ?? ''} ${msg}`)) {
    return new KbError('NETWORK', `cannot reach ${where} (${msg}); ${KEPT}, sync again when online`, { url: where });
  }
  if (e.code === 'HttpError') return new KbError('SYNC_FAILED', `${where} answered ${msg}; ${KEPT}`, { url: where, status: e.data?.statusCode });
  return new KbError('SYNC_FAILED', `git transfer with ${where} failed: ${msg}; ${KEPT}`, { url: where });
}

const SYSTEM_NOTE = 'used the system git (isomorphic-git has no ssh or local-path transport)';

/** Runs the system git asynchronously (a server in this process must keep answering) without prompts. */
function runGit(args: string[], options: { cwd?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<{ stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  // NOTE: never let ssh ask for a password or a host key on a terminal nobody watches.
  if (!env.GIT_SSH_COMMAND && !env.GIT_SSH) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes -o ConnectTimeout=15';
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: options.cwd, env, timeout: options.timeoutMs ?? 120_000, signal: options.signal, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr: String(stderr) }));
      else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** Explains a system git failure as a KbError. */
function systemGitError(err: unknown, url: string, what: string): KbError {
  const e = err as { stderr?: string; message?: string; code?: string | number; killed?: boolean; name?: string };
  const where = redactUrl(url);
  const text = (e.stderr || e.message || String(err)).trim();
  const boiler = /^(fatal: Could not read from remote repository\.|Please make sure you have the correct access rights|and the repository exists\.)\s*$/;
  const useful = text.split('\n').map((l) => l.trim()).filter((l) => l && !boiler.test(l));
  const last = (useful.length ? useful : [text]).slice(0, 2).join(' / ');
  if (e.killed || e.name === 'AbortError') return new KbError('NETWORK', `git ${what} ${where} did not finish in time (${SYSTEM_NOTE}); ${KEPT}`, { url: where, reason: 'timeout' });
  if (/\[rejected\]|non-fast-forward|fetch first|failed to push some refs/i.test(text)) {
    const hook = /pre-receive hook declined|hook declined|protected branch/i.test(text);
    return new KbError('PUSH_REJECTED', `${where} refused the push (${last}); ${hook ? 'the server refused the update' : 'the remote moved on meanwhile; run "git-kb sync" again'} (${SYSTEM_NOTE}); ${KEPT}`, { url: where, reason: hook ? 'refused' : 'not-fast-forward' });
  }
  if (/Authentication failed|Permission denied|could not read Username|publickey|403|401/i.test(text)) {
    return new KbError('AUTH_FAILED', `authentication to ${where} failed (${last}) (${SYSTEM_NOTE}); check your ssh key or credentials; ${KEPT}`, { url: where });
  }
  if (/Could not resolve hostname|Connection refused|Connection timed out|Network is unreachable|No route to host|Could not read from remote|unable to access|Connection closed/i.test(text)) {
    return new KbError('NETWORK', `cannot reach ${where} (${last}) (${SYSTEM_NOTE}); ${KEPT}, sync again when online`, { url: where });
  }
  return new KbError('SYNC_FAILED', `git ${what} ${where} failed: ${last} (${SYSTEM_NOTE}); ${KEPT}`, { url: where });
}

/** The remote's commit for the branch, or undefined when the remote does not have the branch (an empty remote). */
export async function remoteTip(t: RemoteTarget): Promise<string | undefined> {
  const ref = `refs/heads/${t.branch}`;
  if (t.transport === 'system-git') {
    try {
      const { stdout } = await runGit(['ls-remote', t.remote, ref], { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
      const line = stdout.split('\n').find((l) => l.endsWith(`\t${ref}`));
      return line ? line.split('\t')[0] : undefined;
    } catch (err) {
      throw systemGitError(err, t.url, 'ls-remote');
    }
  }
  try {
    const info = await git.getRemoteInfo2({ http: httpClient(t.signal, t.timeoutMs), url: t.url, onAuth: authFor(), protocolVersion: 1 });
    return info.refs?.find((r) => r.ref === ref)?.oid;
  } catch (err) {
    throw networkError(err, t.url);
  }
}

/** Fetches the branch's objects and moves `refs/remotes/<remote>/<branch>`. */
export async function fetchBranch(t: RemoteTarget): Promise<void> {
  if (t.transport === 'system-git') {
    try {
      await runGit(['fetch', '--quiet', '--no-tags', t.remote, `+refs/heads/${t.branch}:refs/remotes/${t.remote}/${t.branch}`], { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
    } catch (err) {
      throw systemGitError(err, t.url, 'fetch');
    }
    return;
  }
  try {
    await git.fetch({ fs: gfs, http: httpClient(t.signal, t.timeoutMs), dir: t.dir, remote: t.remote, url: t.url, ref: t.branch, remoteRef: t.branch, singleBranch: true, tags: false, onAuth: authFor() });
  } catch (err) {
    throw networkError(err, t.url);
  }
}

/** Pushes the local branch (fast-forward only) to the remote branch of the same name. */
export async function pushBranch(t: RemoteTarget, oid: string): Promise<void> {
  if (t.transport === 'system-git') {
    try {
      await runGit(['push', '--quiet', '--porcelain', t.remote, `${oid}:refs/heads/${t.branch}`], { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
    } catch (err) {
      throw systemGitError(err, t.url, 'push to');
    }
    await git.writeRef({ fs: gfs, dir: t.dir, ref: `refs/remotes/${t.remote}/${t.branch}`, value: oid, force: true });
    return;
  }
  const said: string[] = [];
  try {
    await git.push({ fs: gfs, http: httpClient(t.signal, t.timeoutMs), dir: t.dir, remote: t.remote, url: t.url, ref: t.branch, remoteRef: t.branch, onAuth: authFor(), onMessage: (m) => void said.push(m.trim()) });
  } catch (err) {
    const e = networkError(err, t.url);
    const remote = said.filter(Boolean).slice(-3).join(' / ');
    if (e.code === 'PUSH_REJECTED' && e.data.reason === 'refused' && remote) throw new KbError(e.code, e.message.replace(/; local commits/, `; the server said: ${remote}; local commits`), e.data);
    throw e;
  }
}

/** The note a result carries when the system git did the transfer. */
export function transportNote(t: RemoteTarget): string | undefined {
  return t.transport === 'system-git' ? `${SYSTEM_NOTE}: ${redactUrl(t.url)}` : undefined;
}

/** Clones a data repo into `dir` (which must be empty or missing). An empty remote gives a repo on `main`. */
export async function cloneRepo(options: { url: string; dir: string; signal?: AbortSignal }): Promise<{ transport: Transport; note?: string }> {
  const { url, dir } = options;
  const transport = transportFor(url);
  if (transport === 'system-git') {
    try {
      await runGit(['clone', '--quiet', url, dir], { signal: options.signal, timeoutMs: 30 * 60_000 });
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw systemGitError(err, url, 'clone');
    }
    return { transport, note: `${SYSTEM_NOTE}: ${redactUrl(url)}` };
  }
  fs.mkdirSync(dir, { recursive: true });
  try {
    await git.clone({ fs: gfs, http: httpClient(options.signal), dir, url, singleBranch: false, onAuth: authFor() });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw networkError(err, url);
  }
  // NOTE: an empty remote leaves HEAD on isomorphic-git's default ("master"); git-kb's branch is "main".
  const heads = fs.existsSync(`${dir}/.git/refs/heads`) ? fs.readdirSync(`${dir}/.git/refs/heads`) : [];
  if (heads.length === 0 && !fs.existsSync(`${dir}/.git/packed-refs`)) fs.writeFileSync(`${dir}/.git/HEAD`, 'ref: refs/heads/main\n');
  return { transport };
}

/** This machine's name, for merge commit messages. */
export function machineName(): string {
  return os.hostname();
}
