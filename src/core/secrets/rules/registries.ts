/**
 * Package registry tokens: npm (`npm_` + 36), PyPI (`pypi-AgE...`), Docker Hub personal and organization access
 * tokens (`dckr_pat_`, `dckr_oat_`), RubyGems (`rubygems_` + 48 hex), NuGet (`oy2` + 43), Clojars
 * (`CLOJARS_` + 60) and JFrog Artifactory API keys (`AKCp` + 69).
 */
import { afterPrefix, fill, HEX, LOWER_DIGITS, randomish, type TokenRule } from './rule.js';

export const registryRules: TokenRule[] = [
  { kind: 'npm token',
    prefix: 'npm_', re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, keywords: ['npm_'], check: randomish, samples: [`npm_${fill(36)}`], nearMisses: [`npm_${fill(20)}`, 'npm_config_registry'] },
  { kind: 'PyPI token', re: /(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{40,1000}/g, keywords: ['pypi-age'], samples: [`pypi-AgEIcHlwaS5vcmc${fill(60)}`] },
  {
    kind: 'Docker Hub token',
    prefix: 'dckr_(?:pat|oat)_',
    re: /(?<![A-Za-z0-9_-])dckr_(?:pat|oat)_[A-Za-z0-9_-]{24,64}(?![A-Za-z0-9_-])/g,
    keywords: ['dckr_'],
    check: randomish,
    samples: [`dckr_pat_${fill(27)}`, `dckr_oat_${fill(32)}`],
    nearMisses: ['dckr_pat_', `dckr_pat_${fill(10)}`],
  },
  { kind: 'RubyGems API key', re: /(?<![A-Za-z0-9_])rubygems_[0-9a-f]{48}(?![A-Za-z0-9_])/g, keywords: ['rubygems_'], check: randomish, samples: [`rubygems_${fill(48, HEX)}`] },
  { kind: 'NuGet API key', re: /(?<![A-Za-z0-9_])oy2[a-z0-9]{43}(?![A-Za-z0-9_])/g, keywords: ['oy2'], check: afterPrefix(randomish, 3), samples: [`oy2${fill(43, LOWER_DIGITS)}`], nearMisses: [`oy2${'a'.repeat(43)}`] },
  { kind: 'Clojars token', re: /(?<![A-Za-z0-9_])CLOJARS_[a-z0-9]{60}(?![A-Za-z0-9_])/gi, keywords: ['clojars_'], check: randomish, samples: [`CLOJARS_${fill(60, LOWER_DIGITS)}`] },
  { kind: 'JFrog Artifactory API key', re: /(?<![A-Za-z0-9_])AKCp[A-Za-z0-9]{69}(?![A-Za-z0-9_])/g, keywords: ['akcp'], check: randomish, samples: [`AKCp${fill(69)}`] },
];
