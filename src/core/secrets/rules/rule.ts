/**
 * Contract: the shape of a provider rule (gitleaks style): a kind, a regex whose match (or one capture group) is
 * the secret, an optional check on the match, the literal keywords one of which every match holds (the scan's
 * prefilter), sample secrets the rule must catch and near-misses it must pass (built from parts, so no whole
 * secret sits in the source). test/secrets-rules.test.ts runs every sample and near-miss through the scanner.
 */
import { hasDigit, hasLetter } from '../values.js';

export interface TokenRule {
  /** The human name findings and `[REDACTED:<slug>]` markers show. */
  kind: string;
  /** Global regex; every quantifier bounded, anchored on a literal or a boundary. */
  re: RegExp;
  /**
   * Lower-case literals, one of which every match holds (case-insensitively): the rule's regex runs only on a
   * text holding one. Omitted only where no literal exists (the rule then runs on every text).
   */
  keywords?: string[];
  check?: (s: string) => boolean;
  /** The capture group that is the secret (the regex then has the `d` flag); else the whole match. */
  value?: number;
  /**
   * The literal start of the token (a regex source). Set where a token may reach the page split in two, by one
   * space or a line break (a wrapped terminal, a pasted e-mail): the scanner then joins the two parts and tries
   * the rule on the whole.
   */
  prefix?: string;
  /** Secrets this rule must find (the value, when `value` is set), each inside the text `context` makes of it. */
  samples: string[];
  context?: (sample: string) => string;
  /** Texts close to the shape that the scanner must pass (no finding at all): the wrong length, alphabet or key. */
  nearMisses?: string[];
}

/** Mixed letters and digits: a random token rather than a word. */
export const randomish = (s: string): boolean => hasDigit(s) && hasLetter(s);

/** `check` on what follows a prefix holding digits (`r8_`, `fo1_`, `sq0atp-`): up to the first `_`, `-` or `.`, or `n` characters. */
export const afterPrefix = (check: (s: string) => boolean, n?: number) => (s: string): boolean =>
  check(n !== undefined ? s.slice(n) : s.slice(s.search(/[_.-]/) + 1));

/** At least two of lower case, upper case and digits: a random token (`glpat-` tails may lack a digit). */
export const mixed = (s: string): boolean => [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(s)).length >= 2;

export const HEX = '0a1b2c3d4e5f6789';
export const ALNUM = 'A1b2C3d4E5f6G7h8J9k0';
export const UPPER_DIGITS = 'Q3EGRBXJ7ZLMNP4K';
export const LOWER_DIGITS = 'q3egrbxj7zlmnp4k';

/** A deterministic random-looking string of `n` characters from `alphabet` (for samples). */
export function fill(n: number, alphabet = ALNUM): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[(i * 7 + 3) % alphabet.length];
  return out;
}

/**
 * A secret named by its key (gitleaks' keyed rules): a key holding one of `keys` (a regex source of words, each
 * starting a word or after `_`), then `=`, `:`, `:=` or `=>` (quotes and spaces around), then a value matching
 * `value` (a regex source), which is the secret. Case-insensitive; bounded: the key's tail is at most 40 characters.
 */
export function keyedRe(keys: string, value: string): RegExp {
  return new RegExp(
    `(?<![A-Za-z0-9])(?:${keys})[A-Za-z0-9_.-]{0,40}(?:\\\\?["'])?[ \\t]{0,8}(?::=|=>|=|:)[ \\t]{0,8}(?:\\\\?["'])?(${value})(?![A-Za-z0-9_+\\/=-])`,
    'dgi',
  );
}
