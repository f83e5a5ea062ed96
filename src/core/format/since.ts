/**
 * Contract: the one `--since` date parser (spec/cli.md), for search and list alike: `YYYY-MM-DD` (a real
 * calendar day), a full ISO 8601 time, `today`, `yesterday`, or a span back from now (`7d`, `2w`, `3m` months,
 * `1y`). Returns the earliest time kept as an ISO string (compared with entries' `updated`/`created`); anything
 * else is a USAGE error naming --since.
 */
import { closest } from '../text/suggest.js';
import { KbError } from '../errors.js';

const DAY = 86_400_000;

function startOfDay(ms: number): Date {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** The earliest `updated` kept by `--since value`, as ISO 8601; USAGE when `value` is not a date. */
export function parseSince(value: string, now: Date = new Date()): string {
  const v = value.trim().toLowerCase();
  const bad = (): KbError => new KbError('USAGE', `--since ${JSON.stringify(value)} is not a date: use YYYY-MM-DD, today, yesterday, or a span such as 7d, 2w, 3m, 1y`);
  if (v === 'today') return startOfDay(now.getTime()).toISOString();
  if (v === 'yesterday') return startOfDay(now.getTime() - DAY).toISOString();
  const span = /^(\d{1,5})\s*([dwmy])$/.exec(v);
  if (span) {
    const n = Number(span[1]);
    const d = new Date(now.getTime());
    if (span[2] === 'd') d.setTime(d.getTime() - n * DAY);
    else if (span[2] === 'w') d.setTime(d.getTime() - n * 7 * DAY);
    else if (span[2] === 'm') d.setUTCMonth(d.getUTCMonth() - n);
    else d.setUTCFullYear(d.getUTCFullYear() - n);
    return startOfDay(d.getTime()).toISOString();
  }
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (day) {
    const [y, m, dd] = [Number(day[1]), Number(day[2]), Number(day[3])];
    const d = new Date(Date.UTC(y, m - 1, dd));
    if (d.getUTCFullYear() !== y || d.getUTCMonth() !== m - 1 || d.getUTCDate() !== dd) throw bad();
    return d.toISOString();
  }
  if (/^\d{4}-\d{2}-\d{2}t\d{2}:\d{2}/.test(v) && !Number.isNaN(Date.parse(value.trim()))) return new Date(Date.parse(value.trim())).toISOString();
  const near = /^[a-z]+$/.test(v) ? closest(v, ['today', 'yesterday']) : undefined;
  if (near) throw new KbError('USAGE', `${bad().message}; did you mean "${near}"?`);
  throw bad();
}

/** True when an entry's date (`updated` or `created`, any ISO form) is at or after `since` (from parseSince). */
export function isoAtLeast(date: string | undefined, since: string): boolean {
  const t = date ? Date.parse(date) : NaN;
  return !Number.isNaN(t) && t >= Date.parse(since);
}
