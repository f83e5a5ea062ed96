/**
 * Contract: pure, synchronous, dependency-free secret scanning.
 * - `findSecrets` reports every secret-shaped span with a human kind, the 1-based line and column where it
 *   starts, and a masked preview that never holds the whole secret.
 * - `redactSecrets` replaces each span with `[REDACTED:<slug>]` (slug: the kind lower-cased, " assignment"
 *   dropped, non-alphanumerics turned into `-`). For assignments, headers and URLs only the value is
 *   replaced, so `password=[REDACTED:password]` keeps its key. Redacting redacted text changes nothing.
 * - `isSecretFilePath` names files whose whole content is secret (.env, key files, credential stores);
 *   committed templates (`.env.example`, `.env.sample`, `.env.template`, `.env.dist`) and `*.pub` are not.
 * - Every regex starts on a literal or a boundary and has bounded quantifiers: scanning is linear in the
 *   input (5 MB of adversarial text scans in well under a second).
 * Placeholder policy (not reported): empty values, `<token>`, `${TOKEN}`, `$TOKEN`, `$(cmd)`, `%TOKEN%`,
 * `{{ token }}`, `{token}`, `[REDACTED...]`, runs of one character (`xxx`, `****`), values with six or more
 * `x`/`*` in a row, ENV_VAR_NAMES, `your_...`/`..._here`, values containing `EXAMPLE` (the AWS documented
 * keys), and stop words such as changeme, password, secret, none, null, true, required, test, dummy.
 * Prose and code are not values: `token: see below` (a `:` or spaced `=` value must end the line),
 * `const token = getToken()`, `password = os.environ[...]`, and keys such as `password_hint`, `token_type`,
 * `max_tokens`, `next_page_token` are ignored, as is the shell's `PWD=/a/path`. A `key: value` password
 * written as one plain word (`password: hunter`) is taken for prose; quoted or `=` forms are reported.
 */

/** One secret-shaped span: its kind, where it starts (1-based line and column) and a masked preview. */
export interface SecretFinding {
  kind: string;
  line: number;
  column: number;
  preview: string;
}

interface Hit {
  start: number;
  end: number;
  kind: string;
  preview: string;
  tier: number;
  order: number;
}

const K = {
  awsId: 'AWS access key id',
  awsSecret: 'AWS secret access key',
  github: 'GitHub token',
  gitlab: 'GitLab token',
  slack: 'Slack token',
  slackHook: 'Slack webhook URL',
  stripe: 'Stripe secret key',
  openai: 'OpenAI API key',
  anthropic: 'Anthropic API key',
  googleKey: 'Google API key',
  googleOauth: 'Google OAuth client secret',
  npm: 'npm token',
  pypi: 'PyPI token',
  twilio: 'Twilio API key',
  sendgrid: 'SendGrid API key',
  azure: 'Azure storage account key',
  heroku: 'Heroku API key',
  jwt: 'JWT',
  pem: 'private key block',
  auth: 'authorization header',
  url: 'URL credentials',
  password: 'password assignment',
  secret: 'secret assignment',
  token: 'token assignment',
  apiKey: 'API key assignment',
  privateKey: 'private key assignment',
  credentials: 'credentials assignment',
} as const;

// ---------------------------------------------------------------------------------------------------------
// Value heuristics

const STOP_WORDS = new Set(
  (
    'none null nil undefined true false yes no on off empty blank required optional hidden masked redacted ' +
    'removed omitted unset unknown default string str text bool boolean int integer number secret secrets ' +
    'password passwd pass pwd passphrase token tokens key apikey api_key changeme change_me changeit example ' +
    'sample dummy fake placeholder test testing todo tbd tba n/a na foo bar baz qux prompt env vault ' +
    'keychain see below above here ask incorrect invalid wrong expired missing set reset changed updated ' +
    'ok match mismatch generated rotated stored encrypted same different ' +
    // Well-known default credentials of local development servers, as in docker-compose files and tutorials.
    'postgres mysql mariadb root admin administrator guest user username demo'
  ).split(' '),
);

