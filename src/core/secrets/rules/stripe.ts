/**
 * Stripe secret and restricted keys (`sk_live_`, `rk_live_`), their test-mode twins (`sk_test_`, `rk_test_`: still
 * a credential of the account's test mode, named apart so a refusal says so) and webhook signing secrets
 * (`whsec_`). The keys Stripe's documentation publishes pass (published.ts).
 */
import { fill, randomish, type TokenRule } from './rule.js';

export const stripeRules: TokenRule[] = [
  {
    kind: 'Stripe secret key',
    prefix: '(?:sk|rk)_live_',
    re: /(?<![A-Za-z0-9_])(?:(?:sk|rk)_live_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9+\/=]{24,200})/g,
    keywords: ['_live_', 'whsec_'],
    check: randomish,
    samples: [`sk_live_${fill(24)}`, `whsec_${fill(32)}`],
  },
  {
    kind: 'Stripe test-mode secret key',
    prefix: '(?:sk|rk)_test_',
    re: /(?<![A-Za-z0-9_])(?:sk|rk)_test_[A-Za-z0-9]{16,247}/g,
    keywords: ['_test_'],
    check: randomish,
    samples: [`sk_test_${fill(24)}`],
    nearMisses: ['sk_test_your_key', 'rk_test_placeholder_value'],
  },
];
