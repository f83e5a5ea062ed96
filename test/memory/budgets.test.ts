/**
 * Budgets that can end (spec/memory.md, "Budgets", issue 29): an entry's budget is its type's (a reference may be
 * long, a lesson may not), set per type in kb.json with the old single number still meaning every type; a target
 * graded FLOOR is not over budget again until it outgrows that size; the kernel the prompt shows is the lesson
 * without its log of sightings, and which bodies become pointers has one rule.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readRepoSettings } from '../../src/adapters/store/repo-settings.js';
import { budgetOverruns, DEFAULT_BUDGETS, entryBudget, kernelShownWhole, KERNEL_BUDGET, type BudgetEntry } from '../../src/core/budget.js';
import { seenAgainBlock, withoutSightings } from '../../src/core/format/learning.js';
import { renderLinksSection } from '../../src/core/format/links.js';

const entry = (id: string, type: string, bodyLength: number, extra: Partial<BudgetEntry> = {}): BudgetEntry => ({ id, title: id, type, bodyLength, ...extra });

let dir: string | undefined;
afterEach(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});
function settingsWith(budgets: unknown): ReturnType<typeof readRepoSettings> {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-budgets-'));
  fs.writeFileSync(path.join(dir, 'kb.json'), JSON.stringify({ version: 1, budgets }));
  return readRepoSettings(dir);
}

describe('budgets per type', () => {
  it('lets a 3,151-character reference or imported note be, and still flags a lesson that long', () => {
    const over = budgetOverruns([entry('kb-ref', 'factual_reference', 3151), entry('kb-les', 'lesson_learned', 3151)], DEFAULT_BUDGETS);
    expect(over.map((o) => [o.target, o.limit])).toEqual([['kb-les', 3000]]);
    expect(entryBudget(DEFAULT_BUDGETS, 'factual_reference')).toBe(12000);
    expect(entryBudget(DEFAULT_BUDGETS, 'host_fact')).toBe(3000);
  });

  it('reads kb.json: a number means every type (the old key), an object sets the default and named types', () => {
    const flat = settingsWith({ entry_chars: 500 }).budgets;
    expect([entryBudget(flat, 'factual_reference'), entryBudget(flat, 'lesson_learned')]).toEqual([500, 500]);
    const typed = settingsWith({ entry_chars: { default: 800, host_fact: 300 } }).budgets;
    expect([entryBudget(typed, 'factual_reference'), entryBudget(typed, 'lesson_learned'), entryBudget(typed, 'host_fact')]).toEqual([12000, 800, 300]);
    expect(() => settingsWith({ entry_chars: { runbook: 9000 } })).toThrow(/kb.json: "budgets.entry_chars.runbook" names no type/);
    expect(() => settingsWith({ entry_chars: { lesson_learned: 0 } })).toThrow(/"budgets.entry_chars.lesson_learned" must be a whole number/);
    expect(() => settingsWith({ entry_chars: [1] })).toThrow(/"budgets.entry_chars" must be a number or an object/);
    // A misspelt budget is refused, not silently the default.
    expect(() => settingsWith({ kernel_char: 4000 })).toThrow(/kb.json: "budgets.kernel_char" is not a budget \(kernel_chars, host_chars, entry_chars\)/);
  });
});

describe('FLOOR sizes', () => {
  it('leaves out a target graded FLOOR until it outgrows the size it had then', () => {
    const entries = [entry('kb-big', 'lesson_learned', 4000), entry('kb-k', 'decision', 7000, { kernel: true })];
    expect(budgetOverruns(entries, DEFAULT_BUDGETS).map((o) => o.target)).toEqual(['kernel', 'kb-k', 'kb-big']);
    expect(budgetOverruns(entries, DEFAULT_BUDGETS, { 'kb-big': 4000, kernel: 7000 }).map((o) => o.target)).toEqual(['kb-k']);
    expect(budgetOverruns(entries, DEFAULT_BUDGETS, { 'kb-big': 3999 }).map((o) => o.target)).toContain('kb-big');
  });
});

describe('the kernel as the prompt shows it', () => {
  it('shows bodies whole in order while they fit, the rest as pointers', () => {
    expect([...kernelShownWhole([4000, 3000, 2000])]).toEqual([0, 2]);
    expect(kernelShownWhole([KERNEL_BUDGET + 1]).size).toBe(0);
  });

  it('leaves a promoted lesson\'s log of sightings out, and keeps its Links section', () => {
    const lesson = 'Use --frozen-lockfile in CI.';
    const links = renderLinksSection([{ rel: 'relates_to', to: 'kb-1' }], () => undefined);
    const body = `${lesson}\n\n${seenAgainBlock('2026-05-01', 'CI rewrote the lockfile.')}\n\n${seenAgainBlock('2026-05-02', '')}\n\n${links}`;
    expect(withoutSightings(body)).toBe(`${lesson}\n\n${links}`);
    expect(withoutSightings(`${lesson}\n\n${seenAgainBlock('2026-05-01', 'again')}`)).toBe(lesson);
    expect(withoutSightings(lesson)).toBe(lesson);
  });
});
