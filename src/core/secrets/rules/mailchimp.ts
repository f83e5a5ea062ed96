/** Mailchimp API keys: 32 hex, `-us`, the data center number. */
import { fill, HEX, randomish, type TokenRule } from './rule.js';

export const mailchimpRules: TokenRule[] = [
  {
    kind: 'Mailchimp API key',
    re: /(?<![A-Za-z0-9_-])[a-f0-9]{32}-us[0-9]{1,2}(?![A-Za-z0-9_])/g,
    keywords: ['-us'],
    check: (s) => randomish(s.slice(0, 32)),
    samples: [`${fill(32, HEX)}-us21`],
    nearMisses: [`${fill(32, HEX)}-usa`, `${fill(20, HEX)}-us1`],
  },
];
