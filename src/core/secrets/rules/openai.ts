/** OpenAI API keys: `sk-` (optionally `proj-`, `svcacct-`, `admin-`) and a mixed-case random tail. */
import { hasDigit } from '../values.js';
import { fill, type TokenRule } from './rule.js';

export const openaiRules: TokenRule[] = [
  {
    kind: 'OpenAI API key',
    prefix: 'sk-(?:proj-|svcacct-|admin-)?',
    keywords: ['sk-'],
    re: /(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,300}/g,
    check: (s) => hasDigit(s) && /[A-Z]/.test(s) && /[a-z]/.test(s),
    samples: [`sk-${fill(48)}`, `sk-proj-${fill(40)}`],
  },
];
