/**
 * Grafana: service account tokens (`glsa_` + 32 + `_` + 8 hex), Grafana Cloud access policy tokens (`glc_` and
 * base64) and the older API keys (base64 of `{"k":"`).
 */
import { fill, HEX, type TokenRule } from './rule.js';

export const grafanaRules: TokenRule[] = [
  {
    kind: 'Grafana token',
    prefix: '(?:glsa|glc)_',
    re: /(?<![A-Za-z0-9_])(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+\/]{32,400}={0,2})(?![A-Za-z0-9_+\/=])/g,
    keywords: ['glsa_', 'glc_'],
    samples: [`glsa_${fill(32)}_${fill(8, HEX)}`, `glc_eyJvIjoiMTIzNCIsIm4iOiJ0b2tlbiIsImsiOiJ${fill(40)}==`],
    nearMisses: [`glsa_${fill(20)}`],
  },
  {
    kind: 'Grafana token',
    re: /(?<![A-Za-z0-9_+-])eyJrIjoi[A-Za-z0-9+\/]{70,400}={0,3}(?![A-Za-z0-9_+\/=])/g,
    keywords: ['eyjrijoi'],
    samples: [`eyJrIjoi${fill(72)}==`],
  },
];
