/**
 * Contract: the shape of a provider rule (gitleaks style): a kind, a regex whose whole match is the secret, an
 * optional check on the match, and sample secrets the rule must catch (built from parts, so no whole secret sits
 * in the source). test/secrets-rules.test.ts runs every sample through the scanner.
 */
import { hasDigit, hasLetter } from '../values.js';

export interface TokenRule {
  kind: string;
  /** Global regex; every quantifier bounded, anchored on a literal or a boundary. */
  re: RegExp;
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
}

/** Mixed letters and digits: a random token rather than a word. */
export const randomish = (s: string): boolean => hasDigit(s) && hasLetter(s);

/** A deterministic random-looking string of `n` characters from `alphabet` (for samples). */
export function fill(n: number, alphabet = 'A1b2C3d4E5f6G7h8J9k0'): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[(i * 7 + 3) % alphabet.length];
  return out;
}
