/**
 * Contract: an entry as the caches keep it (the catalog, the search rows): its fields without the body. Pure, and
 * free of the YAML parser, so a reader of cached entries never loads it.
 */
import type { Entry } from './entry.js';
import { linkedIds, stripLinksSection } from './links.js';

/**
 * An entry's fields without its body (bodies are read from the files when needed). `data` keeps only the fields
 * that have no typed property (session fields, user extras), so the cache stays small.
 */
export type EntryMeta = Omit<Entry, 'body'> & {
  bodyLength: number;
  /**
   * Entries the body links to (`[[…]]`, `[x](kb-….md)`) that no typed link names: graph edges for `get --links`
   * and search's neighbours, found once when the entry is read (absent when none).
   */
  bodyLinks?: string[];
};

/** The body's own links to other entries (not the generated Links section, not those `typed` covers). */
export function bodyLinksOf(id: string, body: string, typed: readonly { to: string }[]): string[] {
  if (!body.includes('[[') && !body.includes('](')) return [];
  const skip = new Set([id, ...typed.map((l) => l.to)]);
  return linkedIds(stripLinksSection(body)).filter((x) => !skip.has(x));
}

const TYPED_FIELDS = new Set(['id', 'title', 'type', 'tags', 'links', 'created', 'updated', 'url', 'applies_to', 'kernel', 'host', 'aliases', 'rules']);

/** An entry as the catalog keeps it: without its body, `data` without the typed fields. */
export function entryMetaOf(entry: Entry): EntryMeta {
  const { body, data, ...meta } = entry;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (!TYPED_FIELDS.has(k)) extra[k] = v;
  const bodyLinks = bodyLinksOf(entry.id, body, entry.links);
  return { ...meta, data: extra, bodyLength: body.length, ...(bodyLinks.length ? { bodyLinks } : {}) };
}

/**
 * Aliases with the entry's names added (spec/entry-format.md, "aliases"): the title (and, for a note renamed by
 * import or adopt, its old file name) go into Obsidian's `aliases`, so the quick switcher and link suggestions
 * find the note by the name people know, not by `kb-<id>-<slug>`. The user's aliases are kept, first and as
 * written; a name already there (in any case) is not added again. A value that is not a list of texts is
 * returned as it is (lint reports it; nothing is lost).
 */
export function aliasesWith(existing: unknown, names: readonly string[]): unknown {
  if (existing !== undefined && existing !== null && !(Array.isArray(existing) && existing.every((a) => typeof a === 'string'))) return existing;
  const out: string[] = [...((existing as string[] | undefined | null) ?? [])];
  const have = new Set(out.map((a) => a.trim().toLowerCase()));
  for (const n of names.map((x) => x.trim()).filter(Boolean)) {
    if (have.has(n.toLowerCase())) continue;
    have.add(n.toLowerCase());
    out.push(n);
  }
  return out;
}

/** A name's words, for comparing names: lower case, apostrophes dropped, any other run of non-letters one space. */
function nameWords(name: string): string {
  return name
    .toLowerCase()
    .replace(/['\u2019]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The aliases that say more than the title (search and the prompt hook index these: the title, which git-kb
 * also writes into `aliases`, is indexed once, as the title; so is an imported note's file name when it is the
 * title's words as a slug, `delete-lines-that-match` for "Delete Lines That Match").
 */
export function otherAliases(title: string, aliases: readonly string[]): string[] {
  const t = nameWords(title);
  return aliases.filter((a) => nameWords(a) !== t);
}
