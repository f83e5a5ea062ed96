/** JSON Web Tokens: three base64url parts, the first an encoded `{"`. */
import { fill, type TokenRule } from './rule.js';

export const jwtRules: TokenRule[] = [
  {
    kind: 'JWT',
    keywords: ['eyj'],
    re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{7,16384}\.[A-Za-z0-9_-]{8,16384}\.[A-Za-z0-9_-]{0,16384}/g,
    samples: [`eyJhbGciOiJIUzI1NiJ9.${fill(40)}.${fill(43)}`],
  },
];
