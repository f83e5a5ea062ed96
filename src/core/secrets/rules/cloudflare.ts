/**
 * Cloudflare: origin CA keys (`v1.0-` + 24 hex + `-` + 146 hex), and API tokens and global API keys named by a
 * key holding `cloudflare` or `cf_api` (40 or 37 characters).
 */
import { fill, HEX, keyedRe, randomish, type TokenRule } from './rule.js';

export const cloudflareRules: TokenRule[] = [
  {
    kind: 'Cloudflare origin CA key',
    re: /(?<![A-Za-z0-9_.-])v1\.0-[a-f0-9]{24}-[a-f0-9]{146}(?![A-Za-z0-9_])/g,
    keywords: ['v1.0-'],
    samples: [`v1.0-${fill(24, HEX)}-${fill(146, HEX)}`],
  },
  {
    kind: 'Cloudflare API token',
    re: keyedRe('cloudflare|cf_api', '[A-Za-z0-9_-]{40}|[a-f0-9]{37}'),
    value: 1,
    keywords: ['cloudflare', 'cf_api'],
    check: randomish,
    samples: [fill(40), fill(37, HEX)],
    context: (s) => `CLOUDFLARE_API_TOKEN=${s}`,
  },
];
