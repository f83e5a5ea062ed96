/** Airtable personal access tokens: `pat` + 14, `.`, 64 hex. */
import { fill, HEX, randomish, type TokenRule } from './rule.js';

export const airtableRules: TokenRule[] = [
  {
    kind: 'Airtable token',
    re: /(?<![A-Za-z0-9_-])pat[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![A-Za-z0-9_])/g,
    keywords: ['pat'],
    check: randomish,
    samples: [`pat${fill(14)}.${fill(64, HEX)}`],
    nearMisses: [`path${fill(13)}.${fill(30, HEX)}`],
  },
];
