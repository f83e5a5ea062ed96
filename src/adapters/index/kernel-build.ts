/**
 * Contract: rebuilding the prose gate's kernel cache (src/gate/kernel.ts) from the catalog, which re-parses
 * only changed files. Loaded only when the cache is missing or stale. The key is read before the catalog lists
 * the files, so a change made during the rebuild makes the next call rebuild again. Saving is best effort: a
 * read-only data repo still gets an answer.
 */
import crypto from 'node:crypto';
import { loadCatalog } from './catalog.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { catalogCacheFile, keyDirs, repoKey, sigOf, statSig } from './fresh.js';
import { entryDirs, readEntryText } from '../store/layout.js';
import { bodyOf } from '../../core/format/fence.js';
import type { Kernel, KernelCache, KernelEntry } from './kernel.js';

/** Hashes the parts of the kernel that decide a verdict. */
export function kernelDigest(entries: KernelEntry[]): string {
  const h = crypto.createHash('sha256');
  for (const e of entries) h.update(JSON.stringify([e.id, e.title, e.body, e.rules])).update('\n');
  return h.digest('hex');
}

/**
 * Reads the kernel through the catalog and saves the cache to `cache.file`. NOTE: the file and version come
 * from kernel.ts as arguments, so this lazily loaded module imports nothing of the hook's hot path.
 */
export async function rebuildKernel(dir: string, why: string, cache: { file: string; version: number }): Promise<Kernel> {
  const dirs = keyDirs(entryDirs(dir));
  const key0 = repoKey(dir, dirs);
  const catalog = await loadCatalog(dir);
  const key = `${key0}|catalog=${statSig(catalogCacheFile(dir))}`;
  const entries: KernelEntry[] = [];
  for (const item of catalog.items) {
    const e = item.entry;
    if (!e?.kernel || catalog.byId.get(e.id) !== e) continue;
    let body: string;
    try {
      body = bodyOf(readEntryText(dir, item.path)).trim();
    } catch {
      continue;
    }
    entries.push({ id: e.id, title: e.title, path: item.path, sig: sigOf(item), body, rules: e.rules.map((r) => ({ ...r })) });
  }
  const digest = kernelDigest(entries);
  try {
    writeFileAtomic(cache.file, JSON.stringify({ v: cache.version, key, dirs, entries, digest } satisfies KernelCache), { fsync: false });
  } catch {
    /* read-only data repo: serve without caching */
  }
  return { entries, digest, state: `rebuilt (${why})` };
}
