/** HashiCorp Vault tokens: service, batch and recovery tokens (`hvs.`, `hvb.`, `hvr.`). */
import { fill, randomish, type TokenRule } from './rule.js';

export const vaultRules: TokenRule[] = [
  { kind: 'HashiCorp Vault token', keywords: ['hvs.', 'hvb.', 'hvr.'], prefix: 'hv[sbr]\\.', re: /(?<![A-Za-z0-9_.-])hv[sbr]\.[A-Za-z0-9_-]{24,400}/g, check: randomish, samples: [`hvs.CAESI${fill(86)}`] },
];
