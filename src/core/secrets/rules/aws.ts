/** AWS access key ids (`AKIA`, `ASIA`, `ABIA`, `ACCA` + 16). Secret access keys are found by their context. */
import { fill, type TokenRule } from './rule.js';

export const awsRules: TokenRule[] = [
  { kind: 'AWS access key id',
    prefix: '(?:AKIA|ASIA|ABIA|ACCA)', keywords: ['akia', 'asia', 'abia', 'acca'], re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, samples: [`AKIA${fill(16, 'Q3EGRBXJ7ZLMNP4K')}`] },
];
