/**
 * Rules are checked where entries are written and linted: `add` refuses a rule that does not compile or could
 * run away, `edit` refuses to write an entry whose hand-written rule is bad, and `lint` reports it with file,
 * line and rule.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSettings } from '../../src/adapters/config/settings.js';
import { addEntry } from '../../src/app/add.js';
import { isKbError } from '../../src/core/errors.js';
import { kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addKernel, setRules } from './support.js';

let sb: Sandbox;
let style: { id: string; path: string };

beforeAll(async () => {
  sb = makeSandbox('gkb-rules-');
  style = await addKernel(sb, { title: 'House style', body: 'Plain words.', rules: [{ pattern: '\\bleverage\\b', message: 'Say "use".' }] });
});
afterAll(() => sb.cleanup());

describe('rules at write time', () => {
  it('add accepts a good rule and refuses a bad one, writing nothing', async () => {
    const ok = await addEntry({ data: sb.data, settings: readSettings(sb.env), type: 'pattern_convention', title: 'Punctuation', kernel: true, body: 'One mark.', extra: { rules: [{ pattern: '!{2,}', message: 'One at most.', flags: '' }] } });
    expect(fs.readFileSync(path.join(sb.data, ok.path), 'utf8')).toContain("rules:\n  - pattern: \"!{2,}\"\n    message: One at most.\n    flags: \"\"");
    const count = fs.readdirSync(path.join(sb.data, 'entries')).length;
    for (const [pattern, reason] of [
      ['(a+)+', /repetition inside a repetition/],
      ['(unclosed', /does not compile/],
      ['.*a.*b', /open-ended runs/],
      ['x*', /matches empty text/],
    ] as const) {
      const err = await addEntry({ data: sb.data, settings: readSettings(sb.env), type: 'pattern_convention', title: 'Bad', kernel: true, body: 'x', extra: { rules: [{ pattern, message: 'm' }] } }).catch((e: unknown) => e);
      expect(isKbError(err, 'INVALID_ENTRY'), String(err)).toBe(true);
      expect(String((err as Error).message)).toMatch(reason);
      expect(String((err as Error).message)).toContain('[rule-invalid]');
    }
    expect(fs.readdirSync(path.join(sb.data, 'entries')).length).toBe(count);
  });

  it('lint reports a bad hand-written rule with file, line and rule, and edit refuses to write until it is fixed', async () => {
    await setRules(sb, style.path, [
      { pattern: '\\bleverage\\b', message: 'Say "use".' },
      { pattern: '(\\w+\\s?)+$', message: 'runaway' },
    ]);
    const lint = await kb(sb, ['--data', sb.data, 'lint', '--json']);
    expect(lint.code).toBe(5);
    const out = JSON.parse(lint.stdout || lint.stderr) as { problems?: Array<{ rule: string; file: string; line: number; message: string }> };
    const problems = out.problems ?? [];
    const text = fs.readFileSync(path.join(sb.data, style.path), 'utf8');
    const rulesLine = text.split('\n').indexOf('rules:') + 1;
    expect(problems).toEqual([expect.objectContaining({ rule: 'rule-invalid', file: style.path, line: rulesLine, message: expect.stringMatching(/rules\[1\].*repetition inside a repetition/) })]);
    const before = fs.readFileSync(path.join(sb.data, style.path), 'utf8');
    const edit = await kb(sb, ['--data', sb.data, 'edit', style.id, '--title', 'Renamed']);
    expect(edit.code).toBe(5);
    expect(edit.stderr).toMatch(/rule/);
    expect(fs.readFileSync(path.join(sb.data, style.path), 'utf8')).toBe(before);
  });
});
