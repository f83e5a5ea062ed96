/** Anthropic API keys: `sk-ant-` and a long random tail. */
import { fill, randomish, type TokenRule } from './rule.js';

export const anthropicRules: TokenRule[] = [
  { kind: 'Anthropic API key',
    prefix: 'sk-ant-', keywords: ['sk-ant-'], re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,300}/g, check: randomish, samples: [`sk-ant-api03-${fill(40)}`] },
];
