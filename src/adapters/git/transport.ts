/**
 * Contract: talking to remotes (spec/sync.md, "Transport"). Smart HTTP(S) goes through isomorphic-git and
 * smart-http.ts with the token of the settings; ssh, file:// and local-path remotes, which isomorphic-git cannot
 * speak, go through the system git when it is on the PATH (and the result says so), else fail with
 * UNSUPPORTED_REMOTE. Every failure is a KbError with a sync exit code and a message that says local commits are
 * kept. Network calls honour an AbortSignal and an idle timeout, so a caller can bound how long it waits.
 */
import fs from 'node:fs';
import os from 'node:os';
import * as git from 'isomorphic-git';
import { KbError } from '../../core/errors.js';
import { gfs, setRef } from './git.js';
import { authFor, httpClient, isHttpUrl, networkError, redactUrl, type RemoteTarget, type Transport, type TransportSettings } from './remote.js';
import { discover } from './smart-http.js';
import { hasSystemGit, runGit, SYSTEM_NOTE, systemGitError } from './system-git.js';

/** Picks the transport for a URL, or fails with UNSUPPORTED_REMOTE when only the system git could do it and it is missing. */
export function transportFor(url: string, settings: TransportSettings): Transport {
  if (isHttpUrl(url)) return 'isomorphic-git';
  if (hasSystemGit(settings.path)) return 'system-git';
  throw new KbError(
    'UNSUPPORTED_REMOTE',
    `${redactUrl(url)} is not an http(s) URL: isomorphic-git speaks only smart HTTP, and ssh or local remotes need the system git, which is not installed. Install git, or use an https remote (token in GIT_KB_TOKEN)`,
    { url: redactUrl(url) },
  );
}

/** The remote's commit for the branch, or undefined when the remote does not have the branch (an empty remote). */
export async function remoteTip(t: RemoteTarget): Promise<string | undefined> {
  const ref = `refs/heads/${t.branch}`;
  if (t.transport === 'system-git') {
    try {
      const { stdout } = await runGit(['ls-remote', t.remote, ref], t.settings, { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
      const line = stdout.split('\n').find((l) => l.endsWith(`\t${ref}`));
      return line ? line.split('\t')[0] : undefined;
    } catch (err) {
      throw systemGitError(err, t.url, 'ls-remote');
    }
  }
  const d = await discover(t, 'git-upload-pack');
  t.session = { caps: d.caps, creds: d.creds };
  return d.refs.get(ref);
}

/** Fetches the branch's objects and moves `refs/remotes/<remote>/<branch>`. */
export async function fetchBranch(t: RemoteTarget): Promise<void> {
  if (t.transport === 'system-git') {
    try {
      await runGit(['fetch', '--quiet', '--no-tags', t.remote, `+refs/heads/${t.branch}:refs/remotes/${t.remote}/${t.branch}`], t.settings, { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
    } catch (err) {
      throw systemGitError(err, t.url, 'fetch');
    }
    return;
  }
  try {
    await git.fetch({ fs: gfs, http: httpClient(t.signal, t.timeoutMs), dir: t.dir, remote: t.remote, url: t.url, ref: t.branch, remoteRef: t.branch, singleBranch: true, tags: false, onAuth: authFor(t.settings) });
  } catch (err) {
    throw networkError(err, t.url);
  }
}

/** Pushes the local branch (fast-forward only) to the remote branch of the same name. */
export async function pushBranch(t: RemoteTarget, oid: string): Promise<void> {
  if (t.transport === 'system-git') {
    try {
      await runGit(['push', '--quiet', '--porcelain', t.remote, `${oid}:refs/heads/${t.branch}`], t.settings, { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
    } catch (err) {
      throw systemGitError(err, t.url, 'push to');
    }
    await setRef(t.dir, `refs/remotes/${t.remote}/${t.branch}`, oid);
    return;
  }
  const said: string[] = [];
  try {
    await git.push({ fs: gfs, http: httpClient(t.signal, t.timeoutMs), dir: t.dir, remote: t.remote, url: t.url, ref: t.branch, remoteRef: t.branch, onAuth: authFor(t.settings), onMessage: (m) => void said.push(m.trim()) });
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
export async function cloneRepo(options: { url: string; dir: string; settings: TransportSettings; signal?: AbortSignal }): Promise<{ transport: Transport; note?: string }> {
  const { url, dir, settings } = options;
  const transport = transportFor(url, settings);
  if (transport === 'system-git') {
    try {
      await runGit(['clone', '--quiet', url, dir], settings, { signal: options.signal, timeoutMs: 30 * 60_000 });
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw systemGitError(err, url, 'clone');
    }
    return { transport, note: `${SYSTEM_NOTE}: ${redactUrl(url)}` };
  }
  fs.mkdirSync(dir, { recursive: true });
  try {
    await git.clone({ fs: gfs, http: httpClient(options.signal), dir, url, singleBranch: false, onAuth: authFor(settings) });
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
