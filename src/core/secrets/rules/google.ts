/** Google API keys (`AIza` + 35) and OAuth client secrets (`GOCSPX-`). */
import { K } from '../kinds.js';
import { fill, type TokenRule } from './rule.js';

export const googleRules: TokenRule[] = [
  { kind: K.googleKey,
    prefix: 'AIza', re: /(?<![A-Za-z0-9_+-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g, samples: [`AIza${fill(35)}`] },
  { kind: K.googleOauth, re: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{20,100}/g, samples: [`GOCSPX-${fill(28)}`] },
];
