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
import { readConfig } from '../config/config.js';
import { readSettings } from '../config/settings.js';
import { KbError } from '../../core/errors.js';
import * as git from 'isomorphic-git';
import { gfs } from './git.js';
import { findExecutable } from '../system/which.js';

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
  /** Filled by remoteTip over HTTP: what the server offers for fetching, and the credentials it took. */
  session?: { caps: Record<string, unknown>; creds?: Credentials };
}

interface Credentials {
  username: string;
  password: string;
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
export function hasSystemGit(pathVar = process.env.PATH ?? ''): boolean {
  systemGit ??= findExecutable('git', pathVar) !== undefined;
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
  const cfg = readConfig(readSettings());
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
  const d = await discover(t, 'git-upload-pack');
  t.session = { caps: d.caps, creds: d.creds };
  return d.refs.get(ref);
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

const ZERO = '0000000000000000000000000000000000000000';

/** Thrown by pushPack when the caller's pack could not be built (nothing was sent): fall back to another push. */
export class PackUnavailable extends Error {}

function pktLine(text: string): Buffer {
  const body = Buffer.from(text);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}

function readPktLines(buf: Buffer): (Buffer | null)[] {
  const out: (Buffer | null)[] = [];
  let i = 0;
  while (i + 4 <= buf.length) {
    const n = parseInt(buf.toString('latin1', i, i + 4), 16);
    if (Number.isNaN(n)) throw new KbError('SYNC_FAILED', 'the server sent a malformed reply to the push (bad pkt-line); local commits are kept');
    if (n === 0) {
      out.push(null);
      i += 4;
      continue;
    }
    out.push(buf.subarray(i + 4, i + n));
    i += n;
  }
  return out;
}

/**
 * Pushes `head` to the remote branch with a pack the caller builds (only the objects the remote lacks; see
 * git-objects.ts), speaking git's receive-pack protocol over smart HTTP directly. isomorphic-git's push walks
 * every tree of the repo three times and re-hashes what it reads; this is the same protocol for a fraction of the
 * cost. `expected` is the remote tip the caller merged: a remote that moved since is a lost race (PUSH_REJECTED,
 * reason not-fast-forward), so nothing is ever overwritten.
 */
export async function pushPack(t: RemoteTarget, head: string, expected: string | undefined, makePack: () => Promise<Buffer>): Promise<void> {
  const ref = `refs/heads/${t.branch}`;
  const d = await discover(t, 'git-receive-pack');
  const old = d.refs.get(ref) ?? ZERO;
  if (old !== (expected ?? ZERO)) {
    throw new KbError('PUSH_REJECTED', `${redactUrl(t.url)} moved on since the fetch: another push landed first; run "git-kb sync" again; ${KEPT}`, { url: redactUrl(t.url), reason: 'not-fast-forward' });
  }
  if (!d.caps['report-status']) throw new PackUnavailable('the server does not offer report-status');
  const sideband = Boolean(d.caps['side-band-64k']);
  let pack: Buffer;
  try {
    pack = await makePack();
  } catch (err) {
    throw new PackUnavailable(String((err as Error)?.message ?? err));
  }
  const body = Buffer.concat([pktLine(`${old} ${head} ${ref}\0report-status${sideband ? ' side-band-64k' : ''} agent=git-kb/2\n`), Buffer.from('0000'), pack]);
  const reply = await post(t, 'git-receive-pack', body, d.creds);
  const { data: inner, said } = sideband ? demux(reply, t, 'push') : { data: reply, said: [] as string[] };
  const lines = readPktLines(inner).filter((l): l is Buffer => l !== null).map((l) => l.toString('utf8').replace(/\n$/, ''));
  const unpack = lines.find((l) => l.startsWith('unpack '));
  const status = lines.find((l) => l.startsWith(`ok ${ref}`) || l.startsWith(`ng ${ref}`));
  const remoteSaid = said.slice(-3).join(' / ');
  if (unpack !== 'unpack ok' || !status || status.startsWith('ng ')) {
    const why = status?.startsWith('ng ') ? status.slice(3 + ref.length + 1) : unpack && unpack !== 'unpack ok' ? unpack : 'no status in the reply';
    if (/lock|non-fast-forward|fetch first|stale|failed to update ref|expected/i.test(why)) {
      throw new KbError('PUSH_REJECTED', `${redactUrl(t.url)} refused the push (${why}): another push landed at the same time; run "git-kb sync" again; ${KEPT}`, { url: redactUrl(t.url), reason: 'not-fast-forward' });
    }
    throw new KbError('PUSH_REJECTED', `${redactUrl(t.url)} refused the update (${t.branch}: ${why})${remoteSaid ? `; the server said: ${remoteSaid}` : ''}; ${KEPT}`, { url: redactUrl(t.url), reason: 'refused' });
  }
  await git.writeRef({ fs: gfs, dir: t.dir, ref: `refs/remotes/${t.remote}/${t.branch}`, value: head, force: true });
}

/**
 * Downloads the objects of `want` that this repo lacks (it has `haves`) as one pack, over git's upload-pack
 * protocol (v1, stateless HTTP, one round: the haves are the local branch and its remote-tracking ref, so the
 * server sends just what is new). Returns the raw pack; the caller stores its objects. Needs remoteTip first.
 */
export async function fetchPack(t: RemoteTarget, want: string, haves: string[]): Promise<Buffer> {
  const caps = t.session?.caps ?? {};
  const offer = ['side-band-64k', 'ofs-delta'].filter((c) => caps[c]);
  const lines = [pktLine(`want ${want}${offer.length ? ` ${offer.join(' ')}` : ''} agent=git-kb/2\n`), Buffer.from('0000')];
  for (const h of [...new Set(haves)]) lines.push(pktLine(`have ${h}\n`));
  lines.push(pktLine('done\n'));
  const reply = await post(t, 'git-upload-pack', Buffer.concat(lines), t.session?.creds);
  // Negotiation lines (NAK, ACK ...) come first, then the pack (in side-band packets when offered).
  let i = 0;
  for (;;) {
    if (i + 4 > reply.length) throw new KbError('SYNC_FAILED', `${redactUrl(t.url)} sent no pack; ${KEPT}`, { url: redactUrl(t.url) });
    const n = parseInt(reply.toString('latin1', i, i + 4), 16);
    const text = n > 4 ? reply.toString('latin1', i + 4, Math.min(i + n, i + 8)) : '';
    if (n > 4 && (text.startsWith('NAK') || text.startsWith('ACK'))) {
      i += n;
      continue;
    }
    if (n === 0) {
      i += 4;
      continue;
    }
    break;
  }
  const rest = reply.subarray(i);
  if (!offer.includes('side-band-64k')) return rest;
  return demux(rest, t, 'fetch').data;
}

function demux(reply: Buffer, t: RemoteTarget, what: 'push' | 'fetch'): { data: Buffer; said: string[] } {
  const parts: Buffer[] = [];
  const said: string[] = [];
  for (const line of readPktLines(reply)) {
    if (!line || line.length === 0) continue;
    const band = line[0];
    const payload = line.subarray(1);
    if (band === 1) parts.push(payload);
    else if (band === 2) said.push(...payload.toString('utf8').split(/[\r\n]+/).map((l) => l.trim()).filter(Boolean));
    else if (band === 3) {
      const msg = payload.toString('utf8').trim();
      if (what === 'push') throw new KbError('PUSH_REJECTED', `${redactUrl(t.url)} refused the push: ${msg}; ${KEPT}`, { url: redactUrl(t.url), reason: 'refused' });
      throw new KbError('SYNC_FAILED', `${redactUrl(t.url)} failed to send the changes: ${msg}; ${KEPT}`, { url: redactUrl(t.url) });
    }
  }
  return { data: Buffer.concat(parts), said };
}

/** The refs and capabilities a service advertises, with the credentials the server took (if it asked). */
async function discover(t: RemoteTarget, service: 'git-upload-pack' | 'git-receive-pack'): Promise<{ refs: Map<string, string>; caps: Record<string, unknown>; creds?: Credentials }> {
  const base = new URL(t.url);
  let creds: Credentials | undefined = base.username || base.password ? { username: decodeURIComponent(base.username), password: decodeURIComponent(base.password) } : undefined;
  const auth = authFor();
  const onAuth = (u: string): Credentials | { cancel: true } => {
    const a = auth(u);
    if ('username' in a) creds = a;
    return a;
  };
  try {
    const info = await git.getRemoteInfo2({ http: httpClient(t.signal, t.timeoutMs), url: t.url, onAuth, forPush: service === 'git-receive-pack', protocolVersion: 1 });
    return { refs: new Map((info.refs ?? []).map((r) => [r.ref, r.oid])), caps: (info.capabilities ?? {}) as Record<string, unknown>, creds };
  } catch (err) {
    throw networkError(err, t.url);
  }
}

/** POSTs a request to a git service and returns the whole reply; asks for credentials once on a 401. */
async function post(t: RemoteTarget, service: 'git-upload-pack' | 'git-receive-pack', body: Buffer, known?: Credentials): Promise<Buffer> {
  const base = new URL(t.url);
  base.username = '';
  base.password = '';
  let creds = known;
  const client = httpClient(t.signal, t.timeoutMs);
  const once = async (): Promise<{ status: number; data: Buffer }> => {
    const headers: Record<string, string> = {
      'content-type': `application/x-${service}-request`,
      accept: `application/x-${service}-result`,
      'user-agent': 'git/isomorphic-git git-kb',
    };
    if (creds) headers.authorization = `Basic ${Buffer.from(`${creds.username}:${creds.password}`).toString('base64')}`;
    const res = await client.request({ url: `${base.toString().replace(/\/$/, '')}/${service}`, method: 'POST', headers, body: [body] as unknown as AsyncIterableIterator<Uint8Array> });
    const chunks: Buffer[] = [];
    if (res.body) for await (const c of res.body) chunks.push(Buffer.from(c));
    return { status: res.statusCode, data: Buffer.concat(chunks) };
  };
  let res: { status: number; data: Buffer };
  try {
    res = await once();
    if (res.status === 401 && !creds) {
      const a = authFor()(t.url);
      if ('username' in a) {
        creds = a;
        res = await once();
      }
    }
  } catch (err) {
    throw networkError(err, t.url);
  }
  if (res.status === 401 || res.status === 403) throw networkError(Object.assign(new Error(`HTTP ${res.status}`), { code: 'HttpError', data: { statusCode: res.status } }), t.url);
  if (res.status !== 200) throw new KbError('SYNC_FAILED', `${redactUrl(t.url)} answered ${service} with HTTP ${res.status}; ${KEPT}`, { url: redactUrl(t.url), status: res.status });
  return res.data;
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
