/** Mailgun API keys: `key-` and 32 hexadecimal characters. */
import { fill, randomish, type TokenRule } from './rule.js';

export const mailgunRules: TokenRule[] = [
  { kind: 'Mailgun API key', keywords: ['key-'], re: /(?<![A-Za-z0-9_-])key-[0-9a-f]{32}(?![A-Za-z0-9_])/g, check: randomish, samples: [`key-${fill(32, '0a1b2c3d4e5f6789')}`] },
];
