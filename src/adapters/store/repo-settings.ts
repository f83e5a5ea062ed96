/**
 * Contract: the memory settings a data repo carries in its kb.json (spec/memory.md): `"budgets"` (kernel_chars,
 * host_chars, entry_chars) and `"promote_after"`, each falling back to its default (src/core/budget.ts). A value
 * that is not a positive integer, or a kernel budget above what the prompt hook injects, is refused with the file
 * and field named. A missing or unreadable kb.json means the defaults.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_BUDGETS, KERNEL_BUDGET, PROMOTE_AFTER, type MemoryBudgets } from '../../core/budget.js';
import { KbError } from '../../core/errors.js';

export interface RepoSettings {
  budgets: MemoryBudgets;
  promote_after: number;
}

function positive(v: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw new KbError('INVALID_ENTRY', `kb.json: "${field}" must be a whole number from 1 to ${max === Number.MAX_SAFE_INTEGER ? 'any size' : max}, got ${JSON.stringify(v)}`, { file: 'kb.json', field });
  }
  return v;
}

/** The memory settings of the data repo at `dir`. */
export function readRepoSettings(dir: string): RepoSettings {
  let raw: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dir, 'kb.json'), 'utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
  } catch {
    /* no kb.json (or not JSON: lint's business): the defaults */
  }
  const budgets = { ...DEFAULT_BUDGETS };
  const b = raw.budgets;
  if (b !== undefined) {
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw new KbError('INVALID_ENTRY', 'kb.json: "budgets" must be an object like {"kernel_chars": 6000}', { file: 'kb.json', field: 'budgets' });
    for (const k of Object.keys(DEFAULT_BUDGETS) as (keyof MemoryBudgets)[]) {
      const v = (b as Record<string, unknown>)[k];
      if (v !== undefined) budgets[k] = positive(v, `budgets.${k}`, k === 'kernel_chars' ? KERNEL_BUDGET : undefined);
    }
  }
  return { budgets, promote_after: raw.promote_after === undefined ? PROMOTE_AFTER : positive(raw.promote_after, 'promote_after') };
}
