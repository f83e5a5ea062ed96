/** Supabase: personal access tokens (`sbp_` + 40 hex) and secret API keys (`sb_secret_`). */
import { fill, HEX, randomish, type TokenRule } from './rule.js';

export const supabaseRules: TokenRule[] = [
  {
    kind: 'Supabase token',
    prefix: 'sb(?:p|_secret)_',
    re: /(?<![A-Za-z0-9_])(?:sbp_[a-f0-9]{40}|sb_secret_[A-Za-z0-9_-]{28,100})(?![A-Za-z0-9_-])/g,
    keywords: ['sbp_', 'sb_secret_'],
    check: randomish,
    samples: [`sbp_${fill(40, HEX)}`, `sb_secret_${fill(31)}`],
    nearMisses: [`sbp_${fill(20, HEX)}`],
  },
];
