/**
 * Contract: turning command-line field values into entry fields, and refusing a write whose entry would not
 * pass the format (every problem listed with its rule), before anything touches the disk.
 */
import { formatProblems, KbError } from '../core/errors.js';
import { parseEntry, RELS, type Link } from '../core/format/entry.js';

/** Splits "a,b, c" (or repeated values) into a clean, de-duplicated list. */
export function splitList(values: string | string[] | undefined): string[] {
  if (values === undefined) return [];
  const all = (Array.isArray(values) ? values : [values]).flatMap((v) => v.split(','));
  return [...new Set(all.map((v) => v.trim()).filter(Boolean))];
}

/** Parses `rel:id` link arguments. */
export function parseLinks(values: string[] | undefined): Link[] {
  return (values ?? []).map((v) => {
    const m = /^([a-z_]+):(\S+)$/.exec(v.trim());
    if (!m) throw new KbError('USAGE', `--link "${v}" must be rel:id, e.g. relates_to:kb-0042 (rels: ${RELS.join(', ')})`);
    return { rel: m[1] as Link['rel'], to: m[2]! };
  });
}

/** Checks an entry's full text as it would be written; throws INVALID_ENTRY listing every problem. */
export function validateEntryText(text: string, file: string, idExists: (id: string) => boolean): void {
  const { problems } = parseEntry(text, file, { idExists });
  if (problems.length > 0) {
    throw new KbError('INVALID_ENTRY', `invalid entry, nothing written:\n${formatProblems(problems)}`, { problems });
  }
}

/** The current time as the entry format writes it (ISO 8601, seconds, UTC). */
export function nowStamp(now = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
