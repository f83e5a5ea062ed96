/**
 * Contract: the memory settings a data repo carries in its kb.json (spec/memory.md): `"budgets"` (kernel_chars,
 * host_chars, entry_chars: one number, or one per type), `"promote_after"` and `"decay"`, each falling back to its default (src/core/budget.ts). A value
 * that is not a positive integer, or a kernel budget above what the prompt hook injects, is refused with the file
 * and field named. A missing or unreadable kb.json means the defaults.
 */
import { KB_JSON_MAX } from '../system/read-bounded.js';
import { readRootFile } from './layout.js';
import { DEFAULT_BUDGETS, KERNEL_BUDGET, PROMOTE_AFTER, type MemoryBudgets } from '../../core/budget.js';
import { KbError } from '../../core/errors.js';
import { DEFAULT_DECAY, type DecaySettings } from '../../core/decay.js';
import { TYPES } from '../../core/format/schema.js';

/** The keys of kb.json `"budgets"`; any other is refused (a misspelt budget would otherwise be silently the default). */
const BUDGET_KEYS: readonly string[] = ['kernel_chars', 'host_chars', 'entry_chars'];

/** Types a kb.json `decay.by_type` may name. */
const DECAY_TYPES: readonly string[] = TYPES;

export interface RepoSettings {
  budgets: MemoryBudgets;
  promote_after: number;
  decay: DecaySettings;
}

function nonNegative(v: unknown, field: string, max: number): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > max) {
    throw new KbError('INVALID_ENTRY', `kb.json: "${field}" must be a number from 0 to ${max}, got ${JSON.stringify(v)}`, { file: 'kb.json', field });
  }
  return v;
}

/** kb.json `"decay"`: `{"enabled"?, "half_life_days"?, "by_type"?: {TYPE: days | 0}, "floor"?}`. */
function readDecay(d: unknown): DecaySettings {
  const decay: DecaySettings = { ...DEFAULT_DECAY, by_type: {} };
  if (d === undefined) return decay;
  if (!d || typeof d !== 'object' || Array.isArray(d)) throw new KbError('INVALID_ENTRY', 'kb.json: "decay" must be an object like {"half_life_days": 30}', { file: 'kb.json', field: 'decay' });
  const o = d as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!['enabled', 'half_life_days', 'by_type', 'floor'].includes(k)) throw new KbError('INVALID_ENTRY', `kb.json: "decay.${k}" is not a decay setting (enabled, half_life_days, by_type, floor)`, { file: 'kb.json', field: `decay.${k}` });
  }
  if (o.enabled !== undefined) {
    if (typeof o.enabled !== 'boolean') throw new KbError('INVALID_ENTRY', `kb.json: "decay.enabled" must be true or false, got ${JSON.stringify(o.enabled)}`, { file: 'kb.json', field: 'decay.enabled' });
    decay.enabled = o.enabled;
  }
  if (o.half_life_days !== undefined) decay.half_life_days = positive(o.half_life_days, 'decay.half_life_days', 36500);
  if (o.floor !== undefined) decay.floor = nonNegative(o.floor, 'decay.floor', 1);
  if (o.by_type !== undefined) {
    if (!o.by_type || typeof o.by_type !== 'object' || Array.isArray(o.by_type)) throw new KbError('INVALID_ENTRY', 'kb.json: "decay.by_type" must be an object like {"bookmark": 90}', { file: 'kb.json', field: 'decay.by_type' });
    for (const [type, v] of Object.entries(o.by_type as Record<string, unknown>)) {
      if (!DECAY_TYPES.includes(type)) throw new KbError('INVALID_ENTRY', `kb.json: "decay.by_type.${type}" names no type; one of: ${DECAY_TYPES.join(', ')}`, { file: 'kb.json', field: `decay.by_type.${type}` });
      decay.by_type[type] = nonNegative(v, `decay.by_type.${type}`, 36500);
    }
  }
  return decay;
}

function positive(v: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > max) {
    throw new KbError('INVALID_ENTRY', `kb.json: "${field}" must be a whole number from 1 to ${max === Number.MAX_SAFE_INTEGER ? 'any size' : max}, got ${JSON.stringify(v)}`, { file: 'kb.json', field });
  }
  return v;
}

/** The memory settings of the data repo at `dir`. */
function readRaw(dir: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(readRootFile(dir, 'kb.json', KB_JSON_MAX).toString('utf8')) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    /* no kb.json (or not JSON: lint's business): the defaults */
  }
  return {};
}

/** Only the decay settings (search reads these and nothing else, so a bad budget never breaks a search). */
export function readDecaySettings(dir: string): DecaySettings {
  return readDecay(readRaw(dir).decay);
}

/**
 * kb.json `"budgets.entry_chars"`: a number is the budget of every type (as before types had their own); an object
 * `{"default"?: N, TYPE?: N}` sets the default and the types it names, the other types keeping their defaults.
 */
function readEntryChars(v: unknown, budgets: MemoryBudgets): void {
  if (typeof v !== 'object' || v === null) {
    budgets.entry_chars = positive(v, 'budgets.entry_chars');
    budgets.entry_chars_by_type = {};
    return;
  }
  if (Array.isArray(v)) throw new KbError('INVALID_ENTRY', 'kb.json: "budgets.entry_chars" must be a number or an object like {"default": 3000, "factual_reference": 12000}', { file: 'kb.json', field: 'budgets.entry_chars' });
  const by = { ...budgets.entry_chars_by_type };
  for (const [k, n] of Object.entries(v as Record<string, unknown>)) {
    const field = `budgets.entry_chars.${k}`;
    if (k === 'default') budgets.entry_chars = positive(n, field);
    else if ((TYPES as readonly string[]).includes(k)) by[k] = positive(n, field);
    else throw new KbError('INVALID_ENTRY', `kb.json: "${field}" names no type; "default" or one of: ${TYPES.join(', ')}`, { file: 'kb.json', field });
  }
  budgets.entry_chars_by_type = by;
}

export function readRepoSettings(dir: string): RepoSettings {
  const raw = readRaw(dir);
  const budgets: MemoryBudgets = { ...DEFAULT_BUDGETS, entry_chars_by_type: { ...DEFAULT_BUDGETS.entry_chars_by_type } };
  const b = raw.budgets;
  if (b !== undefined) {
    if (!b || typeof b !== 'object' || Array.isArray(b)) throw new KbError('INVALID_ENTRY', 'kb.json: "budgets" must be an object like {"kernel_chars": 6000}', { file: 'kb.json', field: 'budgets' });
    const o = b as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      if (!BUDGET_KEYS.includes(k)) throw new KbError('INVALID_ENTRY', `kb.json: "budgets.${k}" is not a budget (${BUDGET_KEYS.join(', ')})`, { file: 'kb.json', field: `budgets.${k}` });
    }
    if (o.kernel_chars !== undefined) budgets.kernel_chars = positive(o.kernel_chars, 'budgets.kernel_chars', KERNEL_BUDGET);
    if (o.host_chars !== undefined) budgets.host_chars = positive(o.host_chars, 'budgets.host_chars');
    if (o.entry_chars !== undefined) readEntryChars(o.entry_chars, budgets);
  }
  return { budgets, promote_after: raw.promote_after === undefined ? PROMOTE_AFTER : positive(raw.promote_after, 'promote_after'), decay: readDecay(raw.decay) };
}
