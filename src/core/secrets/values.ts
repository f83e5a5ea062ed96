/**
 * Contract: the value heuristics of the scanner: what is a placeholder rather than a secret, what looks like a
 * credential or a password, what is code rather than a literal, and how a secret is masked for display. Pure.
 */
import { isPublishedExample } from './published.js';

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

/** True when a value is a stand-in for a secret rather than a secret (a published documentation example too). */
export function isPlaceholder(raw: string): boolean {
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
  if (isPublishedExample(s)) return true;
  if (/^[A-Z][A-Z0-9]{0,100}(?:_[A-Z0-9]{1,100}){1,20}$/.test(s)) return true; // ENV_VAR_NAME
  if (/^(?:your|my)[-_ ]?[A-Za-z_ -]{0,100}$/i.test(s)) return true;
  if (/[-_ ]here$/i.test(s)) return true;
  return STOP_WORDS.has(s.toLowerCase());
}

export const hasDigit = (s: string): boolean => /[0-9]/.test(s);
export const hasLetter = (s: string): boolean => /[A-Za-z]/.test(s);

/** True for a token-like value: long enough and random-looking (not a word, not a number). */
export function credentialLike(s: string): boolean {
  if (s.length < 8 || isPlaceholder(s)) return false;
  if (/^[0-9]+$/.test(s)) return false;
  if (hasDigit(s) && hasLetter(s)) return true;
  return s.length >= 16 && /[A-Z]/.test(s) && /[a-z]/.test(s) && !/^[A-Z]?[a-z]+(?:[A-Z][a-z]+)*$/.test(s);
}

/** True for a password-like value; `strict` asks for some complexity (used where prose is likely). */
export function passwordLike(s: string, strict: boolean): boolean {
  if (s.length < 4 || isPlaceholder(s)) return false;
  if (strict && !/[0-9]|[^A-Za-z0-9\s_-]|.[A-Z]/.test(s)) return false;
  return true;
}

/** True when an unquoted value is code (a call, an index, a member, a keyword) rather than a literal. */
export function isCode(s: string, spaced: boolean): boolean {
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

/** How many times `ch` occurs in `s`. */
export function count(s: string, ch: string): number {
  let n = 0;
  for (let i = s.indexOf(ch); i !== -1; i = s.indexOf(ch, i + 1)) n++;
  return n;
}

/** A masked form of a secret, safe to print: at most its first 4 characters (a quarter of it) and `…`. */
export function mask(secret: string): string {
  return secret.slice(0, Math.min(4, Math.floor(secret.length / 4))) + '…';
}

