/**
 * Contract: finding entries by id without parsing the whole repo: file names carry ids, so one directory
 * listing answers "which file is kb-x" and "does kb-x exist". Two files claiming one id is an error here.
 */
import { KbError } from '../core/errors.js';
import { idFromFileName, isValidId } from '../core/format/schema.js';
import { entryFolderNames, listEntryFiles, type EntryFile } from '../adapters/store/layout.js';

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
export function pathLookup(index: Map<string, EntryFile[]>): (id: string) => string | undefined {
  return (id) => index.get(id)?.[0]?.path;
}
