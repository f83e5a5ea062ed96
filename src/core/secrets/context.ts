/**
 * Contract: secrets found by their context rather than their format: URL credentials, authorization headers,
 * netrc lines, `key = value` assignments whose key names a secret (`DB_PASSWORD`, `apiKey`, `x-api-key`), and
 * `--password VALUE` flags. Every regex starts on a literal or a boundary and has bounded quantifiers. Pure.
 */
import { candidateScan, charClass, runStart } from './candidates.js';
import { K, type Hit } from './kinds.js';
import { count, credentialLike, isCode, isPlaceholder, mask, passwordLike } from './values.js';

type KeyClass = 'password' | 'secret' | 'token' | 'apiKey' | 'privateKey' | 'credentials';

const KEY_QUALIFIERS =
  'api|access|secret|private|signing|encryption|master|client|app|application|service|account|license|' +
  'licence|ssh|session|shared|hmac|webhook|auth|admin|consumer|storage|subscription|deploy|sas|jwt|cookie|' +
  'crypt|encrypt|decrypt|integration|partner|merchant|bot|user|personal|root';
const KEY_END_RE = new RegExp(
  '(?:password|passwd|passphrase|secret|token|(?:^|_)(?:pass|pwd|auth|credentials?|apikey|secret_key_base)|' +
    `(?:^|_)(?:${KEY_QUALIFIERS})_?key)$`,
);
const PAGINATION_RE = /(?:^|_)(?:next|page|continuation|pagination|cursor|sync|resume|start|end|prev|previous)_?token$/;

/** Keys classified already: a text names the same few keys again and again. Bounded: dropped whole when full. */
const keyClasses = new Map<string, KeyClass | null>();

/** Classifies a key (`DB_PASSWORD`, `apiKey`, `x-api-key`, `spring.datasource.password`) or returns null. */
function classifyKey(key: string): KeyClass | null {
  let cls = keyClasses.get(key);
  if (cls === undefined) {
    if (keyClasses.size >= 4096) keyClasses.clear();
    cls = classifyNewKey(key);
    keyClasses.set(key, cls);
  }
  return cls;
}

function classifyNewKey(key: string): KeyClass | null {
  const k = key
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[-.]/g, '_');
  if (k === 'pass') return null;
  if (!KEY_END_RE.test(k) || PAGINATION_RE.test(k)) return null;
  if (/(?:password|passwd|passphrase|(?:^|_)(?:pass|pwd))$/.test(k)) return 'password';
  if (/key$/.test(k) || /secret_key_base$/.test(k)) {
    if (k.includes('private')) return 'privateKey';
    if (k.includes('secret')) return 'secret';
    return 'apiKey';
  }
  if (/secret$/.test(k)) return 'secret';
  if (/(?:credentials?|(?:^|_)auth)$/.test(k)) return 'credentials';
  return 'token';
}

const CLASS_KIND: Record<KeyClass, string> = {
  password: K.password,
  secret: K.secret,
  token: K.token,
  apiKey: K.apiKey,
  privateKey: K.privateKey,
  credentials: K.credentials,
};

/** The kind for an accepted assignment, refining generic classes into known providers. */
function assignmentKind(key: string, cls: KeyClass, value: string): string {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (k.includes('secretaccesskey') || (k.includes('aws') && k.includes('secret'))) {
    if (/^[A-Za-z0-9/+=]{40}$/.test(value)) return K.awsSecret;
  }
  return CLASS_KIND[cls];
}


/** Whether the text after an unquoted value ends the statement (end of line, a closer or a comment). */
function endsStatement(text: string, pos: number): boolean {
  let i = pos;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
  if (i >= text.length) return true;
  const c = text[i]!;
  if (c === '\n' || c === '\r' || '"\'`)]},;#&|\\'.includes(c)) return true;
  return text.startsWith('//', i);
}

const NEXT_PAIR_RE = /[;&][ \t]{0,8}[A-Za-z_][A-Za-z0-9_ .\[\]-]{0,64}=/y;

/** Cuts an unquoted value where the next `;key=` or `&key=` pair starts (connection strings, queries). */
function cutAtNextPair(text: string, start: number, v: string): string {
  for (let j = 0; j < v.length; j++) {
    const c = v[j];
    if (c !== ';' && c !== '&') continue;
    NEXT_PAIR_RE.lastIndex = start + j;
    if (j === v.length - 1 || NEXT_PAIR_RE.test(text)) return v.slice(0, j);
  }
  return v;
}

/** A value no prose word looks like: 12+ characters mixing digits, lower and upper case letters, or 20+ of letters and digits. */
function unmistakable(v: string): boolean {
  if (!credentialLike(v)) return false;
  const digits = /[0-9]/.test(v);
  return (v.length >= 12 && digits && /[a-z]/.test(v) && /[A-Z]/.test(v)) || (v.length >= 20 && digits && /[A-Za-z]/.test(v));
}

