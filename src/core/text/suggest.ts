/**
 * Contract: "did you mean" for a value outside a closed set (`--type decison`, `--link inspierd_by:…`): the one
 * error a bad choice gets, naming the set and, when one is close, the likely one. Pure.
 */
import { KbError } from '../errors.js';
import { TYPES, type EntryType } from '../format/schema.js';

/** Edit distance (Levenshtein) between two short strings. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The choice closest to `value` (case-insensitive), when it is within a third of its length (at least 2) edits. */
export function closest(value: string, choices: readonly string[]): string | undefined {
  const v = value.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of choices) {
    const d = c.startsWith(v) && v.length >= 3 ? 0 : distance(v, c);
    if (!best || d < best.d) best = { c, d };
  }
  return best && best.d <= Math.max(2, Math.floor(best.c.length / 3)) ? best.c : undefined;
}

/**
 * USAGE for `value` outside `choices`: `[<where>: ]unknown <what> "<value>"; one of: …; did you mean "<closest>"?`
 */
export function unknownChoice(what: string, value: string, choices: readonly string[], where?: string): KbError {
  const near = closest(value, choices);
  return new KbError('USAGE', `${where ? `${where}: ` : ''}unknown ${what} "${value}"; one of: ${choices.join(', ')}${near ? `; did you mean "${near}"?` : ''}`);
}

/**
 * The known type a front matter `type` most likely meant (`lesson` -> lesson_learned, `Decision` -> decision,
 * `lesson-learned` -> lesson_learned), or undefined when none is close: lint's hint and list's warning.
 */
export function nearestType(written: string): EntryType | undefined {
  const v = written.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (!v) return undefined;
  return (closest(v, TYPES) ?? (v.length > 3 && v.endsWith('s') ? closest(v.slice(0, -1), TYPES) : undefined)) as EntryType | undefined;
}
