/**
 * Contract: git's smart HTTP protocol spoken directly for the two calls that matter to sync: upload-pack (fetch
 * the objects of one tip this repo lacks, as one pack) and receive-pack (push a pack the caller built, refusing
 * to overwrite a remote that moved). Discovery and credentials go through isomorphic-git; failures are KbErrors
 * that say local commits are kept.
 */
import * as git from 'isomorphic-git';
import { KbError } from '../../core/errors.js';
import { setRef } from './git.js';
import { authFor, httpClient, isRace, KEPT, networkError, raceLost, redactUrl, type Credentials, type RemoteTarget } from './remote.js';

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
 * walk.ts objectsToSend), speaking git's receive-pack protocol over smart HTTP directly. isomorphic-git's push walks
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
    if (isRace(why)) throw raceLost(t.url, why);
    throw new KbError('PUSH_REJECTED', `${redactUrl(t.url)} refused the update (${t.branch}: ${why})${remoteSaid ? `; the server said: ${remoteSaid}` : ''}; ${KEPT}`, { url: redactUrl(t.url), reason: 'refused' });
  }
  await setRef(t.dir, `refs/remotes/${t.remote}/${t.branch}`, head);
}

/**
 * Downloads the objects of `want` that this repo lacks (it has `haves`) as one pack, over git's upload-pack
 * protocol (v1, stateless HTTP, one round: the haves are the local branch and its remote-tracking ref, so the
 * server sends just what is new). Returns the raw pack; the caller stores its objects. Needs remoteHeads first.
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
export async function discover(t: RemoteTarget, service: 'git-upload-pack' | 'git-receive-pack'): Promise<{ refs: Map<string, string>; caps: Record<string, unknown>; creds?: Credentials; head?: string }> {
  const base = new URL(t.url);
  let creds: Credentials | undefined = base.username || base.password ? { username: decodeURIComponent(base.username), password: decodeURIComponent(base.password) } : undefined;
  const auth = authFor(t.settings);
  // The credentials the server was sent and answered 401 to: the URL's, then the token's (isomorphic-git asks
  // onAuth after a refusal of the URL's, and onAuthFailure after a refusal of the token's).
  let refused: 'the URL' | 'the token' | undefined;
  const onAuth = (u: string): Credentials | { cancel: true } => {
    if (creds) refused = 'the URL';
    const a = auth(u);
    if ('username' in a) creds = a;
    return a;
  };
  const onAuthFailure = (): { cancel: true } => {
    refused = 'the token';
    return { cancel: true };
  };
  try {
    const info = await git.getRemoteInfo2({ http: httpClient(t.signal, t.timeoutMs), url: t.url, onAuth, onAuthFailure, forPush: service === 'git-receive-pack', protocolVersion: 1 });
    // The ref HEAD names (refs/heads/main), from the symref capability; absent when HEAD is unborn.
    const head = (info.refs ?? []).find((r) => r.ref === 'HEAD')?.target;
    return { refs: new Map((info.refs ?? []).map((r) => [r.ref, r.oid])), caps: (info.capabilities ?? {}) as Record<string, unknown>, creds, head };
  } catch (err) {
    if (refused && !(err instanceof KbError)) {
      throw new KbError('AUTH_FAILED', `authentication to ${redactUrl(t.url)} failed (HTTP 401): the server refused the credentials of ${refused} (a wrong user name, password or token); fix ${refused === 'the URL' ? 'the URL (git-kb init --remote URL)' : 'GIT_KB_TOKEN (and GIT_KB_USERNAME) or "token" in the config'}; ${KEPT}`, { url: redactUrl(t.url), status: 401 });
    }
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
      const a = authFor(t.settings)(t.url);
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
