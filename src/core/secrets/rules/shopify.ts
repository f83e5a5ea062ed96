/** Shopify access tokens: admin (`shpat_`), custom app (`shpca_`), private app (`shppa_`) and shared secrets (`shpss_`): 32 hex. */
import { fill, HEX, type TokenRule } from './rule.js';

export const shopifyRules: TokenRule[] = [
  {
    kind: 'Shopify token',
    prefix: 'shp(?:at|ca|pa|ss)_',
    re: /(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}(?![A-Za-z0-9_])/g,
    keywords: ['shp'],
    samples: [`shpat_${fill(32, HEX)}`, `shpss_${fill(32, HEX)}`, `shpca_${fill(32, HEX)}`, `shppa_${fill(32, HEX)}`],
    nearMisses: [`shpat_${fill(31, HEX)}`, `shpxx_${fill(32, HEX)}`],
  },
];
