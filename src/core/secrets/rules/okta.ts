/** Okta API tokens, as the `SSWS` scheme sends them (`Authorization: SSWS 00...`). */
import { fill, mixed, type TokenRule } from './rule.js';

export const oktaRules: TokenRule[] = [
  {
    kind: 'Okta API token',
    re: /(?<![A-Za-z0-9_-])SSWS[ \t]{1,8}([A-Za-z0-9_-]{30,64})(?![A-Za-z0-9_-])/dg,
    value: 1,
    keywords: ['ssws'],
    check: mixed,
    samples: [`00${fill(40)}`],
    context: (s) => `curl -H "Authorization: SSWS ${s}" https://dev-1.okta.com/api/v1/users`,
    nearMisses: ['Authorization: SSWS ${OKTA_API_TOKEN}'],
  },
];
