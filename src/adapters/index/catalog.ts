/**
 * Contract: the catalog is every entry's parsed front matter, derived from the files on disk and never stale.
 * Each call stats every entry file and re-parses only those whose stat data changed since the cached copy in
 * `.git/git-kb/catalog.v8`, so an entry written by git-kb, a plain-git commit, a pull and an uncommitted hand
 * edit are all seen by the next command. A corrupt or foreign cache is ignored and rebuilt.
 */
import { crypto, v8 } from '../system/builtins.js';
import fs from 'node:fs';
import path from 'node:path';
import type { Problem } from '../../core/format/entry.js';
import { messageWithoutPlace } from '../../core/errors.js';
import { idFromPath } from '../../core/format/schema.js';
import { entryMetaOf, type EntryMeta } from '../../core/format/meta.js';
import { currentNamesKey, idMapKey, writeIdMap } from './ids.js';
import { rememberWarm, warmValue } from './warm.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { readSmall } from '../system/read-bounded.js';
import { listEntryFiles, readAheadPath, readEntryText, sameStat, stateDir, type EntryFile } from '../store/layout.js';
import { readAhead } from '../store/read-ahead.js';

/** Bump when the cached shape changes. */
const CATALOG_VERSION = 9;

export type { EntryMeta } from '../../core/format/meta.js';

/** One file of the catalog: its stat data, its entry when it parses, and its own problems. */
export interface CatalogItem extends EntryFile {
  entry?: EntryMeta;
  problems: Problem[];
}

export interface Catalog {
  dir: string;
  items: CatalogItem[];
  /** Servable entries by id (for an id claimed twice, the first file by path). */
  byId: Map<string, EntryMeta>;
  /** Ids claimed by more than one file, with the files. */
  duplicates: Map<string, string[]>;
  /** A hash of every file's path and stat data: equal fingerprints mean equal data. */
  fingerprint: string;
  /** Paths re-read on this load (changed since the cache). */
  reparsed: string[];
}

interface CacheShape {
  v: number;
  /** One array per item: [path, id, mtimeMs, ctimeMs, size, ino, entry | 0, problems | 0] (see encodeItem). */
  items: unknown[][];
}

// NOTE: the cache is columnar (arrays, not objects): v8.serialize writes every property name of every object, so
// arrays of values make the file about half the size and twice as quick to read back at 10,000 entries.
const ENTRY_KEYS = ['id', 'title', 'type', 'tags', 'links', 'created', 'updated', 'url', 'appliesTo', 'kernel', 'host', 'aliases', 'rules', 'path', 'data', 'bodyLength', 'bodyLinks', 'typeWritten'] as const;

function encodeItem(i: CatalogItem): unknown[] {
  const e = i.entry as unknown as Record<string, unknown> | undefined;
  return [i.path, i.id, i.mtimeMs, i.ctimeMs, i.size, i.ino, e ? ENTRY_KEYS.map((k) => e[k]) : 0, i.problems.length ? i.problems : 0];
}

function decodeItem(a: unknown[]): CatalogItem {
  let entry: EntryMeta | undefined;
  if (Array.isArray(a[6])) {
    const e: Record<string, unknown> = {};
    ENTRY_KEYS.forEach((k, n) => {
      if ((a[6] as unknown[])[n] !== undefined) e[k] = (a[6] as unknown[])[n];
    });
    entry = e as unknown as EntryMeta;
  }
  return { path: a[0] as string, id: a[1] as string, mtimeMs: a[2] as number, ctimeMs: a[3] as number, size: a[4] as number, ino: a[5] as number, entry, problems: Array.isArray(a[7]) ? (a[7] as Problem[]) : [] };
}

function cacheFile(dir: string): string {
  return path.join(stateDir(dir), 'catalog.v8');
}

/** The largest catalog cache read (about 300 bytes an entry); a bigger or non-regular one is rebuilt. */
const CACHE_MAX_BYTES = 512 * 1024 * 1024;

function readCache(dir: string): Map<string, CatalogItem> {
  try {
    const bytes = readSmall(cacheFile(dir), CACHE_MAX_BYTES);
    if (!bytes) return new Map();
    const data = v8().deserialize(bytes) as CacheShape;
    if (data?.v !== CATALOG_VERSION || !Array.isArray(data.items)) return new Map();
    return new Map(data.items.map((a) => [a[0] as string, decodeItem(a)]));
  } catch {
    return new Map(); // missing or corrupt: rebuild
  }
}

/** Parses one entry file into a catalog item (never throws for bad content). */
export function readItem(dir: string, file: EntryFile, parseEntry: typeof import('../../core/format/entry.js').parseEntry, onText?: (item: CatalogItem, text: string) => void, bytes?: Buffer): CatalogItem {
  let text: string;
  try {
    text = readEntryText(dir, file.path, bytes);
  } catch (err) {
    const e = err as { message: string; data?: { line?: number } };
    return { ...file, problems: [{ rule: 'unreadable', message: messageWithoutPlace(e), file: file.path, line: e.data?.line ?? 1 }] };
  }
  const { entry, problems } = parseEntry(text, file.path);
  if (!entry) return { ...file, problems };
  const item: CatalogItem = { ...file, entry: entryMetaOf(entry), problems };
  onText?.(item, text);
  return item;
}

