/** Facebook (Meta) access tokens: `EAA`, a type letter, and 100 or more characters. */
import { fill, randomish, type TokenRule } from './rule.js';

export const facebookRules: TokenRule[] = [
  { kind: 'Facebook access token', re: /(?<![A-Za-z0-9_+-])EAA[A-Za-z0-9]{100,1024}(?![A-Za-z0-9_-])/g, keywords: ['eaa'], check: randomish, samples: [`EAAG${fill(150)}`], nearMisses: [`EAAG${fill(40)}`] },
];
