/**
 * Contract: how search and the prompt hook rank older entries lower (spec/memory.md, "Decay"). Pure: an entry's
 * type, flags and date in, a multiplier out. An entry's age is counted from `updated` (else `created`); a decaying
 * entry's multiplier is `floor + (1 - floor) * 0.5^(age / half_life)`, so it halves its distance to the floor every
 * half-life and never falls below `floor`; among the candidates of one query or prompt it is taken relative to the
 * freshest decaying candidate's (relativeDecay). Evergreen entries (the kernel, conventions, decisions,
 * references, host facts, and any entry marked `evergreen: true`) are not compared by age.
 */
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

/**
 * NOTE: floor 0.5 and half-life 30 days chosen on the decay query set and the age-as-noise probe
 * (bench/decay.mjs --grid --probe, floors 0.2 to 0.7, half-lives 30 to 180 days; spec/memory.md, "Decay"): from
 * two months on, a lesson is worth about half of a new one on the same words.
 */
export const DEFAULT_DECAY: DecaySettings = { enabled: true, half_life_days: 30, by_type: {}, floor: 0.5 };

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

/** THE curve: the multiplier at `age` days of an entry with half-life `halfLife` (> 0) and least multiplier `floor`. */
export function decayCurve(age: number, halfLife: number, floor: number): number {
  return floor + (1 - floor) * Math.pow(0.5, age / halfLife);
}

/** The multiplier search applies to an entry's score: 1 for evergreen or new, down towards `floor` with age. */
export function decayFactor(e: DecayInput, s: DecaySettings, now: number): number {
  const h = halfLifeOf(e, s);
  if (h <= 0) return 1;
  return decayCurve(ageDays(e, now), h, s.floor);
}

/**
 * Decay compares an entry with the entries it competes with, not with the calendar: among the candidates of one
 * query or prompt, each decaying entry's multiplier is taken relative to that of the freshest decaying candidate,
 * which keeps its whole score. So an old lesson gives way to a newer lesson or bookmark on the same words, and is
 * never ranked below an evergreen entry for its age alone (an old lesson that alone answers keeps its place).
 * `freshest` is the highest multiplier among the decaying candidates (1 when there is none).
 */
export function relativeDecay(factor: number | undefined, freshest: number): number {
  return factor === undefined ? 1 : Math.min(1, factor / freshest);
}

/** The highest of the multipliers of the decaying candidates (undefined: evergreen), or 1 when none decays. */
export function freshestDecay(factors: Iterable<number | undefined>): number {
  let best = 0;
  for (const f of factors) if (f !== undefined && f > best) best = f;
  return best || 1;
}

/**
 * What the prompt index keeps of an entry for its decay (spec/hooks.md, "Decay"): the day its age counts from
 * (days since 1970-01-01 UTC) and its half-life in whole days, 0 when it does not decay (evergreen, undated, or
 * decay off). Both fit in 16 bits until the year 2149.
 */
export type DecayStamp = [day: number, halfLife: number];

export function decayStamp(e: DecayInput, s: DecaySettings): DecayStamp {
  const h = halfLifeOf(e, s);
  const at = Date.parse(e.updated ?? e.created ?? '');
  if (h <= 0 || Number.isNaN(at) || s.floor >= 1) return [0, 0];
  return [Math.min(0xffff, Math.max(0, Math.floor(at / DAY))), Math.min(0xffff, Math.max(1, Math.round(h)))];
}

/** The multiplier of a stamped entry on day `today` (days since 1970-01-01 UTC): decayFactor to the day. */
export function stampFactor(day: number, halfLife: number, floor: number, today: number): number {
  return halfLife > 0 ? decayCurve(Math.max(0, today - day), halfLife, floor) : 1;
}

/** Today as a decay stamp counts days. */
export function dayOf(now: number): number {
  return Math.floor(now / DAY);
}
