/** Braintree access tokens: `access_token$production$` (or `$sandbox$`), 16, `$`, 32 hex. */
import { fill, HEX, LOWER_DIGITS, type TokenRule } from './rule.js';

export const braintreeRules: TokenRule[] = [
  {
    kind: 'Braintree access token',
    re: /(?<![A-Za-z0-9_])access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}(?![A-Za-z0-9_])/g,
    keywords: ['access_token$'],
    samples: [`access_token$production$${fill(16, LOWER_DIGITS)}$${fill(32, HEX)}`],
    nearMisses: ['access_token$production$<merchant>$<token>'],
  },
];
