/**
 * Contract: the system git, for the remotes isomorphic-git cannot speak (ssh, file://, local paths): found on the
 * PATH of the settings, run asynchronously (a server in this process must keep answering) and never allowed to
 * prompt, its failures told as KbErrors that say the system git did the transfer and local commits are kept.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KbError } from '../../core/errors.js';
import { findExecutable } from '../system/which.js';
import { KEPT, redactUrl, type TransportSettings } from './remote.js';

/** Said in every result and message of a transfer the system git did. */
export const SYSTEM_NOTE = 'used the system git (isomorphic-git has no ssh or local-path transport)';

let systemGit: boolean | undefined;

/** True when a system git binary is on the PATH (checked once per process). */
export function hasSystemGit(pathVar: string): boolean {
  systemGit ??= findExecutable('git', pathVar) !== undefined;
  return systemGit;
}

/** Runs the system git without prompts. */
export function runGit(args: string[], settings: TransportSettings, options: { cwd?: string; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<{ stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...settings.env, GIT_TERMINAL_PROMPT: '0' };
  // NOTE: never let ssh ask for a password or a host key on a terminal nobody watches.
  if (!settings.gitSsh) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes -o ConnectTimeout=15';
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd: options.cwd, env, timeout: options.timeoutMs ?? 120_000, signal: options.signal, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(Object.assign(error, { stderr: String(stderr) }));
      else resolve({ stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/**
 * The folder a local remote names (a plain path, relative to `cwd`, or a file:// URL), or undefined for a
 * network remote (ssh://, git://, user@host:path).
 */
export function localRemotePath(url: string, cwd: string = process.cwd()): string | undefined {
  if (/^file:\/\//i.test(url)) {
    try {
      return fileURLToPath(url);
    } catch {
      return undefined;
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return undefined;
  // NOTE: git reads "host:path" (no slash before the first colon) as scp-like ssh, as here.
  const colon = url.indexOf(':');
  if (colon > 0 && !url.slice(0, colon).includes('/')) return undefined;
  return path.resolve(cwd, url);
}

/**
 * Explains a system git failure as a KbError. `cwd`: where git ran (a relative local remote is relative to it). A
 * local remote that is missing, or is not a git repository, is said to be so (`SYNC_FAILED`): not a network problem.
 */
export function systemGitError(err: unknown, url: string, what: string, cwd?: string): KbError {
  const e = err as { stderr?: string; message?: string; code?: string | number; killed?: boolean; name?: string };
  const where = redactUrl(url);
  const text = (e.stderr || e.message || String(err)).trim();
  const boiler = /^(fatal: Could not read from remote repository\.|Please make sure you have the correct access rights|and the repository exists\.)\s*$/;
  const useful = text.split('\n').map((l) => l.trim()).filter((l) => l && !boiler.test(l));
  const last = (useful.length ? useful : [text]).slice(0, 2).join(' / ');
  // A clone has no local commits to keep (its folder is removed), and a wrong path is fixed in the URL given to it.
  const cloning = what === 'clone';
  const kept = cloning ? 'nothing was cloned' : KEPT;
  const other = cloning ? 'check the URL given to --clone' : 'set another remote with "git-kb init --remote PATH"';
  if (e.killed || e.name === 'AbortError') return new KbError('NETWORK', `git ${what} ${where} did not finish in time (${SYSTEM_NOTE}); ${kept}`, { url: where, reason: 'timeout' });
  if (/\[rejected\]|non-fast-forward|fetch first|failed to push some refs/i.test(text)) {
    const hook = /pre-receive hook declined|hook declined|protected branch/i.test(text);
    return new KbError('PUSH_REJECTED', `${where} refused the push (${last}); ${hook ? 'the server refused the update' : 'the remote moved on meanwhile; run "git-kb sync" again'} (${SYSTEM_NOTE}); ${kept}`, { url: where, reason: hook ? 'refused' : 'not-fast-forward' });
  }
  if (/Authentication failed|Permission denied|could not read Username|publickey|403|401/i.test(text)) {
    return new KbError('AUTH_FAILED', `authentication to ${where} failed (${last}) (${SYSTEM_NOTE}); check your ssh key or credentials; ${kept}`, { url: where });
  }
  const local = localRemotePath(url, cwd);
  if (local && /does not appear to be a git repository|does not exist|not a git repository/i.test(text)) {
    const missing = !fs.existsSync(local);
    const why = missing ? `the remote path ${local} does not exist (create it with "git init --bare ${local}", or ${other})` : `the remote path ${local} is not a git repository (${other})`;
    return new KbError('SYNC_FAILED', `git ${what} ${where} failed: ${why} (${SYSTEM_NOTE}); ${kept}`, { url: where, path: local, reason: missing ? 'missing-path' : 'not-a-repository' });
  }
  if (/Could not resolve hostname|Connection refused|Connection timed out|Network is unreachable|No route to host|Could not read from remote|unable to access|Connection closed/i.test(text)) {
    return new KbError('NETWORK', `cannot reach ${where} (${last}) (${SYSTEM_NOTE}); ${kept}, ${cloning ? 'clone' : 'sync'} again when online`, { url: where });
  }
  return new KbError('SYNC_FAILED', `git ${what} ${where} failed: ${last} (${SYSTEM_NOTE}); ${kept}`, { url: where });
}
