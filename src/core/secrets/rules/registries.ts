/** Package registry tokens: npm (`npm_` + 36) and PyPI (`pypi-AgE...`). */
import { K } from '../kinds.js';
import { fill, randomish, type TokenRule } from './rule.js';

export const registryRules: TokenRule[] = [
  { kind: K.npm,
    prefix: 'npm_', re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, check: randomish, samples: [`npm_${fill(36)}`] },
  { kind: K.pypi, re: /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{40,1000}/g, samples: [`pypi-AgEIcHlwaS5vcmc${fill(60)}`] },
];
