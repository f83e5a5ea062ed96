/**
 * Discord bot tokens (the bot's id in base64, `.`, a 6-character timestamp, `.`, 27 or more) and webhook URLs
 * (`discord.com/api/webhooks/<id>/<token>`).
 */
import { fill, type TokenRule } from './rule.js';

export const discordRules: TokenRule[] = [
  {
    kind: 'Discord bot token',
    re: /(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-]|\.[A-Za-z0-9_-]{10})/g,
    check: (s) => /[0-9]/.test(s) && /[a-z]/.test(s) && /[A-Z].*[A-Z]/.test(s),
    samples: [`MTE${fill(23)}.Gh${fill(4)}.${fill(38)}`, `N${fill(25)}.${fill(6)}.${fill(27)}`],
    nearMisses: ['Map.prototype.hasOwnProperty.call.something', `Maintenance${'a'.repeat(13)}.abcdef.${'b'.repeat(27)}`],
  },
  {
    kind: 'Discord webhook URL',
    re: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/([A-Za-z0-9_-]{60,68})/dg,
    value: 1,
    keywords: ['discord'],
    samples: [fill(68)],
    context: (s) => `curl -X POST https://discord.com/api/webhooks/112233445566778899/${s} -d '{"content":"hi"}'`,
  },
];
