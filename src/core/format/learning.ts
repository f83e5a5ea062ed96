/**
 * Contract: the learning fields of the entry format (spec/entry-format.md, spec/memory.md): `pattern_key`, a short
 * slug naming the lesson so a recurrence finds it; `recurrences`, how many times it was seen (absent means once);
 * `seen`, the dates it was seen on; and the log of sightings a recurrence appends to the body (`Seen again DATE:`
 * blocks), which a kernel entry's prompt text leaves out.
 */
import { findLinksSection } from './links.js';

const PATTERN_KEY = /^[a-z0-9][a-z0-9-]{0,63}$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** True when `key` is a pattern key: lowercase letters, digits and `-`, at most 64, starting with a letter or digit. */
export function isValidPatternKey(key: unknown): key is string {
  return typeof key === 'string' && PATTERN_KEY.test(key);
}

/** How many times an entry's lesson was seen: its `recurrences`, or 1. */
export function recurrenceCount(e: { data: Record<string, unknown> }): number {
  const n = e.data.recurrences;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1;
}

/** The entry's pattern key, when it has one. */
export function patternKeyOf(e: { data: Record<string, unknown> }): string | undefined {
  return typeof e.data.pattern_key === 'string' ? e.data.pattern_key : undefined;
}

/** Reports each problem of the learning fields of front matter `d` through `problem(rule, message, field)`. */
export function checkLearningFields(d: Record<string, unknown>, problem: (rule: string, message: string, field: string) => void): void {
  if (d.pattern_key !== undefined && !isValidPatternKey(d.pattern_key)) {
    problem('pattern-key-invalid', `"pattern_key" must be a short slug (lowercase letters, digits and -, e.g. pnpm-frozen-lockfile), got ${JSON.stringify(d.pattern_key)}`, 'pattern_key');
  }
  if (d.recurrences !== undefined && !(typeof d.recurrences === 'number' && Number.isInteger(d.recurrences) && d.recurrences >= 1)) {
    problem('recurrences-invalid', `"recurrences" must be a whole number of at least 1, got ${JSON.stringify(d.recurrences)}`, 'recurrences');
  }
  if (d.seen !== undefined && !(Array.isArray(d.seen) && d.seen.every((s) => typeof s === 'string' && DAY.test(s)))) {
    problem('seen-invalid', '"seen" must be a list of dates (YYYY-MM-DD)', 'seen');
  }
}

/** The line that opens one logged sighting. */
const SEEN_AGAIN = /^Seen again \d{4}-\d{2}-\d{2}[:.][ \t]*$/m;

/** One logged sighting of a lesson on `day` (YYYY-MM-DD), with what was written about it then. */
export function seenAgainBlock(day: string, context: string): string {
  return context.trim() ? `Seen again ${day}:\n\n${context.trim()}` : `Seen again ${day}.`;
}

/**
 * A body without its log of sightings: everything from the first `Seen again DATE:` line on, up to the generated
 * Links section (which stays). What the prompt shows of a kernel lesson: the lesson, not its history.
 */
export function withoutSightings(body: string): string {
  const m = SEEN_AGAIN.exec(body);
  if (!m) return body;
  const head = body.slice(0, m.index).trimEnd();
  const section = findLinksSection(body);
  if (!section) return head;
  const lines = body.split('\n');
  const links = lines.slice(section.open, section.close === undefined ? undefined : section.close + 1).join('\n');
  return head ? `${head}\n\n${links}` : links;
}
