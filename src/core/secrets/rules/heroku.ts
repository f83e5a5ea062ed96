/** Heroku API keys: the `HRKU-` tokens, and the older UUID keys named by a key holding `heroku`. */
import { fill, HEX, keyedRe, type TokenRule } from './rule.js';

const uuid = (h: string): string => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;

export const herokuRules: TokenRule[] = [
  {
    kind: 'Heroku API key',
    prefix: 'HRKU-',
    re: /(?<![A-Za-z0-9_-])HRKU-[A-Za-z0-9_-]{40,100}(?![A-Za-z0-9_-])/g,
    keywords: ['hrku-'],
    samples: [`HRKU-AA${fill(58)}`, `HRKU-${fill(60)}`],
    nearMisses: ['HRKU-', `HRKU-${fill(20)}`],
  },
  {
    kind: 'Heroku API key',
    re: keyedRe('heroku', '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'),
    value: 1,
    keywords: ['heroku'],
    samples: [uuid(fill(32, HEX))],
    context: (s) => `heroku:\n  api_key: x\n  heroku_token: ${s}`,
    nearMisses: [`request ${uuid(fill(32, HEX))} to heroku failed`],
  },
];