/** Drops trailing punctuation that belongs to the surrounding syntax, not to an unquoted value. */
function trimValue(v: string): string {
  let s = v;
  for (;;) {
    const last = s[s.length - 1];
    if (last === ',' || last === '\\') {
      s = s.slice(0, -1);
      continue;
    }
    const pair = last === ')' ? '(' : last === ']' ? '[' : last === '}' ? '{' : '';
    if (pair && count(s, pair) < count(s, last!)) {
      s = s.slice(0, -1);
      continue;
    }
    return s;
  }
}

/**
 * `scheme://user:password@`: the password may hold `#` and `@` (`postgres://u:p#ss@h/db`, `p@ss`): it runs to the
 * last `@` before the host's `/`, `?`, a quote or white space.
 */
const URL_RE = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:\/@?#"'<>\[\]]{0,128}:([^\s\/?"'<>]{1,256})@/dg;
/** A port and a fragment (`https://host:8080#a@b`), not a password. */
const PORT_FRAGMENT_RE = /^[0-9]{1,5}#/;

const AUTH_RE = new RegExp(
  String.raw`(?<![A-Za-z0-9_-])(?:proxy-)?authorization(?:\\?["'])?[ \t]{0,8}[:=][ \t]{0,8}(?:\\?["'])?[ \t]{0,4}` +
    String.raw`(?:(bearer|basic|token|bot|apikey|key)[ \t]{1,8})?([A-Za-z0-9._~+\/=-]{8,8192})`,
  'dgi',
);

const NETRC_RE = /(?<![A-Za-z0-9_-])login[ \t]{1,16}[^\s]{1,256}[ \t]{1,16}password[ \t]{1,16}([^\s]{1,256})/dg;
/** A .netrc entry over several lines: `machine HOST`, then `login`, `account` or `port` fields, then `password`. */
const NETRC_MACHINE_RE = /(?<![A-Za-z0-9_-])machine[ \t\r\n]{1,40}[^\s]{1,256}(?:[ \t\r\n]{1,40}(?:login|account|port)[ \t\r\n]{1,40}[^\s]{1,256}){0,3}[ \t\r\n]{1,40}password[ \t\r\n]{1,40}([^\s]{1,256})/dg;

const ASSIGN_RE = new RegExp(
  String.raw`(?:(?<![A-Za-z0-9_.$-])|(?<=(?<![A-Za-z0-9_.$-])--))` +
    String.raw`(?=[A-Za-z0-9_.-]{0,60}?(?:pass|pwd|secret|token|key|auth|cred))` +
    String.raw`([A-Za-z_][A-Za-z0-9_.-]{0,79})(\\?["'])?([ \t]{0,16})(:=|=>|=|:)([ \t]{0,16})` +
    String.raw`(?:\\?"((?:[^"\\\r\n]|\\[^"\r\n]){0,1024})\\?"|'([^'\r\n]{0,1024})'|([^\s"'` + '`' + String.raw`]{1,1024}))`,
  'dgi',
);

const FLAG_RE = new RegExp(
  String.raw`(?<![A-Za-z0-9_-])--([A-Za-z][A-Za-z0-9-]{0,40})[ \t]{1,4}` +
    String.raw`(?:"((?:[^"\\\r\n]|\\[^"\r\n]){1,1024})"|'([^'\r\n]{1,1024})'|([^\s"'` + '`' + String.raw`;&|-][^\s"'` + '`' + String.raw`;&|]{0,1023}))`,
  'dg',
);

const KEY_WORD_RE = /pass|pwd|secret|token|key|auth|cred/gi;
const isKeyChar = charClass('AZaz09', '_.-');

/**
 * Where an assignment can start: the start of the word run (`[A-Za-z0-9_.-]`) holding a key word, and two past
 * it when the run opens with `--`. ASSIGN_RE's lookahead reaches its key word through run characters only, and
 * its lookbehind refuses a start preceded by one, so no match starts anywhere else.
 */
function* assignmentStarts(text: string): Generator<number> {
  KEY_WORD_RE.lastIndex = 0;
  for (let m = KEY_WORD_RE.exec(text); m; m = KEY_WORD_RE.exec(text)) {
    const r = runStart(text, m.index, isKeyChar);
    yield r;
    if (text.startsWith('--', r)) yield r + 2;
    let e = m.index + m[0].length;
    while (e < text.length && isKeyChar(text.charCodeAt(e))) e++;
    KEY_WORD_RE.lastIndex = e; // one start per run
  }
}

/** ASSIGN_RE and where an assignment can start (exported for the equivalence test: the starts miss no match). */
export const ASSIGN_SCAN = candidateScan(ASSIGN_RE, assignmentStarts);

/**
 * Whether URL_RE can match: it needs `://` and, after it, `@`. (Below, AUTH_RE is skipped likewise without
 * `authorization` in any case, and NETRC_RE without `login` and `password`: most notes skip all three.)
 */
function mayHoldUrlCredentials(text: string): boolean {
  const k = text.indexOf('://');
  return k !== -1 && text.indexOf('@', k) !== -1;
}

/** The group of ASSIGN_RE's match that holds the value: double-quoted (6), single-quoted (7) or bare (8). */
function valueGroup(m: RegExpExecArray): 6 | 7 | 8 {
  return m[6] !== undefined ? 6 : m[7] !== undefined ? 7 : 8;
}

