/**
 * Google: API keys (`AIza` + 35), OAuth client secrets (`GOCSPX-`), OAuth access tokens (`ya29.`) and refresh
 * tokens (`1//` and a long tail).
 */
import { fill, mixed, type TokenRule } from './rule.js';

export const googleRules: TokenRule[] = [
  { kind: 'Google API key',
    prefix: 'AIza', re: /(?<![A-Za-z0-9_+-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g, keywords: ['aiza'], samples: [`AIza${fill(35)}`] },
  { kind: 'Google OAuth client secret', re: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{20,100}/g, keywords: ['gocspx-'], samples: [`GOCSPX-${fill(28)}`] },
  {
    kind: 'Google OAuth token',
    prefix: '(?:ya29\\.|1\\/\\/)',
    re: /(?:(?<![A-Za-z0-9_.-])ya29\.[A-Za-z0-9_-]{30,2048}|(?<![A-Za-z0-9_\/:.-])1\/\/[A-Za-z0-9_-]{40,512})(?![A-Za-z0-9_-])/g,
    keywords: ['ya29.', '1//'],
    check: mixed,
    samples: [`ya29.a0${fill(150)}`, `1//0g${fill(98)}`],
    nearMisses: ['ya29.', 'see http://1//example', `ya29.${fill(10)}`],
  },
];
