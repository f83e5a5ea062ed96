/** Pulumi access tokens: `pul-` + 40 hex. */
import { fill, HEX, randomish, type TokenRule } from './rule.js';

export const pulumiRules: TokenRule[] = [
  { kind: 'Pulumi token', prefix: 'pul-', re: /(?<![A-Za-z0-9_-])pul-[a-f0-9]{40}(?![A-Za-z0-9_-])/g, keywords: ['pul-'], check: randomish, samples: [`pul-${fill(40, HEX)}`], nearMisses: ['pul-request', `pul-${fill(30, HEX)}`] },
];
