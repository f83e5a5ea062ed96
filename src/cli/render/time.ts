/**
 * Contract: how human output shows a time: in the local time zone (TZ, else the system's), with its UTC offset,
 * as `2026-12-01 13:04 +0100`; a date alone (`YYYY-MM-DD`, as an entry may hold) is shown as it is. Text that is
 * not a time is shown unchanged. JSON output keeps the stored values.
 */

const pad = (n: number, w = 2): string => String(Math.abs(n)).padStart(w, '0');

/** A time as `YYYY-MM-DD HH:MM +HHMM` in the local zone. */
export function localTime(value: string | undefined): string {
  if (!value) return '';
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return value;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return value;
  const off = -d.getTimezoneOffset();
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())} ${off < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(off) / 60))}${pad(Math.abs(off) % 60)}`;
}

/** The local date of a time (`YYYY-MM-DD`). */
export function localDate(value: string | undefined): string {
  return localTime(value).slice(0, 10);
}
