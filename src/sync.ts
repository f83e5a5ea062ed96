/**
 * Contract: talking to remotes. Smart HTTP(S) goes through isomorphic-git with the token from GIT_KB_TOKEN or
 * the config; ssh and local-path remotes, which isomorphic-git cannot speak, go through the system git when it
 * is installed (and say so), else fail with UNSUPPORTED_REMOTE.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'isomorphic-git/http/node';
import { readConfig } from './config.js';
import { KbError } from './errors.js';
import { gfs, isogit as git } from './git.js';

/** True for URLs isomorphic-git can fetch from (http and https). */
export function isHttpUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** True when a system git binary is on PATH. */
export function hasSystemGit(): boolean {
  try {
    execFileSync('git', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The onAuth callback: a token from GIT_KB_TOKEN or the config, as HTTP Basic credentials. */
export function authFor(): ((url: string) => { username: string; password: string } | { cancel: true }) {
  const cfg = readConfig();
  const token = process.env.GIT_KB_TOKEN || (typeof cfg.token === 'string' ? cfg.token : undefined);
  const username = process.env.GIT_KB_USERNAME || (typeof cfg.username === 'string' ? cfg.username : 'x-access-token');
  return () => (token ? { username, password: token } : { cancel: true });
}

/** Explains an isomorphic-git network failure as a KbError with a sync exit code. */
export function networkError(err: unknown, url: string): KbError {
  const e = err as { code?: string; message?: string; data?: { statusCode?: number } };
  if (e.code === 'HttpError' && (e.data?.statusCode === 401 || e.data?.statusCode === 403)) {
    return new KbError('AUTH_FAILED', `authentication to ${url} failed (HTTP ${e.data.statusCode}); set GIT_KB_TOKEN (and GIT_KB_USERNAME if the server needs one) or "token" in the config`);
  }
  if (e.code === 'UserCanceledError') return new KbError('AUTH_FAILED', `${url} asks for credentials and none are set; set GIT_KB_TOKEN or "token" in the config`);
  if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EHOSTUNREACH|ECONNRESET|socket hang up/i.test(e.message ?? '')) {
    return new KbError('NETWORK', `cannot reach ${url} (${(e.message ?? '').split('\n')[0]}); local commits are kept, sync again when online`);
  }
  return new KbError('SYNC_FAILED', `git transfer with ${url} failed: ${(e.message ?? String(err)).split('\n')[0]}`);
}

/** Clones a data repo into `dir` (which must be empty or missing). */
export async function cloneRepo(options: { url: string; dir: string }): Promise<void> {
  const { url, dir } = options;
  if (!isHttpUrl(url)) {
    if (!hasSystemGit()) throw new KbError('UNSUPPORTED_REMOTE', `${url} is not an http(s) URL, and isomorphic-git speaks only smart HTTP; install git to use ssh or local remotes`);
    try {
      execFileSync('git', ['clone', '--quiet', url, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (err) {
      throw new KbError('SYNC_FAILED', `git clone ${url} failed (used the system git, since isomorphic-git has no ssh or local transport): ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`);
    }
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  try {
    await git.clone({ fs: gfs, http, dir, url, singleBranch: false, onAuth: authFor() });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw networkError(err, url);
  }
}
