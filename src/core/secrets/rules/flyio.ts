/** Fly.io access tokens: `fo1_` + 43, and macaroon tokens (`fm1a_`, `fm1r_`, `fm2_` and base64). */
import { afterPrefix, fill, randomish, type TokenRule } from './rule.js';

export const flyioRules: TokenRule[] = [
  {
    kind: 'Fly.io token',
    prefix: '(?:fo1|fm1[ar]|fm2)_',
    re: /(?<![A-Za-z0-9_])(?:fo1_[A-Za-z0-9_-]{43}|(?:fm1[ar]|fm2)_[A-Za-z0-9+\/]{100,8192}={0,3})(?![A-Za-z0-9_+\/=-])/g,
    keywords: ['fo1_', 'fm1', 'fm2_'],
    check: afterPrefix(randomish),
    samples: [`fo1_${fill(43)}`, `fm2_lJPE${fill(120)}==`],
    nearMisses: [`fo1_${fill(20)}`],
  },
];
