import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findClaude } from '../../src/adapters/claude/find-claude.js';
import { buildJudgePrompt } from '../../src/adapters/claude/judge.js';
import { judgeablePieces, parseVerdict, verifyViolations, type JudgeRule } from '../../src/core/gate/verdict.js';

const envelope = (result: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result, ...extra });

describe('parseVerdict', () => {
  it.each([
    ['bare pass', '{"pass": true}', true],
    ['bare fail', '{"pass": false, "violations": [{"quote": "x"}]}', false],
    ['the envelope', envelope('{"pass": true}'), true],
    ['a fenced block in chatty text', envelope('Sure.\n```json\n{"pass": false, "violations": [{"quote": "a {brace} \\"quoted\\""}]}\n```\nDone.'), false],
    ['a verdict alias', '{"verdict": "FAIL", "violations": []}', false],
    ['text before and after', 'Verdict: {"pass": true} hope that helps', true],
    ['a decoy object first', 'Context {"note": "x"} then {"pass": true}', true],
    ['a stray brace first', 'Hmm { let me think. {"pass": false, "violations": []}', false],
    ['an array of one', '[{"pass": true}]', true],
  ])('reads %s', (_name, stdout, pass) => {
    expect(parseVerdict(stdout)?.pass).toBe(pass);
  });

  it.each([
    ['nothing', ''],
    ['prose', 'Looks fine to me.'],
    ['an error envelope', envelope('{"pass": false}', { is_error: true })],
    ['JSON without a verdict', '{"ok": 1}'],
    ['a truncated object', '{"pass": false, "violations": [{"quote": "syn'],
  ])('finds no verdict in %s', (_name, stdout) => {
    expect(parseVerdict(stdout)).toBeUndefined();
  });

  it('ends on a megabyte of braces (a quadratic parse would not, within the test timeout)', () => {
    expect(parseVerdict('{'.repeat(500_000) + '}'.repeat(400_000))).toBeUndefined();
  });
});

describe('verifyViolations', () => {
  const pieces = [
    { source: 'README.md', text: 'Intro.\nWe value   synergy across\nteams — it’s “key”.', line: 1 },
    { source: 'commit message', text: 'Align the stakeholders', line: 1 },
  ];

  it('keeps quotes found with loosened whitespace, case and quote marks, and locates them', () => {
    const out = verifyViolations(
      [
        { rule: 'No filler', quote: 'value synergy across teams', fix: 'say what it does' },
        { rule: 'Quotes', quote: 'it\'s "key"' },
        { rule: 'Jargon', quote: '"align the STAKEHOLDERS"' },
        { quote: 'We value ... across' },
      ],
      pieces,
    );
    expect(out.map((v) => [v.where, v.quote, v.judged?.rule, v.judged?.fix])).toEqual([
      ['README.md:2', 'value synergy across teams', 'No filler', 'say what it does'],
      ['README.md:3', 'it’s “key”', 'Quotes', undefined],
      ['commit message, line 1', 'Align the stakeholders', 'Jargon', undefined],
      ['README.md:2', 'We value', 'house rules', undefined],
    ]);
  });

  it('drops invented quotes, empty ones and ones of the wrong type', () => {
    expect(verifyViolations([{ quote: 'never written' }, { quote: '' }, { quote: 5 }, { rule: 'x' }, {}], pieces)).toEqual([]);
  });

  it('treats regex characters in quotes literally', () => {
    const out = verifyViolations([{ quote: 'a (b) [c] *d* $e? {f} |g| /h/ \\i' }], [{ source: 'x.md', text: 'see a (b) [c] *d* $e? {f} |g| /h/ \\i here' }]);
    expect(out).toHaveLength(1);
  });
});

describe('buildJudgePrompt', () => {
  const kernel: JudgeRule[] = [{ id: 'kb-1', title: 'Style', body: 'No filler.', rules: [{ message: 'No x.' }] }];

  it('fences rules and prose with a random marker the prose cannot know, and asks for JSON', () => {
    const p = buildJudgePrompt([{ source: 'README.md', text: 'Hello <<abc>> world', line: 3 }], kernel, 'n0nce');
    expect(p).toContain('<<n0nce>>\n### kb-1: Style\nNo filler.\nPatterns already enforced elsewhere: No x.\n<<n0nce>>');
    expect(p).toContain('<<n0nce>><<n0nce>>\n[piece 1: README.md, from line 3]\nHello <<abc>> world\n<<n0nce>><<n0nce>>');
    expect(p).toContain('{"pass": true}');
    expect(buildJudgePrompt([], kernel)).not.toBe(buildJudgePrompt([], kernel));
  });

  it('cuts oversized prose', () => {
    const p = buildJudgePrompt([{ source: 'big.md', text: 'word '.repeat(50_000) }], kernel);
    expect(p.length).toBeLessThan(70_000);
    expect(p).toContain('[prose cut here]');
  });
});

describe('judgeablePieces and findClaude', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-find-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('sends only pieces with at least 20 letters', () => {
    expect(judgeablePieces([{ source: 'a', text: 'fix typo' }, { source: 'b', text: '1234 5678 ... !!!' }, { source: 'c', text: 'Explain the planner choices' }]).map((p) => p.source)).toEqual(['c']);
  });

  it('finds claude on PATH or by KB_PROSE_LINT_CLAUDE, skipping what cannot run', () => {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    fs.mkdirSync(a);
    fs.mkdirSync(b);
    fs.writeFileSync(path.join(a, 'claude'), '#!/bin/sh\n', { mode: 0o644 });
    fs.writeFileSync(path.join(b, 'claude'), '#!/bin/sh\n', { mode: 0o755 });
    fs.writeFileSync(path.join(b, 'judge'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findClaude(undefined, [a, b].join(path.delimiter))).toBe(path.join(b, 'claude'));
    expect(findClaude(undefined, a)).toBeUndefined();
    expect(findClaude(undefined, '')).toBeUndefined();
    expect(findClaude(path.join(b, 'judge'), a)).toBe(path.join(b, 'judge'));
    expect(findClaude('judge', b)).toBe(path.join(b, 'judge'));
    expect(findClaude('b/judge', b, dir)).toBe(path.join(b, 'judge'));
    expect(findClaude(path.join(a, 'claude'), b)).toBeUndefined();
  });
});
