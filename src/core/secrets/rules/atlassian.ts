/** Atlassian API tokens (`ATATT3` and about 186 characters; Jira, Confluence, Bitbucket Cloud). */
import { fill, mixed, type TokenRule } from './rule.js';

export const atlassianRules: TokenRule[] = [
  {
    kind: 'Atlassian API token',
    prefix: 'ATATT3',
    re: /(?<![A-Za-z0-9_-])ATATT3[A-Za-z0-9_=-]{150,250}(?![A-Za-z0-9_=-])/g,
    keywords: ['atatt3'],
    check: mixed,
    samples: [`ATATT3xFfGF0${fill(180)}`],
    nearMisses: [`ATATT3${fill(40)}`],
  },
];
