/** GitHub tokens: classic `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_` and fine-grained `github_pat_`. */
import { fill, randomish, type TokenRule } from './rule.js';

export const githubRules: TokenRule[] = [
  {
    kind: 'GitHub token',
    prefix: '(?:gh[pousr]_|github_pat_)',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{30,251}|github_pat_[A-Za-z0-9_]{30,251})/g,
    check: randomish,
    samples: [`ghp_${fill(36)}`, `github_pat_${fill(22)}_${fill(59)}`],
  },
];
