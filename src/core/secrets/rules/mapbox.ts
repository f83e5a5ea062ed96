/** Mapbox secret tokens: `sk.` and a base64url JSON part (`eyJ`), `.`, and a secret part. Public `pk.` tokens are not secret. */
import { fill, type TokenRule } from './rule.js';

export const mapboxRules: TokenRule[] = [
  {
    kind: 'Mapbox secret token',
    prefix: 'sk\\.eyJ',
    re: /(?<![A-Za-z0-9_.-])sk\.eyJ[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{20,100}(?![A-Za-z0-9_-])/g,
    keywords: ['sk.eyj'],
    samples: [`sk.eyJ1IjoiYWRh${fill(40)}.${fill(22)}`],
    nearMisses: [`pk.eyJ1IjoiYWRh${fill(40)}.${fill(22)}`],
  },
];
