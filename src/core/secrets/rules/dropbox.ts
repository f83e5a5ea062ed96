/** Dropbox short-lived access tokens: `sl.` and 130 or more characters. */
import { fill, randomish, type TokenRule } from './rule.js';

export const dropboxRules: TokenRule[] = [
  { kind: 'Dropbox token', re: /(?<![A-Za-z0-9_.-])sl\.[A-Za-z0-9_-]{130,1400}(?![A-Za-z0-9_-])/g, keywords: ['sl.'], check: randomish, samples: [`sl.B${fill(140)}`], nearMisses: [`sl.${fill(40)}`] },
];
