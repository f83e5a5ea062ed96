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
import { gfs, headOid, KB_BRANCH, matchCaseConfig, setRef, setRemote } from './git.js';
import { storePack } from './objects.js';
import { ObjectReader } from './reader.js';
import { authFor, httpClient, isHttpUrl, networkError, redactUrl, type RemoteTarget, type Transport, type TransportSettings } from './remote.js';
import { discover, fetchPack } from './smart-http.js';
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

/**
 * What the remote has, in one request: the commit of the branch (`tip`, undefined when the remote lacks it), every
 * branch it has (short names), and the branch its HEAD names, if it says (that branch may not exist: an unborn
 * HEAD, as plain `git init --bare` leaves).
 */
export interface RemoteHeads {
  tip: string | undefined;
  branches: string[];
  head: string | undefined;
}

/** The remote's branches and the tip of `t.branch` (one request; the system git for ssh and local remotes). */
export async function remoteHeads(t: RemoteTarget): Promise<RemoteHeads> {
  const ref = `refs/heads/${t.branch}`;
  const heads = new Map<string, string>();
  let head: string | undefined;
  if (t.transport === 'system-git') {
    try {
      const { stdout } = await runGit(['ls-remote', '--symref', t.remote, 'HEAD', 'refs/heads/*'], t.settings, { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
      for (const line of stdout.split('\n')) {
        const [left, name] = line.split('\t');
        if (name === 'HEAD' && left.startsWith('ref: refs/heads/')) head = left.slice('ref: refs/heads/'.length);
        else if (name?.startsWith('refs/heads/') && OID_HEX.test(left)) heads.set(name, left);
      }
    } catch (err) {
      throw systemGitError(err, t.url, 'ls-remote', t.dir);
    }
  } else {
    const d = await discover(t, 'git-upload-pack');
    t.session = { caps: d.caps, creds: d.creds };
    for (const [name, oid] of d.refs) if (name.startsWith('refs/heads/')) heads.set(name, oid);
    if (d.head?.startsWith('refs/heads/')) head = d.head.slice('refs/heads/'.length);
  }
  return { tip: heads.get(ref), branches: [...heads.keys()].map((r) => r.slice('refs/heads/'.length)).sort(), head };
}

const OID_HEX = /^[0-9a-f]{40}$/;

/**
 * The remote's own branch, the one every machine should sync: the branch its HEAD names when it has it; else (an
 * unborn HEAD) git-kb's branch (KB_BRANCH) when it has that, else its only branch; undefined when it has none, or
 * several and none of them is picked out this way.
 */
export function defaultBranch(branches: string[], head?: string): string | undefined {
  if (head && branches.includes(head)) return head;
  if (branches.includes(KB_BRANCH)) return KB_BRANCH;
  return branches.length === 1 ? branches[0] : undefined;
}

/** Fetches the branch's objects and moves `refs/remotes/<remote>/<branch>`. */
export async function fetchBranch(t: RemoteTarget): Promise<void> {
  if (t.transport === 'system-git') {
    try {
      await runGit(['fetch', '--quiet', '--no-tags', t.remote, `+refs/heads/${t.branch}:refs/remotes/${t.remote}/${t.branch}`], t.settings, { cwd: t.dir, timeoutMs: t.timeoutMs, signal: t.signal });
    } catch (err) {
      throw systemGitError(err, t.url, 'fetch', t.dir);
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
      throw systemGitError(err, t.url, 'push to', t.dir);
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

/**
 * The branch a clone checks out when the remote's HEAD names no branch it has (a bare repo made by plain
 * `git init --bare` has HEAD -> master, unborn, and git-kb pushed `main` to it): git-kb's own branch (KB_BRANCH)
 * when the remote has it, else the remote's only branch; undefined when the remote has no branch at all (an empty
 * remote). Several branches, none of them git-kb's: CONFLICT naming them (which one is the knowledge base is not
 * git-kb's guess to make).
 */
export function cloneBranch(url: string, branches: string[]): string | undefined {
  if (branches.length === 0) return undefined;
  const picked = defaultBranch(branches);
  if (picked) return picked;
  const where = redactUrl(url);
  throw new KbError(
    'CONFLICT',
    `${where} has no default branch (its HEAD names a branch that does not exist) and ${branches.length} branches, none of them "${KB_BRANCH}" (the branch git-kb syncs): ${branches.join(', ')}; point the remote's HEAD at the one to use (git --git-dir REPO symbolic-ref HEAD refs/heads/NAME), or clone it with "git clone -b NAME URL DIR" and use it with "git-kb --data DIR"`,
    { url: where, branches },
  );
}

/**
 * Clones a data repo into `dir` (which must be empty or missing), on the remote's default branch; when the
 * remote's HEAD is unborn, on the branch cloneBranch picks; an empty remote (no branch at all) gives a repo on
 * `main` (KB_BRANCH), whatever the remote's HEAD names, so every machine syncs the same branch.
 */
export async function cloneRepo(options: { url: string; dir: string; settings: TransportSettings; signal?: AbortSignal }): Promise<{ transport: Transport; notes: string[] }> {
  const { url, dir, settings } = options;
  const transport = transportFor(url, settings);
  const notes: string[] = [];
  const picked = (branch: string): string => `the remote's HEAD names no branch it has: checked out its branch "${branch}"`;
  if (transport === 'system-git') {
    notes.push(`${SYSTEM_NOTE}: ${redactUrl(url)}`);
    try {
      await runGit(['clone', '--quiet', '--', url, dir], settings, { signal: options.signal, timeoutMs: 30 * 60_000 });
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw systemGitError(err, url, 'clone');
    }
    // NOTE: git leaves HEAD on the remote's HEAD name when that branch does not exist (an empty remote, or one
    // whose HEAD is unborn: "remote HEAD refers to nonexistent ref, unable to checkout"), with nothing checked out.
    try {
      if (!(await headOid(dir))) {
        const { stdout } = await runGit(['for-each-ref', '--format=%(refname:strip=3)', 'refs/remotes/origin'], settings, { cwd: dir });
        const branch = cloneBranch(url, stdout.split('\n').filter((b) => b && b !== 'HEAD'));
        if (branch) {
          await runGit(['checkout', '--quiet', '-b', branch, '--track', `origin/${branch}`], settings, { cwd: dir });
          notes.push(picked(branch));
        } else await runGit(['symbolic-ref', 'HEAD', `refs/heads/${KB_BRANCH}`], settings, { cwd: dir });
      }
    } catch (err) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw err instanceof KbError ? err : systemGitError(err, url, 'checkout after cloning');
    }
    return { transport, notes };
  }
  // The remote's refs first: with its HEAD unborn isomorphic-git's clone finds no branch to check out.
  const d = await discover({ dir, remote: 'origin', url, branch: KB_BRANCH, transport, settings, signal: options.signal }, 'git-upload-pack');
  const branches = [...d.refs.keys()].filter((r) => r.startsWith('refs/heads/')).map((r) => r.slice('refs/heads/'.length));
  const ref = d.refs.has('HEAD') ? undefined : cloneBranch(url, branches);
  if (ref) notes.push(picked(ref));
  fs.mkdirSync(dir, { recursive: true });
  try {
    if (ref) await cloneBranchOnly({ dir, remote: 'origin', url, branch: ref, transport, settings, signal: options.signal, session: { caps: d.caps, creds: d.creds } }, d.refs.get(`refs/heads/${ref}`) as string);
    else await git.clone({ fs: gfs, http: httpClient(options.signal), dir, url, singleBranch: false, onAuth: authFor(settings) });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err instanceof KbError ? err : networkError(err, url);
  }
  await matchCaseConfig(dir);
  // NOTE: an empty remote leaves HEAD on isomorphic-git's default ("master"); git-kb's branch is "main".
  const heads = fs.existsSync(`${dir}/.git/refs/heads`) ? fs.readdirSync(`${dir}/.git/refs/heads`) : [];
  if (heads.length === 0 && !fs.existsSync(`${dir}/.git/packed-refs`)) fs.writeFileSync(`${dir}/.git/HEAD`, `ref: refs/heads/${KB_BRANCH}\n`);
  return { transport, notes };
}

/**
 * A clone of one branch over smart HTTP, for a remote whose HEAD is unborn: isomorphic-git's clone and fetch both
 * look HEAD up and fail ("Could not find HEAD"), so the branch is fetched as sync fetches it (one pack, stored
 * loose), then checked out.
 */
async function cloneBranchOnly(t: RemoteTarget, tip: string): Promise<void> {
  await git.init({ fs: gfs, dir: t.dir, defaultBranch: t.branch });
  await setRemote(t.dir, t.url, t.remote);
  const pack = await fetchPack(t, tip, []);
  const reader = new ObjectReader(t.dir);
  try {
    await storePack(t.dir, pack, reader);
  } finally {
    reader.close();
  }
  await setRef(t.dir, `refs/remotes/${t.remote}/${t.branch}`, tip);
  await setRef(t.dir, `refs/heads/${t.branch}`, tip);
  await git.checkout({ fs: gfs, dir: t.dir, ref: t.branch, force: true });
}

/** This machine's name, for merge commit messages. */
export function machineName(): string {
  return os.hostname();
}
