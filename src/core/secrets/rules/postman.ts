/** Postman API keys: `PMAK-`, 24 hex, `-`, 34 hex. */
import { fill, HEX, type TokenRule } from './rule.js';

export const postmanRules: TokenRule[] = [
  {
    kind: 'Postman API key',
    prefix: 'PMAK-',
    re: /(?<![A-Za-z0-9_-])PMAK-[A-Za-z0-9]{24}-[A-Za-z0-9]{34}(?![A-Za-z0-9_])/g,
    keywords: ['pmak-'],
    samples: [`PMAK-${fill(24, HEX)}-${fill(34, HEX)}`],
    nearMisses: [`PMAK-${fill(24, HEX)}`],
  },
];
