/** Messaging providers: Twilio API keys (`SK` + 32 hex) and SendGrid keys (`SG.x.y`). */
import { K } from '../kinds.js';
import { fill, randomish, type TokenRule } from './rule.js';

export const messagingRules: TokenRule[] = [
  { kind: K.twilio, re: /(?<![A-Za-z0-9_])SK[0-9a-f]{32}(?![A-Za-z0-9_])/g, check: randomish, samples: [`SK${fill(32, '0a1b2c3d4e5f6789')}`] },
  { kind: K.sendgrid, re: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9_-]{16,128}/g, samples: [`SG.${fill(22)}.${fill(43)}`] },
];
