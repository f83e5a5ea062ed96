/**
 * Messaging providers: Twilio API keys (`SK` + 32 hex), SendGrid keys (`SG.x.y`), Brevo (Sendinblue) API keys
 * (`xkeysib-` + 64 hex + `-` + 16) and Microsoft Teams incoming-webhook URLs.
 */
import { fill, HEX, randomish, type TokenRule } from './rule.js';

export const messagingRules: TokenRule[] = [
  { kind: 'Twilio API key', re: /(?<![A-Za-z0-9_])SK[0-9a-f]{32}(?![A-Za-z0-9_])/g, keywords: ['sk'], check: randomish, samples: [`SK${fill(32, HEX)}`] },
  { kind: 'SendGrid API key', re: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{16,64}\.[A-Za-z0-9_-]{16,128}/g, keywords: ['sg.'], samples: [`SG.${fill(22)}.${fill(43)}`] },
  { kind: 'Brevo API key', re: /(?<![A-Za-z0-9_-])xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}(?![A-Za-z0-9_])/g, keywords: ['xkeysib-'], samples: [`xkeysib-${fill(64, HEX)}-${fill(16)}`] },
  {
    kind: 'Microsoft Teams webhook URL',
    re: /https:\/\/[A-Za-z0-9-]{1,60}\.webhook\.office\.com\/webhookb2\/[A-Za-z0-9@-]{36,100}\/IncomingWebhook\/[A-Za-z0-9]{32}\/[A-Za-z0-9-]{36}(?:\/[A-Za-z0-9_-]{10,100})?/g,
    keywords: ['webhook.office.com'],
    samples: [`https://acme.webhook.office.com/webhookb2/${fill(8, HEX)}-1111-2222-3333-${fill(12, HEX)}@${fill(8, HEX)}-4444-5555-6666-${fill(12, HEX)}/IncomingWebhook/${fill(32)}/${fill(8, HEX)}-7777-8888-9999-${fill(12, HEX)}`],
  },
];
