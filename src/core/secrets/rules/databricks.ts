/** Databricks personal access tokens: `dapi` and 32 hex (a `-2` style suffix on some). */
import { fill, HEX, randomish, type TokenRule } from './rule.js';

export const databricksRules: TokenRule[] = [
  {
    kind: 'Databricks token',
    re: /(?<![A-Za-z0-9_-])dapi[a-f0-9]{32}(?:-[0-9]{1,2})?(?![A-Za-z0-9_])/g,
    keywords: ['dapi'],
    check: randomish,
    samples: [`dapi${fill(32, HEX)}`, `dapi${fill(32, HEX)}-2`],
    nearMisses: [`dapi${fill(20, HEX)}`, 'dapiclient'],
  },
];
