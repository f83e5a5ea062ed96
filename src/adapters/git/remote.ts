/**
 * Contract: what every way of reaching a remote shares: the target (which remote and branch, the bounds on
 * waiting), the settings it runs with (credentials, PATH and ssh, handed in by the caller: nothing here reads the
 * environment or the config), redacted URLs for messages, and isomorphic-git's failures told as KbErrors with a
 * sync exit code and a message that says local commits are kept.
 */
import http from 'isomorphic-git/http/node';
import { KbError } from '../../core/errors.js';

/** How a remote is reached. */
export type Transport = 'isomorphic-git' | 'system-git';

/** What the transport needs from the settings (the fields of the same names in src/adapters/config/settings.ts). */
export interface TransportSettings {
  /** The token for HTTP(S) remotes (GIT_KB_TOKEN, else the config's `token`), sent as HTTP Basic credentials. */
  token?: string;
  /** The user name sent with the token (default x-access-token). */
  username?: string;
  /** PATH, to find the system git. */
  path: string;
  /** GIT_SSH_COMMAND / GIT_SSH when set; otherwise the system git's ssh runs in batch mode. */
  gitSsh?: string;
  /** The environment the system git runs in. */
  env: NodeJS.ProcessEnv;
}

/** Credentials a server took. */
export interface Credentials {
  username: string;
  password: string;
}

/** One remote branch to sync with. */
export interface RemoteTarget {
  dir: string;
  remote: string;
  url: string;
  branch: string;
  transport: Transport;
  settings: TransportSettings;
  /** Aborts network calls (the auto-sync bound). */
  signal?: AbortSignal;
  /** Idle timeout of one request or git process, in ms. */
  timeoutMs?: number;
  /** Filled by remoteHeads over HTTP: what the server offers for fetching, and the credentials it took. */
  session?: { caps: Record<string, unknown>; creds?: Credentials };
}

/** The end of every transfer failure message. */
export const KEPT = 'local commits are kept';

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

/** The onAuth callback: the token of the settings as HTTP Basic credentials, or cancel when there is none. */
export function authFor(settings: TransportSettings): (url: string) => Credentials | { cancel: true } {
  const { token } = settings;
  const username = settings.username || 'x-access-token';
  return () => (token ? { username, password: token } : { cancel: true });
}

/** The repository URL a request went to (its service path and credentials removed), for messages. */
function repoOf(url: string): string {
  return redactUrl(url.replace(/\/(info\/refs|git-upload-pack|git-receive-pack)(\?.*)?$/, ''));
}

/**
 * Why an HTTP answer cannot be git's smart HTTP, from its status line and headers alone (so a server that never
 * ends its error page is reported at once), or undefined when it may be. 401 is left to the credentials dance.
 */
function notGitAnswer(url: string, status: number, statusMessage: string | undefined, type: string): KbError | undefined {
  const where = repoOf(url);
  if (status === 401) return undefined;
  if (status === 403) return new KbError('AUTH_FAILED', `${where} refused access (HTTP 403): the credentials were refused or lack access; check GIT_KB_TOKEN (and GIT_KB_USERNAME) or "token" in the config; ${KEPT}`, { url: where, status });
  if (status !== 200) return new KbError('SYNC_FAILED', `${where} answered HTTP ${status}${statusMessage ? ` ${statusMessage}` : ''}; is the URL a git repository? ${KEPT}`, { url: where, status });
  if (!/^application\/x-git-/i.test(type.trim())) {
    return new KbError('SYNC_FAILED', `${where} is not a git server: it answered with ${type.split(';')[0]!.trim() || 'no content type'}, not git's smart HTTP (a web page or a proxy?); check the URL; ${KEPT}`, { url: where, status, reason: 'not-git' });
  }
  return undefined;
}

/**
 * isomorphic-git's node HTTP client with our abort signal and idle timeout on every request, which refuses an
 * answer that is not smart HTTP (an error status, a web page) as soon as its headers arrive, closing the request.
 */
export function httpClient(signal?: AbortSignal, timeoutMs = 30_000): typeof http {
  return {
    request: async (req) => {
      const own = new AbortController();
      const outer = req.signal ?? signal;
      const res = await http.request({ ...req, signal: outer ? AbortSignal.any([outer, own.signal]) : own.signal, fetchOptions: { ...(req.fetchOptions ?? {}), timeout: timeoutMs } } as Parameters<typeof http.request>[0]);
      const type = res.headers?.['content-type'] ?? res.headers?.['Content-Type'] ?? '';
      const bad = notGitAnswer(req.url, res.statusCode, res.statusMessage, String(type));
      if (bad) {
        own.abort();
        throw bad;
      }
      return res;
    },
  };
}

/** The push failure for a remote that moved under us: a lost race, which another sync settles. */
export function raceLost(url: string, why: string): KbError {
  return new KbError('PUSH_REJECTED', `${redactUrl(url)} refused the push (${why}): another push landed at the same time; run "git-kb sync" again; ${KEPT}`, { url: redactUrl(url), reason: 'not-fast-forward' });
}

/** True when a server's reason for refusing an update means another push won the race. */
export function isRace(why: string): boolean {
  return /lock|non-fast-forward|fetch first|stale|failed to update ref|expected/i.test(why);
}

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
    if (isRace(why)) return raceLost(url, why);
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