/** True when a value is a stand-in for a secret rather than a secret. */
function isPlaceholder(raw: string): boolean {
  const s = raw.trim();
  if (s.length === 0) return true;
  if (/^\[REDACTED/i.test(s)) return true;
  if (s.startsWith('<') && s.endsWith('>')) return true;
  if (s.startsWith('${') || s.startsWith('$(') || s.startsWith('{{') || s.startsWith('%{')) return true;
  if (/^\$[A-Za-z_][A-Za-z0-9_]{0,200}$/.test(s)) return true;
  if (/^%[A-Za-z_][A-Za-z0-9_]{0,200}%$/.test(s)) return true;
  if (/^\{[^{}]{0,200}\}$/.test(s)) return true;
  if (/^![A-Za-z]/.test(s)) return true; // YAML tags: !vault, !Ref, !Sub
  if (/^(.)\1*$/.test(s)) return true;
  if (/[xX*•]{6}/.test(s)) return true;
  if (s.includes('EXAMPLE') || s.includes('…') || s.includes('...')) return true;
  if (/^[A-Z][A-Z0-9]{0,100}(?:_[A-Z0-9]{1,100}){1,20}$/.test(s)) return true; // ENV_VAR_NAME
  if (/^(?:your|my)[-_ ]?[A-Za-z_ -]{0,100}$/i.test(s)) return true;
  if (/[-_ ]here$/i.test(s)) return true;
  return STOP_WORDS.has(s.toLowerCase());
}

const hasDigit = (s: string): boolean => /[0-9]/.test(s);
const hasLetter = (s: string): boolean => /[A-Za-z]/.test(s);

/** True for a token-like value: long enough and random-looking (not a word, not a number). */
function credentialLike(s: string): boolean {
  if (s.length < 8 || isPlaceholder(s)) return false;
  if (/^[0-9]+$/.test(s)) return false;
  if (hasDigit(s) && hasLetter(s)) return true;
  return s.length >= 16 && /[A-Z]/.test(s) && /[a-z]/.test(s) && !/^[A-Z]?[a-z]+(?:[A-Z][a-z]+)*$/.test(s);
}

/** True for a password-like value; `strict` asks for some complexity (used where prose is likely). */
function passwordLike(s: string, strict: boolean): boolean {
  if (s.length < 4 || isPlaceholder(s)) return false;
  if (strict && !/[0-9]|[^A-Za-z0-9\s_-]|.[A-Z]/.test(s)) return false;
  return true;
}

/** True when an unquoted value is code (a call, an index, a member, a keyword) rather than a literal. */
function isCode(s: string, spaced: boolean): boolean {
  if (/^[({[]/.test(s)) return true;
  if (/^(?:await|new|function|lambda|async|yield|typeof|require|import|this|self)(?![A-Za-z0-9_$])/.test(s)) {
    return true;
  }
  if (/^[A-Za-z_$][\w$]{0,200}(?:(?:\.|::|->)[A-Za-z_$][\w$]{0,200}){0,20}[([]/.test(s)) return true;
  if ((spaced || !hasDigit(s)) && /^[A-Za-z_$][\w$]{0,200}(?:\.[A-Za-z_$][\w$]{0,200}){1,20}$/.test(s)) {
    return true; // a member access such as process.env.TOKEN or config.password
  }
  if (spaced && (/^[a-z]{1,100}(?:_[a-z]{1,100}){1,20}$/.test(s) || /^[a-z]{1,100}(?:[A-Z][a-z]{1,100}){1,20}$/.test(s))) {
    return true; // a snake_case or camelCase identifier after `x = `: a variable
  }
  return false;
}

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

/** Classifies a key (`DB_PASSWORD`, `apiKey`, `x-api-key`, `spring.datasource.password`) or returns null. */
function classifyKey(key: string): KeyClass | null {
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
  if (k.includes('heroku') && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) {
    return K.heroku;
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

function count(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

/** A masked form of a secret, safe to print: at most its first 4 characters (a quarter of it) and `…`. */
function mask(secret: string): string {
  return secret.slice(0, Math.min(4, Math.floor(secret.length / 4))) + '…';
}

// ---------------------------------------------------------------------------------------------------------
// Detectors

interface TokenRule {
  kind: string;
  re: RegExp;
  check?: (s: string) => boolean;
}

const randomish = (s: string): boolean => hasDigit(s) && hasLetter(s);

/** Provider formats: the whole match is the secret. Order breaks ties between rules matching one span. */
const TOKEN_RULES: TokenRule[] = [
  { kind: K.anthropic, re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,300}/g, check: randomish },
  {
    kind: K.openai,
    re: /(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/g,
    check: (s) => hasDigit(s) && /[A-Z]/.test(s) && /[a-z]/.test(s),
  },
  {
    kind: K.github,
    re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,251}|github_pat_[A-Za-z0-9_]{30,251})/g,
    check: randomish,
  },
  { kind: K.gitlab, re: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|soat|cbt)-[A-Za-z0-9_-]{20,250}/g, check: randomish },
  { kind: K.slack, re: /(?<![A-Za-z0-9_-])xox[baprse]-[A-Za-z0-9-]{10,250}/g, check: randomish },
  { kind: K.slackHook, re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_\/+-]{8,300}/g },
  {
    kind: K.stripe,
    re: /(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9+\/=]{24,200})/g,
    check: randomish,
  },
  { kind: K.googleKey, re: /(?<![A-Za-z0-9_+\/-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
  { kind: K.googleOauth, re: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{20,100}/g },
  { kind: K.npm, re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, check: randomish },
  { kind: K.pypi, re: /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{40,1000}/g },
  { kind: K.twilio, re: /(?<![A-Za-z0-9_])SK[0-9a-f]{32}(?![A-Za-z0-9_])/g, check: randomish },
  { kind: K.sendgrid, re: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9_-]{16,128}/g },
  { kind: K.awsId, re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  {
    kind: K.jwt,
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{7,16384}\.[A-Za-z0-9_-]{8,16384}\.[A-Za-z0-9_-]{0,16384}/g,
  },
];

const AZURE_RE = /(?<![A-Za-z0-9])AccountKey=([A-Za-z0-9+\/]{40,200}={0,2})/dgi;

const PEM_BEGIN_RE = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END_RE = /-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_LINE_RE = /^(?:[A-Za-z0-9+\/=]{1,200}|[A-Za-z][A-Za-z-]{0,40}: [^\r\n]{0,300}|)$/;

const URL_RE = /(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:\/@?#"'<>\[\]]{0,128}:([^\s\/@?#"'<>]{1,256})@/dg;

const AUTH_RE = new RegExp(
  String.raw`(?<![A-Za-z0-9_-])(?:proxy-)?authorization(?:\\?["'])?[ \t]{0,8}[:=][ \t]{0,8}(?:\\?["'])?[ \t]{0,4}` +
    String.raw`(?:(bearer|basic|token|bot|apikey|key)[ \t]{1,8})?([A-Za-z0-9._~+\/=-]{8,8192})`,
  'dgi',
);

const NETRC_RE = /(?<![A-Za-z0-9_-])login[ \t]{1,16}[^\s]{1,256}[ \t]{1,16}password[ \t]{1,16}([^\s]{1,256})/dg;

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

function scanTokens(text: string, out: Hit[]): void {
  TOKEN_RULES.forEach((rule, order) => {
    for (const m of text.matchAll(rule.re)) {
      const s = m[0];
      if (isPlaceholder(s) || (rule.check && !rule.check(s))) continue;
      out.push({ start: m.index, end: m.index + s.length, kind: rule.kind, preview: mask(s), tier: 1, order });
    }
  });
  for (const m of text.matchAll(AZURE_RE)) {
    const [s, e] = m.indices![1]!;
    const v = m[1]!;
    if (!credentialLike(v)) continue;
    out.push({ start: s, end: e, kind: K.azure, preview: mask(v), tier: 1, order: TOKEN_RULES.length });
  }
}

function scanPem(text: string, out: Hit[]): void {
  let consumed = 0;
  let noEndFrom = Infinity;
  for (const m of text.matchAll(PEM_BEGIN_RE)) {
    if (m.index < consumed) continue;
    const headerEnd = m.index + m[0].length;
    let end = -1;
    if (headerEnd < noEndFrom) {
      PEM_END_RE.lastIndex = headerEnd;
      const e = PEM_END_RE.exec(text);
      if (e) end = e.index + e[0].length;
      else noEndFrom = headerEnd;
    }
    if (end === -1) end = truncatedPemEnd(text, headerEnd);
    out.push({ start: m.index, end, kind: K.pem, preview: m[0] + '…', tier: 0, order: 0 });
    consumed = end;
  }
}

/** End of a private key block that has no END line: the key material that follows the header. */
function truncatedPemEnd(text: string, headerEnd: number): number {
  let i = headerEnd;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++;
  if (i < text.length && text[i] !== '\n') {
    // Single-line form (for example JSON with literal \n): take the key characters that follow.
    i = headerEnd;
    while (i < text.length && /[A-Za-z0-9+\/=\\ ]/.test(text[i]!)) i++;
    return i;
  }
  const nl = i < text.length ? i : -1;
  const lineEnd = nl === -1 ? text.length : nl;
  let end = lineEnd;
  let pos = nl === -1 ? text.length : nl + 1;
  while (pos < text.length) {
    const n = text.indexOf('\n', pos);
    const le = n === -1 ? text.length : n;
    const line = text.slice(pos, le).replace(/\r$/, '').trim();
    if (!PEM_LINE_RE.test(line)) break;
    if (line !== '') end = le;
    if (n === -1) break;
    pos = n + 1;
  }
  return end;
}

function scanContext(text: string, out: Hit[]): void {
  for (const m of text.matchAll(URL_RE)) {
    const v = m[1]!;
    if (v.length < 3 || isPlaceholder(v)) continue;
    const [s, e] = m.indices![1]!;
    out.push({ start: s, end: e, kind: K.url, preview: mask(v), tier: 2, order: 0 });
  }
  for (const m of text.matchAll(AUTH_RE)) {
    const scheme = (m[1] ?? '').toLowerCase();
    const v = m[2]!;
    const ok = credentialLike(v) || (scheme === 'basic' && !isPlaceholder(v) && basicDecodes(v));
    if (!ok) continue;
    const [s, e] = m.indices![2]!;
    out.push({ start: s, end: e, kind: K.auth, preview: mask(v), tier: 2, order: 1 });
  }
  for (const m of text.matchAll(NETRC_RE)) {
    const v = m[1]!;
    if (!passwordLike(v, false)) continue;
    const [s, e] = m.indices![1]!;
    out.push({ start: s, end: e, kind: K.password, preview: mask(v), tier: 2, order: 2 });
  }
  for (const m of text.matchAll(ASSIGN_RE)) {
    const key = m[1]!;
    const cls = classifyKey(key);
    if (!cls) continue;
    const sep = m[4]!;
    const spaced = m[3]!.length > 0 || m[5]!.length > 0;
    const gi = m[6] !== undefined ? 6 : m[7] !== undefined ? 7 : 8;
    const [vs] = m.indices![gi]!;
    let v = m[gi]!;
    if (gi === 8) {
      v = trimValue(cutAtNextPair(text, vs, v));
      if ((sep !== '=' && sep !== ':=') || spaced) {
        if (!endsStatement(text, vs + v.length)) continue;
      }
      if (isCode(v, spaced)) continue;
    }
    const lead = v.length - v.trimStart().length;
    const value = v.trim();
    const ok = cls === 'password' ? passwordLike(value, gi === 8 && sep === ':') : credentialLike(value);
    if (!ok) continue;
    if (/^pwd$/i.test(key) && /^(?:[\/~]|[A-Za-z]:[\\/])/.test(value)) continue; // the shell's PWD=/path
    const start = vs + lead;
    out.push({
      start,
      end: start + value.length,
      kind: assignmentKind(key, cls, value),
      preview: mask(value),
      tier: 2,
      order: 3,
    });
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

function basicDecodes(v: string): boolean {
  if (!/^[A-Za-z0-9+\/]+={0,2}$/.test(v)) return false;
  const decoded = Buffer.from(v, 'base64').toString('utf8');
  return /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(decoded);
}

/** Keeps non-overlapping hits: lower tiers first (key blocks, then provider formats, then context). */
function resolve(cands: Hit[]): Hit[] {
  let accepted: Hit[] = [];
  for (const tier of [0, 1, 2]) {
    const list = cands
      .filter((c) => c.tier === tier)
      .sort((a, b) => a.start - b.start || a.order - b.order || b.end - a.end);
    const fresh: Hit[] = [];
    let i = 0;
    let lastEnd = -1;
    for (const c of list) {
      if (c.start < lastEnd) continue;
      while (i < accepted.length && accepted[i]!.end <= c.start) i++;
      if (i < accepted.length && accepted[i]!.start < c.end) continue;
      fresh.push(c);
      lastEnd = c.end;
    }
    accepted = mergeByStart(accepted, fresh);
  }
  return accepted;
}

function mergeByStart(a: Hit[], b: Hit[]): Hit[] {
  const out: Hit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.start <= b[j]!.start)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

function scan(text: string): Hit[] {
  const cands: Hit[] = [];
  scanPem(text, cands);
  scanTokens(text, cands);
  scanContext(text, cands);
  return resolve(cands);
}

function slugOf(kind: string): string {
  return kind
    .toLowerCase()
    .replace(/ assignment$/, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

// ---------------------------------------------------------------------------------------------------------
// Public API

/** Finds secret-shaped content in `text`, in order of position, each with a masked preview. */
export function findSecrets(text: string): SecretFinding[] {
  const hits = scan(text);
  const findings: SecretFinding[] = [];
  let line = 1;
  let lineStart = 0;
  let nextNl = text.indexOf('\n');
  for (const h of hits) {
    while (nextNl !== -1 && nextNl < h.start) {
      line++;
      lineStart = nextNl + 1;
      nextNl = text.indexOf('\n', lineStart);
    }
    findings.push({ kind: h.kind, line, column: h.start - lineStart + 1, preview: h.preview });
  }
  return findings;
}

/** Replaces every secret in `text` with `[REDACTED:<kind-slug>]`, keeping keys, headers and URL users. */
export function redactSecrets(text: string): { text: string; count: number; kinds: string[] } {
  const hits = scan(text);
  if (hits.length === 0) return { text, count: 0, kinds: [] };
  const parts: string[] = [];
  const kinds: string[] = [];
  let pos = 0;
  for (const h of hits) {
    parts.push(text.slice(pos, h.start), `[REDACTED:${slugOf(h.kind)}]`);
    pos = h.end;
    if (!kinds.includes(h.kind)) kinds.push(h.kind);
  }
  parts.push(text.slice(pos));
  return { text: parts.join(''), count: hits.length, kinds };
}

const ENV_TEMPLATE_RE = /^\.env\.(?:example|sample|template|dist|defaults?|schema)$/;
const SECRET_EXT_RE = /\.(?:pem|key|p12|pfx|p8|jks|keystore|ppk|kdbx|keytab)$/;
const SECRET_NAMES = new Set([
  '.env',
  '.envrc',
  '.npmrc',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.pypirc',
  '.git-credentials',
  '.dockercfg',
  '.htpasswd',
  '.vault-token',
  '.secrets',
  'credentials',
]);

/** True when a file's whole content is secret (.env, key files, SSH private keys, credential stores). */
export function isSecretFilePath(path: string): boolean {
  const norm = path.replace(/\\/g, '/').replace(/\/+$/, '');
  const base = (norm.slice(norm.lastIndexOf('/') + 1) || '').toLowerCase();
  if (base === '' || base.endsWith('.pub')) return false;
  if (SECRET_NAMES.has(base)) return true;
  if (base.startsWith('.env.')) return !ENV_TEMPLATE_RE.test(base);
  if (base.endsWith('.env')) return true;
  if (SECRET_EXT_RE.test(base)) return true;
  if (/^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[._-][a-z0-9._-]*)?$/.test(base)) return true;
  if (/^credentials\.[a-z]+$/.test(base)) return true;
  if (/^secrets?\.(?:ya?ml|json|toml|ini|env|txt)$/.test(base)) return true;
  if (/^client_secret[^/]*\.json$/.test(base) || /^service[-_]?account[^/]*\.json$/.test(base)) return true;
  if (/^tokens?\.json$/.test(base)) return true;
  return /(?:^|\/)\.docker\/config\.json$/i.test(norm);
}
