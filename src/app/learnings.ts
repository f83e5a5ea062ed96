/**
 * Contract: recurring lessons (spec/memory.md, "Learnings"). An `add` with a pattern key that an entry already has
 * creates nothing new: the recurrence is recorded on that entry (its `recurrences` count goes up, today joins its
 * `seen` dates, the new context is appended to its body under a dated line), validated and committed like any
 * write. Runs inside the caller's write transaction.
 */
import type { EntryMeta } from '../adapters/index/catalog.js';
import { loadCatalog } from '../adapters/index/catalog.js';
import { readEntryText } from '../adapters/store/layout.js';
import { refuseSecrets, type WriteTransaction } from '../adapters/write/transaction.js';
import { splitEntry, updateEntryText } from '../core/format/entry.js';
import { findLinksSection, sectionTargets, stripLinksSection, withLinksSection } from '../core/format/links.js';
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

/** The new text of `e` with one more sighting of its lesson (`context`: the would-be new entry's body), validated. */
export async function recurrenceFile(dir: string, e: EntryMeta, context: string, ids: Set<string>, now: Date): Promise<{ path: string; content: string; count: number }> {
  const text = readEntryText(dir, e.path);
  const day = nowStamp(now).slice(0, 10);
  const count = recurrenceCount(e) + 1;
  const earlier = Array.isArray(e.data.seen) ? (e.data.seen as string[]) : [(e.created ?? day).slice(0, 10)];
  const old = splitEntry(text, e.path).body;
  const added = context.trim() ? `Seen again ${day}:\n\n${context.trim()}` : `Seen again ${day}.`;
  // The new sighting goes above the generated Links section, which stays last and in step with `links:`.
  let body = `${stripLinksSection(old).trimEnd()}\n\n${added}`;
  if (findLinksSection(old)) {
    const known = sectionTargets(old);
    body = withLinksSection(body, e.links, (id) => known.get(id));
  }
  const next = updateEntryText(text, e.path, { recurrences: count, seen: [...earlier, day], updated: nowStamp(now) }, body);
  validateEntryText(next, e.path, (x) => ids.has(x));
  refuseSecrets(next, e.path);
  await refuseForbidden(dir, [{ text: next, where: e.path, host: e.host }]);
  return { path: e.path, content: next, count };
}

/** Records one more sighting of `e`'s lesson, with `context` (the would-be new entry's body), in one commit. */
export async function recordRecurrence(dir: string, tx: WriteTransaction, e: EntryMeta, context: string, ids: Set<string>, now: Date): Promise<RecurrenceResult> {
  const file = await recurrenceFile(dir, e, context, ids, now);
  const commit = await tx.commit([{ path: file.path, content: file.content }], `recur ${e.id}: ${e.title} (seen ${file.count} times)`);
  return { id: e.id, path: e.path, commit, recurred: true, count: file.count };
}