/** Past this many files to parse, they are read ahead on a worker thread (a worker costs about 20 ms to start). */
const READ_AHEAD_MIN = 2000;

/** Loads the catalog, refreshing the cache when anything changed. */
export interface LoadOptions {
  writeCache?: boolean;
  /** Told how far the parsing of changed files got. */
  onProgress?: (done: number, total: number) => void;
  /** Told how many files this load parses, before it parses them. */
  onParse?: (count: number) => void;
  /** Given the text of each servable file parsed on this load (a search rebuild indexes it without reading it again). */
  onText?: (item: CatalogItem, text: string) => void;
}

export async function loadCatalog(dir: string, options: LoadOptions = {}): Promise<Catalog> {
  const kept = await warmValue<Catalog>(dir, 'catalog');
  if (kept) return kept;
  const namesKey = currentNamesKey(dir); // before the listing: see writeIdMap
  const files = listEntryFiles(dir);
  // The listing is the scan the id map is made from: repair a missing or stale map while it is at hand.
  if (options.writeCache !== false && idMapKey(dir) !== namesKey) writeIdMap(dir, namesKey, files);
  const cached = readCache(dir);
  const reparsed: string[] = [];
  const stale = files.filter((f) => {
    const c = cached.get(f.path);
    return !(c && sameStat(c, f));
  });
  options.onParse?.(stale.length);
  // NOTE: the YAML parser is loaded only when some file changed; an unchanged repo never pays for it.
  const parse = stale.length > 0 ? (await import('../../core/format/entry.js')).parseEntry : undefined;
  // Many files to read (a rebuild): their bytes are read ahead on a worker thread, in the order they are parsed.
  const ahead = stale.length >= READ_AHEAD_MIN ? readAhead(stale.map((f) => readAheadPath(dir, f.path))) : undefined;
  let items: CatalogItem[];
  try {
    items = files.map((f) => {
      const c = cached.get(f.path);
      if (c && sameStat(c, f)) return c.id === f.id ? c : { ...c, id: f.id };
      reparsed.push(f.path);
      if (options.onProgress && (reparsed.length % 250 === 0 || reparsed.length === stale.length)) options.onProgress(reparsed.length, stale.length);
      return readItem(dir, f, parse!, options.onText, ahead?.next());
    });
  } finally {
    ahead?.close();
  }
  items.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if ((reparsed.length > 0 || cached.size !== items.length) && options.writeCache !== false) {
    try {
      writeFileAtomic(cacheFile(dir), v8().serialize({ v: CATALOG_VERSION, items: items.map(encodeItem) } satisfies CacheShape), { fsync: false });
    } catch {
      // NOTE: a read-only data repo still serves; it just re-parses next time.
    }
  }
  const byId = new Map<string, EntryMeta>();
  const claims = new Map<string, string[]>();
  for (const item of items) {
    // A file whose name carries no id claims the id of its front matter (a copy named otherwise: layout.ts,
    // claimedId), so an id held twice is a duplicate whatever the second file is called.
    const id = item.entry?.id ?? (idFromPath(item.path) ? undefined : item.id || undefined);
    if (!id) continue;
    const list = claims.get(id) ?? [];
    list.push(item.path);
    claims.set(id, list);
    if (item.entry && !byId.has(id)) byId.set(id, item.entry);
  }
  const duplicates = new Map([...claims].filter(([, paths]) => paths.length > 1));
  const hash = crypto().createHash('sha1');
  for (const i of items) hash.update(`${i.path}\0${i.mtimeMs}\0${i.ctimeMs}\0${i.size}\0${i.ino}\n`);
  const catalog = { dir, items, byId, duplicates, fingerprint: hash.digest('hex'), reparsed };
  rememberWarm(dir, 'catalog', { ...catalog, reparsed: [] });
  return catalog;
}

/** Every problem in the catalog: each file's own, duplicate ids, and links to ids that do not exist. */
export function catalogProblems(catalog: Catalog): Problem[] {
  const problems: Problem[] = [];
  for (const item of catalog.items) {
    problems.push(...item.problems);
    const e = item.entry;
    if (!e) continue;
    for (const link of e.links) {
      if (!catalog.byId.has(link.to)) problems.push({ rule: 'link-dangling', message: `link ${link.rel} → ${link.to}: no entry has that id`, file: item.path, line: 2, id: e.id });
    }
  }
  for (const [id, paths] of catalog.duplicates) {
    for (const p of paths) problems.push({ rule: 'id-duplicate', message: `id ${id} is claimed by ${paths.length} files: ${paths.join(', ')}`, file: p, line: 2, id });
  }
  return problems;
}

type Dated = Pick<EntryMeta, 'id' | 'created' | 'updated'>;

/** The order of newestFirst: negative when `a` comes first (newer by `updated`, then `created`, then id). */
export function newerFirst(a: Dated, b: Dated): number {
  const ka = a.updated ?? a.created ?? '';
  const kb = b.updated ?? b.created ?? '';
  return ka < kb ? 1 : ka > kb ? -1 : a.id < b.id ? 1 : -1;
}

/** Entries newest first (by `updated`, then `created`, then id). */
export function newestFirst<E extends Dated>(entries: Iterable<E>): E[] {
  return [...entries].sort(newerFirst);
}
