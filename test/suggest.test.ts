import { describe, expect, it } from 'vitest';
import { RELS, TYPES } from '../src/core/format/schema.js';
import { closest, unknownChoice } from '../src/core/text/suggest.js';

describe('did you mean', () => {
  it('names the closest choice for a typo, a prefix or another case, and none for a stranger', () => {
    expect(closest('decison', TYPES)).toBe('decision');
    expect(closest('lesson', TYPES)).toBe('lesson_learned');
    expect(closest('Bookmark', TYPES)).toBe('bookmark');
    expect(closest('relate_to', RELS)).toBe('relates_to');
    expect(closest('musing', TYPES)).toBeUndefined();
  });
  it('is a usage error naming the set and the likely one', () => {
    const e = unknownChoice('--type', 'decison', TYPES);
    expect(e.code).toBe('USAGE');
    expect(e.message).toBe(`unknown --type "decison"; one of: ${TYPES.join(', ')}; did you mean "decision"?`);
    expect(unknownChoice('rel', 'x', RELS, '--link "x:kb-1"').message).toMatch(/^--link "x:kb-1": unknown rel "x"; one of: /);
  });
});