/** The secret of an assignment ASSIGN_RE matched, or undefined when its key or value is not one. */
function assignmentHit(text: string, m: RegExpExecArray): Hit | undefined {
  const key = m[1]!;
  const cls = classifyKey(key);
  if (!cls) return undefined;
  const sep = m[4]!;
  const spaced = m[3]!.length > 0 || m[5]!.length > 0;
  const gi = valueGroup(m);
  const [vs] = m.indices![gi]!;
  let v = m[gi]!;
  if (gi === 8) {
    v = trimValue(cutAtNextPair(text, vs, v));
    // NOTE: a `:` or spaced `=` value must end the statement (`token: see below` is prose), unless the value
    // is a credential beyond doubt: random-looking and long (`api_key = 9f3kQ2vL8xZp1mN7 for staging`).
    if ((sep !== '=' && sep !== ':=') || spaced) {
      if (!endsStatement(text, vs + v.length) && !unmistakable(v)) return undefined;
    }
    if (isCode(v, spaced)) return undefined;
  }
  const lead = v.length - v.trimStart().length;
  const value = v.trim();
  const ok = cls === 'password' ? passwordLike(value, gi === 8 && sep === ':') : credentialLike(value);
  if (!ok) return undefined;
  if (/^pwd$/i.test(key) && /^(?:[\/~]|[A-Za-z]:[\\/])/.test(value)) return undefined; // the shell's PWD=/path
  const start = vs + lead;
  return {
    start,
    end: start + value.length,
    kind: assignmentKind(key, cls, value),
    preview: mask(value),
    tier: 2,
    order: 3,
  };
}

/** Adds the context-found secrets of `text` to `out`. */
export function scanContext(text: string, out: Hit[]): void {
  const urls = mayHoldUrlCredentials(text) ? text.matchAll(URL_RE) : [];
  for (const m of urls) {
    const v = m[1]!;
    if (v.length < 3 || isPlaceholder(v) || PORT_FRAGMENT_RE.test(v)) continue;
    const [s, e] = m.indices![1]!;
    out.push({ start: s, end: e, kind: K.url, preview: mask(v), tier: 2, order: 0 });
  }
  const auths = /authorization/i.test(text) ? text.matchAll(AUTH_RE) : [];
  for (const m of auths) {
    const scheme = (m[1] ?? '').toLowerCase();
    const v = m[2]!;
    const ok = credentialLike(v) || (scheme === 'basic' && !isPlaceholder(v) && basicDecodes(v));
    if (!ok) continue;
    const [s, e] = m.indices![2]!;
    out.push({ start: s, end: e, kind: K.auth, preview: mask(v), tier: 2, order: 1 });
  }
  for (const m of netrcMatches(text)) {
    const v = m[1]!;
    if (!passwordLike(v, false)) continue;
    const [s, e] = m.indices![1]!;
    out.push({ start: s, end: e, kind: K.password, preview: mask(v), tier: 2, order: 2 });
  }
  // A start inside the previous match is skipped, as a global scan would, but for one: a refused match lets the
  // scan try the start of its value (`password: auth_token = "…"` is a prose `password:`, then an assignment).
  // Only a match found at a start of its own opens such a retry, so each start costs at most two tries.
  let end = 0;
  let retry = -1;
  for (const s of assignmentStarts(text)) {
    if (s < end && s !== retry) continue;
    const retried = s === retry;
    retry = -1;
    ASSIGN_SCAN.at.lastIndex = s;
    const m = ASSIGN_SCAN.at.exec(text);
    if (!m) continue;
    end = Math.max(end, m.index + m[0].length);
    const hit = assignmentHit(text, m);
    if (hit) out.push(hit);
    else if (!retried) retry = m.indices![valueGroup(m)]![0];
  }
  for (const m of text.matchAll(FLAG_RE)) {
    const cls = classifyKey(m[1]!);
    if (!cls) continue;
    const gi = m[2] !== undefined ? 2 : m[3] !== undefined ? 3 : 4;
    const [vs] = m.indices![gi]!;
    const v = gi === 4 ? trimValue(m[gi]!) : m[gi]!;
    if (gi === 4 && isCode(v, false)) continue;
    const ok = cls === 'password' ? passwordLike(v, gi === 4) : credentialLike(v);
    if (!ok) continue;
    out.push({ start: vs, end: vs + v.length, kind: CLASS_KIND[cls], preview: mask(v), tier: 2, order: 4 });
  }
}

/** The .netrc lines of a text, one form then the other (each skipped without its key words). */
function* netrcMatches(text: string): Generator<RegExpExecArray> {
  if (!text.includes('password')) return;
  if (text.includes('login')) yield* text.matchAll(NETRC_RE);
  if (text.includes('machine')) yield* text.matchAll(NETRC_MACHINE_RE);
}

function basicDecodes(v: string): boolean {
  if (!/^[A-Za-z0-9+\/]+={0,2}$/.test(v)) return false;
  const decoded = Buffer.from(v, 'base64').toString('utf8');
  return /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

