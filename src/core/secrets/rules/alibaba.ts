/** Alibaba Cloud AccessKey ids (`LTAI` + 12 to 20) and their secrets (30 characters, named by an `alibaba`/`aliyun` key). */
import { fill, keyedRe, LOWER_DIGITS, randomish, type TokenRule } from './rule.js';

export const alibabaRules: TokenRule[] = [
  {
    kind: 'Alibaba Cloud AccessKey id',
    prefix: 'LTAI',
    re: /(?<![A-Za-z0-9_-])LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9_-])/g,
    keywords: ['ltai'],
    check: randomish,
    samples: [`LTAI${fill(20)}`, `LTAI5t${fill(16)}`],
    nearMisses: ['LTAIENABLED', `LTAI${fill(8)}`],
  },
  {
    kind: 'Alibaba Cloud AccessKey secret',
    re: keyedRe('alibaba|aliyun|alicloud', '[A-Za-z0-9]{30}'),
    value: 1,
    keywords: ['alibaba', 'aliyun', 'alicloud'],
    check: randomish,
    samples: [fill(30, LOWER_DIGITS)],
    context: (s) => `ALIYUN_SECRET="${s}"`,
  },
];
