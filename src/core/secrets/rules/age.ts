/** age encryption secret keys: `AGE-SECRET-KEY-1` and 58 bech32 characters. */
import { fill, type TokenRule } from './rule.js';

const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

export const ageRules: TokenRule[] = [
  { kind: 'age secret key', keywords: ['age-secret-key-1'], re: /(?<![A-Za-z0-9_-])AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}(?![A-Za-z0-9])/g, samples: [`AGE-SECRET-KEY-1${fill(58, BECH32)}`] },
];
