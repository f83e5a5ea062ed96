/**
 * Contract: finding entries by id without parsing the whole repo: file names carry ids, so one directory
 * listing answers "which file is kb-x" and "does kb-x exist". Two files claiming one id is an error here.
 * `locateEntryFile` answers from the id map (adapters/index/ids.ts) when it is current and its path checks out,
 * reading no folder; anything else (no map, a stale one, a path gone, an id it lacks) falls back to the listing,
 * which repairs the map.
 */
import fs from 'node:fs';
import { KbError } from '../core/errors.js';
import { idFromFileName, idFromPath, isValidId } from '../core/format/schema.js';
import { closeIdMap, currentNamesKey, openIdMap, pathsInMap, writeIdMap } from '../adapters/index/ids.js';
import { entryFolderNames, isEntryFilePath, listEntryFiles, readEntryText, statData, type EntryFile } from '../adapters/store/layout.js';
import { splitEntry } from '../core/format/entry.js';

/** Every entry file by the id its name claims. */
export function filesById(dir: string): Map<string, EntryFile[]> {
  const map = new Map<string, EntryFile[]>();
  for (const f of listEntryFiles(dir, { withStat: false })) {
    if (!f.id) continue;
    const list = map.get(f.id);
    if (list) list.push(f);
    else map.set(f.id, [f]);
  }
  return map;
}

/**
 * Every entry file by the id its name claims, from a fresh listing, and the id map rewritten from it (under the
 * key taken before the listing, so a change made meanwhile is not papered over).
 */
export function scanFilesById(dir: string): Map<string, EntryFile[]> {
  const key = currentNamesKey(dir);
  const map = filesById(dir);
  writeIdMap(dir, key, [...map.values()].flat());
  return map;
}

/** One lookup session: the names key taken once, the listing made at most once. */
export interface Locator {
  dir: string;
  key?: string;
  /** Set once the map proved missing or stale. */
  noMap?: boolean;
  scanned?: Map<string, EntryFile[]>;
}

/** The file of `id` as the current id map gives it, checked on disk; undefined when the map cannot say. */
function fromMap(loc: Locator, id: string): EntryFile | undefined {
  if (loc.noMap) return undefined;
  const map = openIdMap(loc.dir);
  let paths: string[] = [];
  try {
    if (map && map.key === (loc.key ??= currentNamesKey(loc.dir))) paths = pathsInMap(map, id);
    else loc.noMap = true;
  } finally {
    if (map) closeIdMap(map);
  }
  if (paths.length !== 1) return undefined; // unknown here, or claimed twice: the listing tells
  const p = paths[0]!;
  if (!isEntryFilePath(p) || idFromPath(p) !== id) return undefined;
  const st = fs.statSync(`${loc.dir}/${p}`, { throwIfNoEntry: false });
  if (!st?.isFile()) return undefined; // renamed or deleted since: the map was stale
  return { path: p, id, ...statData(st) };
}

/**
 * The one file of entry `id`, like findEntryFile, but from the id map when it can answer (one file read, no
 * folder listed); otherwise from one listing per Locator, which repairs the map.
 */
export function locateEntryFile(loc: Locator, id: string): EntryFile {
  if (!isValidId(id)) throw new KbError('USAGE', `"${id}" is not an entry id (ids look like kb-0042 or kb-t3x9k2a7q1)`);
  if (!loc.scanned) {
    const hit = fromMap(loc, id);
    if (hit) return hit;
  }
  loc.scanned ??= scanFilesById(loc.dir);
  return findEntryFile(loc.dir, id, loc.scanned);
}

/** The one file of entry `id`; NOT_FOUND or CONFLICT (two files) otherwise. */
export function findEntryFile(dir: string, id: string, index: Map<string, EntryFile[]> = filesById(dir)): EntryFile {
  if (!isValidId(id)) throw new KbError('USAGE', `"${id}" is not an entry id (ids look like kb-0042 or kb-t3x9k2a7q1)`);
  const files = index.get(id);
  if (!files || files.length === 0) throw new KbError('NOT_FOUND', `no entry with id ${id}; "git-kb search" or "git-kb list" shows what exists`, { id });
  if (files.length > 1) {
    throw new KbError('CONFLICT', `id ${id} is claimed by ${files.length} files: ${files.map((f) => f.path).join(', ')}; give one of them a new id (git-kb lint lists all such)`, { id, files: files.map((f) => f.path) });
  }
  return files[0]!;
}

/** The ids claimed by file names in the entry folders (names only: no stat, no parsing). */
export function idSet(dir: string): Set<string> {
  const ids = new Set<string>();
  for (const { names } of entryFolderNames(dir)) {
    for (const n of names) {
      const id = idFromFileName(n);
      if (id) ids.add(id);
    }
  }
  return ids;
}

/** An id's file path from a `filesById` index (the first file when two claim it), for writing links to it. */
/** Which ids exist and the file of each, for a write that adds one entry (close it when done). */
export interface IdIndex {
  has: (id: string) => boolean;
  pathOf: (id: string) => string | undefined;
  close: () => void;
}

/**
 * The ids of the repo from the id map when it is current (a few buckets read, no folder listed: a current map
 * names exactly the files the folders hold), else from one listing, which repairs the map.
 */
export function idIndex(dir: string): IdIndex {
  const map = openIdMap(dir);
  if (map && map.key === currentNamesKey(dir)) {
    const seen = new Map<string, string[]>();
    const paths = (id: string): string[] => {
      let p = seen.get(id);
      if (!p) seen.set(id, (p = pathsInMap(map, id)));
      return p;
    };
    return { has: (id) => paths(id).length > 0, pathOf: (id) => (paths(id).length === 1 ? paths(id)[0] : undefined), close: () => closeIdMap(map) };
  }
  if (map) closeIdMap(map);
  const files = scanFilesById(dir);
  return { has: (id) => files.has(id), pathOf: pathLookup(files), close: () => undefined };
}

export function pathLookup(index: Map<string, EntryFile[]>): (id: string) => string | undefined {
  return (id) => index.get(id)?.[0]?.path;
}

/**
 * The title of the entry with an id, read from its file (for the few targets of one entry's links: the display
 * text of its Links section items); undefined when the file is unknown or does not parse.
 */
export function titleLookup(dir: string, pathOf: (id: string) => string | undefined): (id: string) => string | undefined {
  const seen = new Map<string, string | undefined>();
  return (id) => {
    if (seen.has(id)) return seen.get(id);
    let title: string | undefined;
    const p = pathOf(id);
    try {
      const t = p ? splitEntry(readEntryText(dir, p), p).data.title : undefined;
      title = typeof t === 'string' ? t : undefined;
    } catch {
      title = undefined;
    }
    seen.set(id, title);
    return title;
  };
}
