/** Netlify personal access (`nfp_`), OAuth (`nfo_`) and build (`nfc_`) tokens: 36 or more. */
import { fill, randomish, type TokenRule } from './rule.js';

export const netlifyRules: TokenRule[] = [
  {
    kind: 'Netlify token',
    prefix: 'nf[poc]_',
    re: /(?<![A-Za-z0-9_])nf[poc]_[A-Za-z0-9]{36,64}(?![A-Za-z0-9_])/g,
    keywords: ['nfp_', 'nfo_', 'nfc_'],
    check: randomish,
    samples: [`nfp_${fill(40)}`],
    nearMisses: [`nfp_${fill(20)}`],
  },
];
