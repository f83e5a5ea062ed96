/** 1Password service account tokens (`ops_eyJ...`) and account secret keys (`A3-XXXXXX-...`). */
import { fill, UPPER_DIGITS, type TokenRule } from './rule.js';

export const onepasswordRules: TokenRule[] = [
  {
    kind: '1Password token',
    prefix: 'ops_eyJ',
    re: /(?<![A-Za-z0-9_])ops_eyJ[A-Za-z0-9+\/=_-]{250,2000}(?![A-Za-z0-9+\/=_-])/g,
    keywords: ['ops_eyj'],
    samples: [`ops_eyJzaWduSW5BZGRyZXNzIjoi${fill(300)}`],
  },
  {
    kind: '1Password secret key',
    re: /(?<![A-Za-z0-9_-])A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}(?![A-Za-z0-9_-])/g,
    keywords: ['a3-'],
    samples: [`A3-${fill(6, UPPER_DIGITS)}-${fill(6, UPPER_DIGITS)}-${fill(5, UPPER_DIGITS)}-${fill(5, UPPER_DIGITS)}-${fill(5, UPPER_DIGITS)}-${fill(5, UPPER_DIGITS)}`],
  },
];
