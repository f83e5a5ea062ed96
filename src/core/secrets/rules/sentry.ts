/**
 * Sentry: the key of a DSN (`https://<32 hex>@o<org>.ingest.sentry.io/<project>`, also self-hosted hosts named
 * sentry), organization auth tokens (`sntrys_`) and user auth tokens (`sntryu_` + 64 hex).
 */
import { fill, HEX, type TokenRule } from './rule.js';

export const sentryRules: TokenRule[] = [
  {
    kind: 'Sentry DSN key',
    re: /https?:\/\/([a-f0-9]{32})(?::[a-f0-9]{32})?@[A-Za-z0-9.-]{0,100}sentry[A-Za-z0-9.-]{0,100}/dg,
    value: 1,
    keywords: ['sentry'],
    samples: [fill(32, HEX)],
    context: (s) => `SENTRY_DSN=https://${s}@o4505.ingest.us.sentry.io/4506`,
    nearMisses: ['dsn: https://examplePublicKey@o0.ingest.sentry.io/0'],
  },
  {
    kind: 'Sentry token',
    prefix: 'sntry[su]_',
    re: /(?<![A-Za-z0-9_])(?:sntrys_eyJ[A-Za-z0-9+\/=_-]{60,400}|sntryu_[a-f0-9]{64})(?![A-Za-z0-9+\/=_-])/g,
    keywords: ['sntry'],
    samples: [`sntrys_eyJpYXQiOjE3MDAwMDAwMDAuMCwidXJsIjoiaHR0cHM6Ly9zZW50cnkuaW8i${fill(30)}_${fill(43)}`, `sntryu_${fill(64, HEX)}`],
    nearMisses: ['sntryu_', `sntryu_${fill(40, HEX)}`],
  },
];
