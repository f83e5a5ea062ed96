/** Square access tokens (`EAAA` + 60, the older `sq0atp-`) and application secrets (`sq0csp-`). */
import { fill, randomish, type TokenRule } from './rule.js';

export const squareRules: TokenRule[] = [
  {
    kind: 'Square token',
    prefix: '(?:EAAA|sq0atp-|sq0csp-)',
    re: /(?<![A-Za-z0-9_+-])(?:EAAA[A-Za-z0-9_-]{56,80}|sq0atp-[A-Za-z0-9_-]{22,60}|sq0csp-[A-Za-z0-9_-]{40,60})(?![A-Za-z0-9_-])/g,
    keywords: ['eaaa', 'sq0atp-', 'sq0csp-'],
    check: (s) => randomish(s.slice(s.startsWith('EAAA') ? 4 : 7)),
    samples: [`EAAA${fill(60)}`, `sq0atp-${fill(22)}`, `sq0csp-${fill(43)}`],
    nearMisses: [`EAAA${fill(20)}`],
  },
];
