import { describe, expect, it } from 'vitest';
import { findSecrets, redactSecrets } from '../src/core/secrets/scan.js';
import { TOKEN_RULES } from '../src/core/secrets/rules/index.js';

describe('provider rules (src/core/secrets/rules/)', () => {
  it('every rule has samples, and the scanner finds each sample whole, with the rule\'s kind, alone or in prose', () => {
    for (const rule of TOKEN_RULES) {
      expect(rule.samples.length, rule.kind).toBeGreaterThan(0);
      expect(rule.re.global, rule.kind).toBe(true);
      for (const s of rule.samples) {
        const whole = rule.context ? rule.context(s) : s;
        for (const text of [whole, `the value is ${whole} for now`, `x\n${whole}\n`]) {
          const found = findSecrets(text);
          expect(found.map((f) => f.kind), `${rule.kind}: ${text}`).toEqual([rule.kind]);
          expect(redactSecrets(text).text, rule.kind).not.toContain(s);
        }
      }
    }
  });
});
