/** New Relic keys: user API keys (`NRAK-`), admin (`NRAA-`), insert (`NRII-`), insights query (`NRIQ-`), browser (`NRJS-`). */
import { fill, mixed, UPPER_DIGITS, HEX, type TokenRule } from './rule.js';

export const newrelicRules: TokenRule[] = [
  {
    kind: 'New Relic key',
    prefix: 'NR(?:AK|AA|II|IQ|JS)-',
    re: /(?<![A-Za-z0-9_-])NR(?:AK|AA|II|IQ|JS)-[A-Za-z0-9_-]{19,40}(?![A-Za-z0-9_-])/g,
    keywords: ['nrak-', 'nraa-', 'nrii-', 'nriq-', 'nrjs-'],
    check: mixed,
    samples: [`NRAK-${fill(27, UPPER_DIGITS)}`, `NRJS-${fill(19, HEX)}`, `NRII-${fill(32)}`],
    nearMisses: ['NRAK-EXAMPLE', `NRAK-${fill(10, UPPER_DIGITS)}`],
  },
];
