/** PlanetScale service tokens (`pscale_tkn_`), passwords (`pscale_pw_`) and OAuth tokens (`pscale_oauth_`). */
import { fill, randomish, type TokenRule } from './rule.js';

export const planetscaleRules: TokenRule[] = [
  {
    kind: 'PlanetScale token',
    prefix: 'pscale_(?:tkn|pw|oauth)_',
    re: /pscale_(?:tkn|pw|oauth)_[A-Za-z0-9=_.-]{32,64}(?![A-Za-z0-9=_-])/g,
    keywords: ['pscale_'],
    check: randomish,
    samples: [`pscale_tkn_${fill(43)}`, `pscale_pw_${fill(43)}`],
    nearMisses: ['pscale_tkn_', `pscale_pw_${fill(12)}`],
  },
];
