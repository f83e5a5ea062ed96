/** Telegram bot tokens: the bot's numeric id, a colon, and a 35-character secret that starts with `AA`. */
import { fill, type TokenRule } from './rule.js';

export const telegramRules: TokenRule[] = [
  { kind: 'Telegram bot token', keywords: [':aa'], re: /(?<![A-Za-z0-9_:])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g, samples: [`110201543:AA${fill(33)}`] },
];
