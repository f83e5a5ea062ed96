/** Slack tokens (`xoxb-`, `xoxp-`, ..., app-level `xapp-`, configuration `xoxe-`) and incoming-webhook URLs. */
import { fill, randomish, type TokenRule } from './rule.js';

export const slackRules: TokenRule[] = [
  {
    kind: 'Slack token',
    prefix: '(?:xox[baprse]|xapp)-',
    re: /(?<![A-Za-z0-9_-])(?:xox[baprse]|xapp)-[A-Za-z0-9-]{10,250}/g,
    keywords: ['xox', 'xapp-'],
    check: randomish,
    samples: [`xoxb-${fill(12, '0123456789')}-${fill(24)}`, `xapp-1-A${fill(10, 'Q3EGRBXJ7Z')}-${fill(13, '0123456789')}-${fill(64, '0a1b2c3d4e5f6789')}`],
    nearMisses: ['xapp-framework', 'xoxb-token-goes-here'],
  },
  {
    kind: 'Slack webhook URL',
    re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_\/+-]{8,300}/g,
    keywords: ['hooks.slack.com'],
    samples: [`https://hooks.slack.com/services/T${fill(8)}/B${fill(8)}/${fill(24)}`],
  },
];
