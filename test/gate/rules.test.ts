import { describe, expect, it } from 'vitest';
import { denyReason, MAX_REASON } from '../../src/core/gate/deny.js';
import { checkRules, compileRule, locate, maskNonProse, type GateRule } from '../../src/core/gate/rules.js';

const rule = (pattern: string, extra: Partial<GateRule> = {}): GateRule => ({ id: 'kb-x', title: 'Style', index: 1, pattern, message: 'msg', ...extra });

describe('maskNonProse', () => {
  it('blanks code, URLs and long tokens but keeps every offset and line', () => {
    const text = [
      'Intro with `leverage()` inline.',
      '```js',
      'leverage();',
      '```',
      'See https://example.com/leverage?x=1 now.',
      `Hash ${'a'.repeat(90)} end.`,
      '~~~~',
      'leverage',
      '~~~~',
      'Real leverage here, and ``a ` b`` too.',
    ].join('\n');
    const masked = maskNonProse(text);
    expect(masked.length).toBe(text.length);
    expect(masked.split('\n').length).toBe(text.split('\n').length);
    expect(masked.match(/leverage/g)).toEqual(['leverage']);
    expect(masked).toContain('Intro with');
    expect(masked).toContain('Real leverage here, and');
    expect(masked).not.toContain('` b');
    expect(masked).toContain('See ');
    expect(masked).toContain(' now.');
  });

  it('leaves an unclosed backtick alone, and treats an unclosed fence as code to the end', () => {
    expect(maskNonProse('a ` b leverage')).toBe('a ` b leverage');
    expect(maskNonProse('text\n```\nleverage\nmore')).toBe('text\n   \n        \n    ');
  });

  it('ends on hostile input (a super-linear scan would not, at this size, within the test timeout)', () => {
    expect(maskNonProse(`${'`'.repeat(50_000)}${'a.'.repeat(50_000)}${'http://'.repeat(10_000)}`).length).toBe(220_000);
  });
});

describe('checkRules', () => {
  it('quotes the original text and locates each occurrence', () => {
    const r = checkRules([{ source: 'README.md', text: 'One.\nWe   leverage\nthings. LEVERAGE!', line: 1 }], [rule('\\bleverage\\b')]);
    expect(r.violations.map((v) => [v.quote, v.where])).toEqual([
      ['leverage', 'README.md:2'],
      ['LEVERAGE', 'README.md:3'],
    ]);
  });

  it('matches phrases across line breaks, which wrapped prose has', () => {
    const r = checkRules([{ source: 'commit message', text: 'Done in order\nto ship.', line: 1 }], [rule('in\\s+order\\s+to')]);
    expect(r.violations).toEqual([{ rule: expect.objectContaining({ pattern: 'in\\s+order\\s+to' }), quote: 'in order to', where: 'commit message, line 1' }]);
  });

  it('reports three occurrences per rule and counts the rest', () => {
    const r = checkRules([{ source: 'a.md', text: 'x!! '.repeat(10), line: 1 }], [rule('!!', { flags: '' })]);
    expect(r.violations).toHaveLength(3);
    expect(r.more).toBe(7);
  });

  it('skips zero-length matches and rules that do not compile', () => {
    const r = checkRules([{ source: 'a.md', text: 'word word', line: 1 }], [rule('\\b'), rule('(unclosed'), rule('word', { index: 3 })]);
    expect(r.violations.map((v) => v.rule?.index)).toEqual([3, 3]);
  });

  it('finds each occurrence once in a long text read in windows, with its true line', () => {
    const lines = Array.from({ length: 3_000 }, (_, i) => (i === 2_500 ? 'here we leverage it' : `line ${i} is plain text`));
    const r = checkRules([{ source: 'big.md', text: lines.join('\n'), line: 1 }], [rule('\\bleverage\\b')]);
    expect(r.violations).toEqual([expect.objectContaining({ quote: 'leverage', where: 'big.md:2501' })]);
    const edge = `${'a '.repeat(999)}leverage ${'b '.repeat(5_000)}`;
    expect(checkRules([{ source: 'edge.md', text: edge }], [rule('\\bleverage\\b')]).violations).toHaveLength(1);
  });

  it('bounds a slow but accepted pattern on a long text with no line breaks', () => {
    const text = 'word '.repeat(40_000);
    const r = checkRules([{ source: 'a.txt', text }], [rule('[^.]*\\bvery\\b'), rule('.*zzz')]);
    expect(r.violations).toHaveLength(0);
  });

  it('stops at its time budget and says so', () => {
    let t = 0;
    const r = checkRules([{ source: 'a.md', text: 'leverage' }], [rule('leverage')], { budgetMs: 5, now: () => (t += 10) });
    expect(r).toEqual({ violations: [], more: 0, partial: true });
  });

  it('compileRule defaults to case-insensitive and drops g and y', () => {
    expect(compileRule({ pattern: 'a' })!.flags).toBe('gi');
    expect(compileRule({ pattern: 'a', flags: 'gmy' })!.flags).toBe('gm');
    expect(compileRule({ pattern: '(' })).toBeUndefined();
  });
});

describe('locate', () => {
  it.each([
    [{ source: 'README.md', text: 'a\nb', line: 1 }, 2, 'README.md:2'],
    [{ source: 'Makefile', text: 'a', line: 7 }, 0, 'Makefile:7'],
    [{ source: 'comment in src/a.ts:10', text: 'a\nb', line: 10 }, 2, 'comment in src/a.ts:11'],
    [{ source: 'comment in src/a.ts:3 (edit)', text: 'a\nb', line: 3 }, 2, 'comment in src/a.ts:4 (edit)'],
    [{ source: 'comment in a.ts (edit, line 2 of the new text)', text: 'a\nb', line: 2 }, 2, 'comment in a.ts (edit, line 3 of the new text)'],
    [{ source: 'docs/a.md (edit)', text: 'a\nb', line: 5 }, 2, 'docs/a.md:6 (edit)'],
    [{ source: 'docs/a.md (edit 2, new text)', text: 'a', line: 1 }, 0, 'docs/a.md (edit 2, new text), line 1'],
    [{ source: 'commit message', text: 'a\n\nb', line: 1 }, 3, 'commit message, line 3'],
    [{ source: 'mcp__github__create_pull_request input.body', text: 'x' }, 0, 'mcp__github__create_pull_request input.body, line 1'],
  ])('%j at %i is %s', (piece, offset, where) => {
    expect(locate(piece, offset)).toBe(where);
  });
});

describe('denyReason', () => {
  it('stays under its cap, counting what does not fit', () => {
    const v = { rule: rule('x', { message: 'm'.repeat(250) }), quote: 'q'.repeat(80), where: 'README.md:1' };
    const reason = denyReason({ tool: 'Write', layer: 'rules', violations: Array(100).fill(v), more: 5 });
    expect(reason.length).toBeLessThanOrEqual(MAX_REASON);
    expect(reason).toMatch(/\(\d+ more matches not listed\.\)/);
    expect(JSON.stringify({ hookSpecificOutput: { permissionDecisionReason: reason } }).length).toBeLessThan(9_000);
  });
});
