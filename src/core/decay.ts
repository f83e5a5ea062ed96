/**
 * Contract: how search ranks older entries lower (spec/memory.md, "Decay"). Pure: an entry's type, flags and
 * date in, a multiplier out. An entry's age is counted from `updated` (else `created`); a decaying entry's score
 * is multiplied by `floor + (1 - floor) * 0.5^(age / half_life)`, so it halves its distance to the floor every
 * half-life and is never pushed below `floor` of its score. Evergreen entries (the kernel, conventions, decisions,
 * references, host facts, and any entry marked `evergreen: true`) keep a multiplier of 1.
 */
import { TYPES } from './format/schema.js';

const DAY = 86_400_000;

/** The decay settings of a data repo (kb.json `"decay"`). */
export interface DecaySettings {
  /** False turns decay off altogether. */
  enabled: boolean;
  /** The half-life of a decaying type, in days. */
  half_life_days: number;
  /** Per type: a half-life in days, or 0 for "does not decay". Types not named: 0 for EVERGREEN_TYPES, else half_life_days. */
  by_type: Partial<Record<string, number>>;
  /** The least multiplier an old entry gets (0 to 1). */
  floor: number;
}

/** Types that do not decay unless kb.json gives them a half-life. */
export const EVERGREEN_TYPES: ReadonlySet<string> = new Set(['pattern_convention', 'decision', 'factual_reference', 'host_fact']);

/** NOTE: floor 0.85 measured on bench/retrieval.mjs --decay-probe (floors 0.5 to 0.9; spec/memory.md, "Decay"). */
export const DEFAULT_DECAY: DecaySettings = { enabled: true, half_life_days: 30, by_type: {}, floor: 0.85 };

/** The decay-relevant fields of an entry. */
export interface DecayInput {
  type: string;
  kernel?: boolean;
  host?: string;
  created?: string;
  updated?: string;
  /** The entry's `evergreen` front matter value, when set. */
  evergreen?: unknown;
}

/** The half-life, in days, of an entry (0: it does not decay). */
export function halfLifeOf(e: DecayInput, s: DecaySettings): number {
  if (!s.enabled || e.kernel || e.evergreen === true || e.host) return 0;
  const own = s.by_type[e.type];
  if (own !== undefined) return own;
  return EVERGREEN_TYPES.has(e.type) ? 0 : s.half_life_days;
}

/** The entry's age in days at `now` (0 for an undated or future entry). */
export function ageDays(e: DecayInput, now: number): number {
  const at = Date.parse(e.updated ?? e.created ?? '');
  return Number.isNaN(at) ? 0 : Math.max(0, (now - at) / DAY);
}

/** The multiplier search applies to an entry's score: 1 for evergreen or new, down towards `floor` with age. */
export function decayFactor(e: DecayInput, s: DecaySettings, now: number): number {
  const h = halfLifeOf(e, s);
  if (h <= 0) return 1;
  return s.floor + (1 - s.floor) * Math.pow(0.5, ageDays(e, now) / h);
}

/** Types a kb.json `by_type` may name. */
export const DECAY_TYPES: readonly string[] = TYPES;
