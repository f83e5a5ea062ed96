/**
 * Contract: turning command-line field values into entry fields, and refusing a write whose entry would not
 * pass the format (every problem listed with its rule), before anything touches the disk.
 */
import { formatProblems, KbError } from '../core/errors.js';
import { ACTIVITIES, parseEntry, RELS, type Link, type Rule } from '../core/format/entry.js';
import { normalizeTags } from '../core/format/tags.js';
import { unknownChoice } from '../core/text/suggest.js';

/** Splits "a,b, c" (or repeated values) into a clean, de-duplicated list. */
export function splitList(values: string | string[] | undefined): string[] {
  if (values === undefined) return [];
  const all = (Array.isArray(values) ? values : [values]).flatMap((v) => v.split(','));
  return [...new Set(all.map((v) => v.trim()).filter(Boolean))];
}

/** `--applies-to` as typed ("writing, coding" or repeated), each an activity; USAGE naming the closest for one that is not. */
export function activityList(values: string | string[] | undefined): string[] {
  const list = splitList(values).map((a) => a.toLowerCase());
  for (const a of list) if (!(ACTIVITIES as readonly string[]).includes(a)) throw unknownChoice('activity', a, ACTIVITIES, '--applies-to');
  return list;
}

/** Tags as typed ("Foo Bar,big" or repeated) in written form (src/core/format/tags.ts); USAGE for one that cannot be. */
export function tagList(values: string | string[] | undefined): string[] {
  return normalizeTags(splitList(values));
}

/** A --title trimmed, refused (USAGE) when it holds a line break (check secrets first: this message is not masked). */
export function oneLineTitle(title: string): string {
  const t = title.trim();
  // NOTE: U+2028, U+2029 and U+0085 are line breaks too (YAML and editors break the line there).
  if (/[\r\n\u2028\u2029\u0085]/.test(t)) throw new KbError('USAGE', 'the title must be one line: --title holds a line break (put the rest in the body)');
  return t;
}

/** Parses `rel:id` link arguments. */
export function parseLinks(values: string[] | undefined): Link[] {
  return (values ?? []).map((v) => {
    const m = /^([a-z_]+):(\S+)$/.exec(v.trim());
    if (!m) throw new KbError('USAGE', `--link "${v}" must be rel:id, e.g. relates_to:kb-0042 (rels: ${RELS.join(', ')})`);
    // A rel the format does not know is a bad flag value (USAGE), as an unknown --type is; in a file, lint's INVALID_ENTRY.
    if (!(RELS as readonly string[]).includes(m[1]!)) throw unknownChoice('rel', m[1]!, RELS, `--link "${v}"`);
    return { rel: m[1] as Link['rel'], to: m[2]! };
  });
}

/**
 * Parses `--rule` arguments into kernel prose rules (spec/entry-format.md, "rules"): `PATTERN => MESSAGE`, the
 * pattern with the default flags (`i`), or `/PATTERN/FLAGS => MESSAGE` to give flags (`//` for none: case-sensitive).
 * Split at the first ` => `. Whether the pattern is safe is the entry check's business (rule-invalid, exit 5).
 */
export function parseRules(values: string[] | undefined): Rule[] {
  return (values ?? []).map((v) => {
    const at = v.indexOf(' => ');
    const left = at < 0 ? '' : v.slice(0, at).trim();
    const message = at < 0 ? '' : v.slice(at + 4).trim();
    if (!left || !message) throw new KbError('USAGE', `--rule "${v}" must be PATTERN => MESSAGE, e.g. --rule '\\bleverage\\b => Say "use".' (or /PATTERN/FLAGS => MESSAGE)`);
    const slashed = /^\/(.+)\/([a-z]*)$/s.exec(left);
    return slashed ? { pattern: slashed[1]!, message, flags: slashed[2]! } : { pattern: left, message };
  });
}

/** Checks an entry's full text as it would be written; throws INVALID_ENTRY listing every problem. */
export function validateEntryText(text: string, file: string, idExists: (id: string) => boolean): void {
  // NOTE: a lone UTF-16 surrogate (an MCP client's "\ud800") is no character: written as UTF-8 it would become U+FFFD.
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.exec(text);
  if (lone) {
    const line = text.slice(0, lone.index).split('\n').length;
    throw new KbError('INVALID_ENTRY', `invalid entry, nothing written:\n${file}:${line}: a lone UTF-16 surrogate (U+${lone[0].charCodeAt(0).toString(16).toUpperCase()}) is not text [encoding]`, { problems: [{ rule: 'encoding', message: 'a lone UTF-16 surrogate is not text', file, line }] });
  }
  const { problems } = parseEntry(text, file, { idExists });
  if (problems.length > 0) {
    throw new KbError('INVALID_ENTRY', `invalid entry, nothing written:\n${formatProblems(problems)}`, { problems });
  }
}

/** The current time as the entry format writes it (ISO 8601, seconds, UTC). */
export function nowStamp(now = new Date()): string {
  return now.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
