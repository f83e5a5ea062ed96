/** Linear API keys (`lin_api_` + 40) and OAuth tokens (`lin_oauth_` + 64 hex). */
import { fill, HEX, randomish, type TokenRule } from './rule.js';

export const linearRules: TokenRule[] = [
  {
    kind: 'Linear API key',
    prefix: 'lin_(?:api|oauth)_',
    re: /(?<![A-Za-z0-9_])lin_(?:api_[A-Za-z0-9]{40}|oauth_[a-f0-9]{64})(?![A-Za-z0-9_])/g,
    keywords: ['lin_'],
    check: randomish,
    samples: [`lin_api_${fill(40)}`, `lin_oauth_${fill(64, HEX)}`],
    nearMisses: [`lin_api_${fill(30)}`],
  },
];
