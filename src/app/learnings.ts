/**
 * Contract: recurring lessons (spec/memory.md, "Learnings"). An `add` with a pattern key that an entry already has
 * creates nothing new: the recurrence is recorded on that entry (its `recurrences` count goes up, today joins its
 * `seen` dates, the new context is appended to its body under a dated line), validated and committed like any
 * write. Runs inside the caller's write transaction. `prune` folds the duplicates it deletes into the copy it keeps
 * the same way (foldDuplicates).
 */
import type { EntryMeta } from '../adapters/index/catalog.js';
import { loadCatalog } from '../adapters/index/catalog.js';
import { readEntryText } from '../adapters/store/layout.js';
import { refuseSecrets, type WriteTransaction } from '../adapters/write/transaction.js';
import { splitEntry, updateEntryText } from '../core/format/entry.js';
import { seenAgainBlock } from '../core/format/learning.js';
import { findLinksSection, sectionTargets, sectionTitles, stripLinksSection, withLinksSection } from '../core/format/links.js';
import { nowStamp, validateEntryText } from './fields.js';
import { refuseForbidden } from './guard.js';
import { patternKeyOf, recurrenceCount } from './memory.js';

export interface RecurrenceResult {
  id: string;
  path: string;
  commit: string;
  recurred: true;
  count: number;
}

/** The entry of `entries` that carries `key`, if any (the oldest, should two claim it). */
export function patternKeyHolder(entries: Iterable<EntryMeta>, key: string): EntryMeta | undefined {
  return [...entries].filter((e) => patternKeyOf(e) === key).sort((a, b) => (a.id < b.id ? -1 : 1))[0];
}

/** The entry of the repo that carries `key`, if any (the oldest, should two claim it). */
export async function entryWithPatternKey(dir: string, key: string): Promise<EntryMeta | undefined> {
  return patternKeyHolder((await loadCatalog(dir)).byId.values(), key);
}

/** A body as two duplicates share it: lowercased, every run of white space one space, trimmed. */
export function normaliseBody(body: string): string {
  return body.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** The days an entry's lesson was seen: its `seen`, else its creation day. */
function seenDays(e: EntryMeta, fallback: string): string[] {
  return Array.isArray(e.data.seen) ? (e.data.seen as string[]) : [(e.created ?? fallback).slice(0, 10)];
}

/**
 * `e`'s text with sightings added to its recurrence history: each `{day, context}` appended to the body as a
 * `Seen again` block (above the generated Links section, which stays last and in step with `links:`), `recurrences`
 * set to `count`, `seen` to `seen`, `updated` to now; validated, secret-scanned and forbidden-host-checked.
 */
async function withSightings(dir: string, e: EntryMeta, sightings: { day: string; context: string }[], count: number, seen: string[], ids: Set<string>, now: Date): Promise<string> {
  const text = readEntryText(dir, e.path);
  const old = splitEntry(text, e.path).body;
  let body = [stripLinksSection(old).trimEnd(), ...sightings.map((s) => seenAgainBlock(s.day, s.context))].join('\n\n');
  if (findLinksSection(old)) {
    const known = sectionTargets(old);
    body = withLinksSection(body, e.links, (id) => known.get(id), sectionTitles(old));
  }
  const next = updateEntryText(text, e.path, { recurrences: count, seen, updated: nowStamp(now) }, body);
  validateEntryText(next, e.path, (x) => ids.has(x));
  refuseSecrets(next, e.path);
  await refuseForbidden(dir, [{ text: next, where: e.path, host: e.host }]);
  return next;
}

/** Records one more sighting of `e`'s lesson, with `context` (the would-be new entry's body), in one commit. */
export async function recordRecurrence(dir: string, tx: WriteTransaction, e: EntryMeta, context: string, ids: Set<string>, now: Date): Promise<RecurrenceResult> {
  const file = await recurrenceFile(dir, e, context, ids, now);
  const commit = await tx.commit([{ path: file.path, content: file.content }], `recur ${e.id}: ${e.title} (seen ${file.count} times)`);
  return { id: e.id, path: e.path, commit, recurred: true, count: file.count };
}

/** The new text of `e` with one more sighting of its lesson (`context`: the would-be new entry's body), validated. */
export async function recurrenceFile(dir: string, e: EntryMeta, context: string, ids: Set<string>, now: Date): Promise<{ path: string; content: string; count: number }> {
  const day = nowStamp(now).slice(0, 10);
  const count = recurrenceCount(e) + 1;
  const content = await withSightings(dir, e, [{ day, context }], count, [...seenDays(e, day), day], ids, now);
  return { path: e.path, content, count };
}

/**
 * The text of `kept` with its duplicates `copies` folded into its recurrence history (prune): their counts added to
 * its `recurrences`, their days to its `seen`, and each copy whose body says something else (normalised, Links
 * sections aside) appended as a `Seen again` block of the day it was written. The caller deletes the copies.
 */
export async function foldDuplicates(dir: string, kept: EntryMeta, copies: EntryMeta[], ids: Set<string>, now: Date): Promise<string> {
  const day = nowStamp(now).slice(0, 10);
  const bodyOf = (e: EntryMeta): string => stripLinksSection(splitEntry(readEntryText(dir, e.path), e.path).body);
  const own = normaliseBody(bodyOf(kept));
  const dayOf = (e: EntryMeta): string => (e.updated ?? e.created ?? day).slice(0, 10);
  const sightings = [...copies]
    .sort((a, b) => (dayOf(a) < dayOf(b) ? -1 : dayOf(a) > dayOf(b) ? 1 : a.id < b.id ? -1 : 1))
    .map((e) => ({ day: dayOf(e), context: bodyOf(e) }))
    .filter((s) => normaliseBody(s.context) && normaliseBody(s.context) !== own);
  const count = copies.reduce((n, e) => n + recurrenceCount(e), recurrenceCount(kept));
  const seen = [...new Set([...seenDays(kept, day), ...copies.flatMap((e) => seenDays(e, day))])].sort();
  return withSightings(dir, kept, sightings, count, seen, ids, now);
}
