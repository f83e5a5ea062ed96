/**
 * Contract: derived state kept in memory by a long-lived process (the MCP server), never served stale. A process
 * that calls keepWarm(dir) gets, from loadCatalog and loadSearchIndex, the objects of its previous call while
 * nothing changed: nothing changed means no file-system event under the data repo since they were loaded
 * (a recursive watch; events of our own caches under .git/git-kb/ are ignored) AND the same repo key (HEAD,
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
  watcher?: fs.FSWatcher;
  key?: string;
  values: Map<string, unknown>;
}

let warm: Warm | undefined;

function currentKey(dir: string): string {
  return repoKey(dir, keyDirs(entryDirs(dir)));
}

/** Keeps derived state of `dir` in memory from now on (idempotent). Falls back to no memory if it cannot watch. */
export function keepWarm(dir: string): void {
  if (warm?.dir === dir) return;
  warm?.watcher?.close();
  const w: Warm = { dir, values: new Map() };
  try {
    w.watcher = fs.watch(dir, { recursive: true, persistent: false }, (_event, name) => {
      const rel = typeof name === 'string' ? name.split('\\').join('/') : '';
      if (rel.startsWith('.git/git-kb/') || rel === '.git/git-kb') return;
      w.values.clear();
    });
    w.watcher.on('error', () => {
      w.watcher?.close();
      w.watcher = undefined;
      w.values.clear();
    });
  } catch {
    w.watcher = undefined;
  }
  warm = w;
}

/**
 * Lets file-system events already delivered run their handlers before a remembered value is trusted: a request
 * that arrives in the same poll as the event of an edit made just before it must not beat it (setImmediate runs
 * after the poll phase that handles both).
 */
export async function settleWarm(): Promise<void> {
  if (warm?.watcher) await new Promise((resolve) => setImmediate(resolve));
}

/** The remembered value `name` of `dir`, when it is still current. */
export function warmValue<T>(dir: string, name: string): T | undefined {
  if (!warm || warm.dir !== dir || !warm.watcher) return undefined;
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
  if (!warm || warm.dir !== dir || !warm.watcher) return;
  warm.key ??= currentKey(dir);
  warm.values.set(name, value);
}
