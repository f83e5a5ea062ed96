/** DigitalOcean personal access (`dop_v1_`), OAuth (`doo_v1_`) and refresh (`dor_v1_`) tokens: 64 hex. */
import { fill, HEX, type TokenRule } from './rule.js';

export const digitaloceanRules: TokenRule[] = [
  {
    kind: 'DigitalOcean token',
    prefix: 'do[por]_v1_',
    re: /(?<![A-Za-z0-9_])do[por]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])/g,
    keywords: ['_v1_'],
    samples: [`dop_v1_${fill(64, HEX)}`, `doo_v1_${fill(64, HEX)}`, `dor_v1_${fill(64, HEX)}`],
    nearMisses: [`dop_v1_${fill(40, HEX)}`, `dop_v2_${fill(64, HEX)}`],
  },
];
