/**
 * Contract: the one tag rule (spec/entry-format.md, "Tags"), Obsidian's: a tag is letters, digits, `_`, `-` and
 * `/`, with at least one character that is not a digit. Tags are written lower-case with spaces as `-` (a
 * leading `#` dropped); `normalizeTag` maps a typed tag to that form or says why it cannot; `tagProblem` says
 * why a stored tag is not in that form (lint). Used by add, edit, import and lint alike.
 */
import { KbError } from '../errors.js';

const TAG_RE = /^[\p{L}\p{N}_/-]+$/u;

/** Why `tag` (already in written form) is not a valid tag, or undefined. */
function invalidWhy(tag: string): string | undefined {
  if (!tag) return 'is empty';
  if (!TAG_RE.test(tag)) return 'may hold only letters, digits, "_", "-" and "/"';
  if (/^\p{N}+$/u.test(tag.replace(/[_/-]/g, '')) || /^[\p{N}_/-]+$/u.test(tag)) return 'needs at least one letter (all digits is not a tag)';
  return undefined;
}

/**
 * A typed tag in written form, unchecked: lower case, spaces as `-`, no leading `#`. A `--tag` filter is read so
 * ("Big Data" finds the entries add stored with big-data); one that is no valid tag simply matches nothing.
 */
export function writtenTag(raw: string): string {
  return raw.trim().replace(/^#+/, '').toLowerCase().replace(/\s+/g, '-');
}

/** A typed tag in its written form (writtenTag), or a reason it cannot be one. */
export function normalizeTag(raw: string): { tag: string } | { why: string } {
  const tag = writtenTag(raw);
  const why = invalidWhy(tag);
  return why ? { why } : { tag };
}

/** Typed tags in written form, de-duplicated; USAGE naming the first tag that cannot be mapped. */
export function normalizeTags(list: string[]): string[] {
  const out: string[] = [];
  for (const raw of list) {
    const r = normalizeTag(raw);
    if ('why' in r) throw new KbError('USAGE', `tag ${JSON.stringify(raw)} ${r.why} (a tag is written lower case, with spaces as -)`);
    if (!out.includes(r.tag)) out.push(r.tag);
  }
  return out;
}

/** Why a stored tag is not in written form (capitals, spaces, other characters), or undefined. */
export function tagProblem(tag: string): string | undefined {
  const why = invalidWhy(tag);
  if (why) return `tag ${JSON.stringify(tag)} ${why}`;
  if (tag !== tag.toLowerCase()) return `tag ${JSON.stringify(tag)} has capitals (tags are lower case)`;
  return undefined;
}
