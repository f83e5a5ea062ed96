/** Terraform Cloud / HCP Terraform API tokens: 14 characters, `.atlasv1.`, 60 or more. */
import { fill, type TokenRule } from './rule.js';

export const terraformRules: TokenRule[] = [
  {
    kind: 'Terraform Cloud token',
    re: /(?<![A-Za-z0-9_-])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,200}(?![A-Za-z0-9_=-])/g,
    keywords: ['.atlasv1.'],
    samples: [`${fill(14)}.atlasv1.${fill(67)}`],
    nearMisses: [`${fill(14)}.atlasv1.short`],
  },
];
