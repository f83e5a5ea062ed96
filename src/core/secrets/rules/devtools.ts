/**
 * Developer services with a literal prefix: Sourcegraph (`sgp_`), Infracost (`ico-`), Prefect (`pnu_`), ReadMe
 * (`rdme_`), Typeform (`tfp_`), Frame.io (`fio-u-`), Scalingo (`tk-us-`), Shippo (`shippo_live_`/`_test_`),
 * Duffel (`duffel_live_`/`_test_`), EasyPost (`EZAK`/`EZTK`), Flutterwave (`FLWSECK-`), Dynatrace (`dt0c01.`),
 * OpenShift user tokens (`sha256~`), Octopus Deploy (`API-`), Harness (`pat.`/`sat.`), Adobe client secrets (`p8e-`).
 */
import { afterPrefix, fill, HEX, LOWER_DIGITS, randomish, UPPER_DIGITS, type TokenRule } from './rule.js';

export const devtoolsRules: TokenRule[] = [
  { kind: 'Sourcegraph token', re: /(?<![A-Za-z0-9_])sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-f0-9]{40}(?![A-Za-z0-9_])/g, keywords: ['sgp_'], check: randomish, samples: [`sgp_${fill(16, HEX)}_${fill(40, HEX)}`, `sgp_${fill(40, HEX)}`] },
  { kind: 'Infracost API key', re: /(?<![A-Za-z0-9_-])ico-[A-Za-z0-9]{32}(?![A-Za-z0-9_])/g, keywords: ['ico-'], check: randomish, samples: [`ico-${fill(32)}`] },
  { kind: 'Prefect API key', re: /(?<![A-Za-z0-9_])pnu_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, keywords: ['pnu_'], check: randomish, samples: [`pnu_${fill(36)}`] },
  { kind: 'ReadMe API key', re: /(?<![A-Za-z0-9_])rdme_[a-z0-9]{70}(?![A-Za-z0-9_])/g, keywords: ['rdme_'], check: randomish, samples: [`rdme_${fill(70, LOWER_DIGITS)}`] },
  { kind: 'Typeform token', re: /(?<![A-Za-z0-9_])tfp_[A-Za-z0-9_.=-]{59}(?![A-Za-z0-9_=-])/g, keywords: ['tfp_'], check: randomish, samples: [`tfp_${fill(59)}`] },
  { kind: 'Frame.io token', re: /(?<![A-Za-z0-9_-])fio-u-[A-Za-z0-9_=-]{64}(?![A-Za-z0-9_=-])/g, keywords: ['fio-u-'], check: randomish, samples: [`fio-u-${fill(64)}`] },
  { kind: 'Scalingo token', re: /(?<![A-Za-z0-9_-])tk-us-[A-Za-z0-9_-]{48}(?![A-Za-z0-9_-])/g, keywords: ['tk-us-'], check: randomish, samples: [`tk-us-${fill(48)}`] },
  { kind: 'Shippo token', re: /(?<![A-Za-z0-9_])shippo_(?:live|test)_[a-fA-F0-9]{40}(?![A-Za-z0-9_])/g, keywords: ['shippo_'], check: randomish, samples: [`shippo_live_${fill(40, HEX)}`] },
  { kind: 'Duffel token', re: /(?<![A-Za-z0-9_])duffel_(?:live|test)_[A-Za-z0-9_=-]{43}(?![A-Za-z0-9_=-])/g, keywords: ['duffel_'], check: randomish, samples: [`duffel_live_${fill(43)}`] },
  { kind: 'EasyPost API key', re: /(?<![A-Za-z0-9_-])EZ[AT]K[A-Za-z0-9]{54}(?![A-Za-z0-9_])/g, keywords: ['ezak', 'eztk'], check: randomish, samples: [`EZAK${fill(54)}`] },
  { kind: 'Flutterwave secret key', re: /(?<![A-Za-z0-9_-])FLWSECK(?:_TEST)?-[a-fA-F0-9]{32}-X(?![A-Za-z0-9_])/g, keywords: ['flwseck'], check: randomish, samples: [`FLWSECK_TEST-${fill(32, HEX)}-X`] },
  { kind: 'Dynatrace token', re: /(?<![A-Za-z0-9_.-])dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}(?![A-Za-z0-9_])/g, keywords: ['dt0c01.'], samples: [`dt0c01.${fill(24, UPPER_DIGITS)}.${fill(64, UPPER_DIGITS)}`] },
  { kind: 'OpenShift token', re: /(?<![A-Za-z0-9_-])sha256~[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, keywords: ['sha256~'], check: randomish, samples: [`sha256~${fill(43)}`] },
  { kind: 'Octopus Deploy API key', re: /(?<![A-Za-z0-9_-])API-[A-Z0-9]{26}(?![A-Za-z0-9_-])/g, keywords: ['api-'], check: randomish, samples: [`API-${fill(26, UPPER_DIGITS)}`], nearMisses: ['API-GATEWAY-DEPLOYMENT-STAGE'] },
  { kind: 'Harness token', re: /(?<![A-Za-z0-9_.-])(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}(?![A-Za-z0-9_])/g, keywords: ['pat.', 'sat.'], check: randomish, samples: [`pat.${fill(22)}.${fill(24, HEX)}.${fill(20)}`] },
  { kind: 'Adobe client secret', re: /(?<![A-Za-z0-9_-])p8e-[A-Za-z0-9]{32}(?![A-Za-z0-9_])/g, keywords: ['p8e-'], check: afterPrefix(randomish), samples: [`p8e-${fill(32)}`] },
];
