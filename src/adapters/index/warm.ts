/**
 * Contract: derived state kept in memory by a long-lived process (the MCP server), never served stale. A process
 * that calls keepWarm(dir) gets, from loadCatalog and openSearchStore, the objects of its previous call while
 * nothing changed: nothing changed means no file-system event under the data repo since they were loaded
 * (a watch on the repo's folder and on each entry folder, so an in-place edit of any entry is seen; events of
 * our own caches under .git/git-kb/ never reach these folders) AND the same repo key (HEAD,
 * the branch ref, packed-refs, .git/index, hosts.yaml and the entry folders' stat data: a dozen stats, so a
 * commit or a pull is seen even before its events arrive). Anything else drops the memory and the next call
 * proves freshness the usual way (every entry file's stat data). Short-lived processes never call keepWarm and
 * pay nothing.
 */
import fs from 'node:fs';
import { entryDirs } from '../store/layout.js';
import { keyDirs, repoKey } from './fresh.js';

interface Warm {
  dir: string;
  /** The folders watched (relative), one watcher each; undefined when watching failed. */
  watched?: Map<string, fs.FSWatcher>;
  key?: string;
  values: Map<string, unknown>;
}

let warm: Warm | undefined;

function currentKey(dir: string): string {
  return repoKey(dir, keyDirs(entryDirs(dir)));
}

function unwatch(w: Warm): void {
  for (const watcher of w.watched?.values() ?? []) watcher.close();
  w.watched = undefined;
}

/**
 * Watches the repo's folder and every entry folder (non-recursive watches: a recursive one walks every file,
 * seconds at 50,000 entries). A folder created later changes a watched parent, which drops the memory; the
 * watches are then set up anew at the next remember.
 */
function watchFolders(w: Warm): void {
  const folders = ['.', ...entryDirs(w.dir)];
  if (w.watched && folders.length === w.watched.size && folders.every((f) => w.watched!.has(f))) return;
  unwatch(w);
  const watched = new Map<string, fs.FSWatcher>();
  try {
    for (const f of folders) {
      const watcher = fs.watch(f === '.' ? w.dir : `${w.dir}/${f}`, { persistent: false }, () => w.values.clear());
      watcher.on('error', () => {
        unwatch(w);
        w.values.clear();
      });
      watched.set(f, watcher);
    }
    w.watched = watched;
  } catch {
    for (const watcher of watched.values()) watcher.close();
    w.watched = undefined;
  }
}

/** Keeps derived state of `dir` in memory from now on (idempotent). Falls back to no memory if it cannot watch. */
export function keepWarm(dir: string): void {
  if (warm?.dir === dir) return;
  if (warm) unwatch(warm);
  warm = { dir, values: new Map() };
  watchFolders(warm);
}

/** True in a process that keeps the derived state of `dir` in memory (keepWarm). */
export function isWarm(dir: string): boolean {
  return warm?.dir === dir;
}

/**
 * The remembered value `name` of `dir`, when it is still current. First the file-system events already delivered
 * run their handlers: a request that arrives in the same poll as the event of an edit made just before it must not
 * beat it (setImmediate runs after the poll phase that handles both).
 */
export async function warmValue<T>(dir: string, name: string): Promise<T | undefined> {
  if (!warm || warm.dir !== dir || !warm.watched) return undefined;
  await new Promise((resolve) => setImmediate(resolve));
  if (!warm || warm.dir !== dir || !warm.watched) return undefined;
  const key = currentKey(dir);
  if (key !== warm.key) {
    warm.values.clear();
    warm.key = key;
    return undefined;
  }
  return warm.values.get(name) as T | undefined;
}

/** Remembers `value` as `name` of `dir` (a no-op unless keepWarm(dir) was called). */
export function rememberWarm(dir: string, name: string, value: unknown): void {
  if (!warm || warm.dir !== dir) return;
  if (warm.values.size === 0) watchFolders(warm);
  if (!warm.watched) return;
  warm.key ??= currentKey(dir);
  warm.values.set(name, value);
}
