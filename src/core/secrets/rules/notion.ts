/** Notion integration tokens: `ntn_` (since 2024) and the older `secret_` + 43. */
import { fill, type TokenRule } from './rule.js';
import { hasDigit } from '../values.js';

export const notionRules: TokenRule[] = [
  {
    kind: 'Notion token',
    prefix: '(?:ntn|secret)_',
    re: /(?<![A-Za-z0-9_])(?:ntn_[A-Za-z0-9]{40,50}|secret_[A-Za-z0-9]{43})(?![A-Za-z0-9_])/g,
    keywords: ['ntn_', 'secret_'],
    check: (s) => hasDigit(s) && /[A-Z]/.test(s) && /[a-z]/.test(s.slice(4)),
    samples: [`ntn_${fill(11, '0123456789')}${fill(35)}`, `secret_${fill(43)}`],
    nearMisses: ['secret_key_base_for_the_development_environment_only', `secret_${fill(30)}`, 'secret_access_key_id_rotation_schedule_2024'],
  },
];
