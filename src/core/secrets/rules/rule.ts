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
  /** Secrets this rule must find, whole. */
  samples: string[];
}

/** Mixed letters and digits: a random token rather than a word. */
export const randomish = (s: string): boolean => hasDigit(s) && hasLetter(s);

/** A deterministic random-looking string of `n` characters from `alphabet` (for samples). */
export function fill(n: number, alphabet = 'A1b2C3d4E5f6G7h8J9k0'): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[(i * 7 + 3) % alphabet.length];
  return out;
}
