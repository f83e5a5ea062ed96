/** Slack tokens (`xoxb-`, `xoxp-`, ...) and incoming-webhook URLs. */
import { K } from '../kinds.js';
import { fill, randomish, type TokenRule } from './rule.js';

export const slackRules: TokenRule[] = [
  { kind: K.slack,
    prefix: 'xox[baprse]-', re: /(?<![A-Za-z0-9_-])xox[baprse]-[A-Za-z0-9-]{10,250}/g, check: randomish, samples: [`xoxb-${fill(12, '0123456789')}-${fill(24)}`] },
  {
    kind: K.slackHook,
    re: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_\/+-]{8,300}/g,
    samples: [`https://hooks.slack.com/services/T${fill(8)}/B${fill(8)}/${fill(24)}`],
  },
];
