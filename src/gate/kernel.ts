/**
 * Contract: the kernel as the prose gate sees it: every `kernel: true` entry with its body and its valid
 * `rules:`, served from a small JSON cache in `.git/git-kb/gate-kernel.json`. A call checks the cache with the
 * prompt hook's freshness key (git HEAD and refs, the index file, the entry directories, hosts.yaml and the
 * catalog cache; src/hooks/prompt-fresh.ts) plus the stat data of each kernel file, about twenty stat calls
 * and no YAML. On any difference, or a missing or foreign cache, it rebuilds from the catalog (which re-parses
 * only changed files) and rewrites the cache. Deleting the cache loses nothing.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fsutil.js';
import { bodyOf, entryDirs, readEntryText, stateDir } from '../store.js';
import { catalogCacheFile, freshnessKey, keyDirs, repoKey, sigOf, statSig } from '../hooks/prompt-fresh.js';
import type { GateRule } from './rules.js';

/** Bump when the cached shape changes. */
const KERNEL_CACHE_VERSION = 1;

/** One kernel entry as the gate uses it. */
export interface KernelEntry {
  id: string;
  title: string;
  path: string;
  /** Stat signature of the file when it was read. */
  sig: string;
  body: string;
  rules: Array<{ pattern: string; message: string; flags?: string }>;
}

export interface Kernel {
  entries: KernelEntry[];
  /** A hash of every kernel id, body and rule: equal digests mean the gate judges by the same rules. */
  digest: string;
  /** `cached` or `rebuilt (why)`, for the debug log. */
  state: string;
}

interface CacheShape {
  v: number;
  key: string;
  dirs: string[];
  entries: KernelEntry[];
  digest: string;
}

/** The gate's kernel cache file of a data repo. */
export function kernelCacheFile(dir: string): string {
  return path.join(stateDir(dir), 'gate-kernel.json');
}

/** Every rule of the kernel, with the entry that carries it, in entry then list order. */
export function kernelRules(kernel: Kernel): GateRule[] {
  const out: GateRule[] = [];
  for (const e of kernel.entries) e.rules.forEach((r, i) => out.push({ id: e.id, title: e.title, index: i + 1, ...r }));
  return out;
}

function readCache(dir: string): CacheShape | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(kernelCacheFile(dir), 'utf8')) as CacheShape;
    if (data?.v !== KERNEL_CACHE_VERSION || typeof data.key !== 'string' || !Array.isArray(data.dirs) || !Array.isArray(data.entries)) return undefined;
    return data;
  } catch {
    return undefined;
  }
}

function staleReason(dir: string, cache: CacheShape): string | undefined {
  if (freshnessKey(dir, cache.dirs) !== cache.key) return 'key';
  for (const e of cache.entries) if (statSig(path.join(dir, e.path)) !== e.sig) return `kernel ${e.path}`;
  return undefined;
}

/** Hashes the parts of the kernel that decide a verdict. */
export function kernelDigest(entries: KernelEntry[]): string {
  const h = crypto.createHash('sha256');
  for (const e of entries) h.update(JSON.stringify([e.id, e.title, e.body, e.rules])).update('\n');
  return h.digest('hex');
}

/** Reads the kernel from the catalog and saves the cache (best effort: a read-only repo still gets an answer). */
async function rebuild(dir: string, why: string): Promise<Kernel> {
  const dirs = keyDirs(entryDirs(dir));
  // NOTE: the key is read before the catalog lists the files, so a change made during the rebuild makes the next
  // call rebuild again instead of trusting a cache that missed it.
  const key0 = repoKey(dir, dirs);
  const { loadCatalog } = await import('../catalog.js');
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
    writeFileAtomic(kernelCacheFile(dir), JSON.stringify({ v: KERNEL_CACHE_VERSION, key, dirs, entries, digest } satisfies CacheShape), { fsync: false });
  } catch {
    /* read-only data repo: serve without caching */
  }
  return { entries, digest, state: `rebuilt (${why})` };
}

/** The kernel of the data repo at `dir` (which must exist), from the cache when it is fresh. */
export async function loadKernel(dir: string): Promise<Kernel> {
  const cache = readCache(dir);
  const why = cache ? staleReason(dir, cache) : 'missing';
  if (cache && !why) return { entries: cache.entries, digest: cache.digest, state: 'cached' };
  return rebuild(dir, why ?? 'stale');
}
