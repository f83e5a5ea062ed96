/**
 * Doppler tokens: `dp.` then the kind (`st` service, `pt` personal, `ct` CLI, `sa` service account, `scim`,
 * `audit`), a config name for service tokens, and 40 to 44 characters.
 */
import { fill, randomish, type TokenRule } from './rule.js';

export const dopplerRules: TokenRule[] = [
  {
    kind: 'Doppler token',
    re: /(?<![A-Za-z0-9_.-])dp\.(?:st|pt|ct|sa|scim|audit)\.(?:[A-Za-z0-9_-]{1,64}\.)?[A-Za-z0-9]{40,44}(?![A-Za-z0-9_])/g,
    keywords: ['dp.'],
    check: randomish,
    samples: [`dp.st.${fill(43)}`, `dp.st.dev.${fill(40)}`, `dp.pt.${fill(43)}`, `dp.sa.${fill(43)}`],
    nearMisses: ['dp.st.example', `dp.xx.${fill(43)}`],
  },
];
