/**
 * Contract: an entry as the caches keep it (the catalog, the search rows): its fields without the body. Pure, and
 * free of the YAML parser, so a reader of cached entries never loads it.
 */
import type { Entry } from './entry.js';

/**
 * An entry's fields without its body (bodies are read from the files when needed). `data` keeps only the fields
 * that have no typed property (session fields, user extras), so the cache stays small.
 */
export type EntryMeta = Omit<Entry, 'body'> & { bodyLength: number };

const TYPED_FIELDS = new Set(['id', 'title', 'type', 'tags', 'links', 'created', 'updated', 'url', 'applies_to', 'kernel', 'host', 'aliases', 'rules']);

/** An entry as the catalog keeps it: without its body, `data` without the typed fields. */
export function entryMetaOf(entry: Entry): EntryMeta {
  const { body, data, ...meta } = entry;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) if (!TYPED_FIELDS.has(k)) extra[k] = v;
  return { ...meta, data: extra, bodyLength: body.length };
}
