/** Contentful personal access tokens: `CFPAT-` + 43. */
import { fill, randomish, type TokenRule } from './rule.js';

export const contentfulRules: TokenRule[] = [
  { kind: 'Contentful token', prefix: 'CFPAT-', re: /(?<![A-Za-z0-9_-])CFPAT-[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, keywords: ['cfpat-'], check: randomish, samples: [`CFPAT-${fill(43)}`], nearMisses: [`CFPAT-${fill(20)}`] },
];
