/** GitLab tokens: `glpat-`, `gldt-`, `glrt-`, `glptt-`, `glsoat-`, `glcbt-`. */
import { K } from '../kinds.js';
import { fill, randomish, type TokenRule } from './rule.js';

export const gitlabRules: TokenRule[] = [
  { kind: K.gitlab,
    prefix: 'glpat-', re: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|soat|cbt)-[A-Za-z0-9_-]{20,250}/g, check: randomish, samples: [`glpat-${fill(20)}`] },
];
