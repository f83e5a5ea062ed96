/** Vercel tokens: personal (`vcp_`), integration (`vci_`), app access and refresh (`vca_`, `vcr_`), AI gateway (`vck_`). */
import { fill, randomish, type TokenRule } from './rule.js';

export const vercelRules: TokenRule[] = [
  {
    kind: 'Vercel token',
    prefix: 'vc[piark]_',
    re: /(?<![A-Za-z0-9_])vc[piark]_[A-Za-z0-9]{24,80}(?![A-Za-z0-9_])/g,
    keywords: ['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_'],
    check: randomish,
    samples: [`vcp_${fill(56)}`, `vck_${fill(56)}`],
    nearMisses: ['vcp_settings_panel_visible_by_default', `vcp_${fill(12)}`],
  },
];
