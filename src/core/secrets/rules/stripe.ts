/** Stripe secret and restricted keys (`sk_live_`, `rk_test_`, ...) and webhook signing secrets (`whsec_`). */
import { K } from '../kinds.js';
import { fill, randomish, type TokenRule } from './rule.js';

export const stripeRules: TokenRule[] = [
  {
    kind: K.stripe,
    prefix: '(?:sk|rk)_(?:live|test)_',
    re: /(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247}|whsec_[A-Za-z0-9+\/=]{24,200})/g,
    check: randomish,
    samples: [`sk_live_${fill(24)}`, `whsec_${fill(32)}`],
  },
];
