/**
 * Contract: the kernel as the prose gate sees it: every `kernel: true` entry with its body and its valid
 * `rules:`, served from a small JSON cache in `.git/git-kb/gate-kernel.json`. A call checks the cache with the
 * prompt hook's freshness key (git HEAD and refs, the index file, the entry directories, hosts.yaml and the
 * catalog cache; src/hooks/prompt-fresh.ts) plus the stat data of each kernel file: about twenty stat calls,
 * no YAML. On any difference, or a missing or foreign cache, src/gate/kernel-build.ts rebuilds it from the
 * catalog. Deleting the cache loses nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freshnessKey, statSig } from './fresh.js';
import type { GateRule } from '../../core/gate/rules.js';

/** Bump when the cached shape changes. */
export const KERNEL_CACHE_VERSION = 1;

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
  /** A hash of every kernel id, title, body and rule: equal digests mean the gate judges by the same rules. */
  digest: string;
  /** `cached` or `rebuilt (why)`, for the debug log. */
  state: string;
}

/** The cache file's shape. */
export interface KernelCache {
  v: number;
  key: string;
  dirs: string[];
  entries: KernelEntry[];
  digest: string;
}

/** The gate's kernel cache file of a data repo. */
export function kernelCacheFile(dir: string): string {
  return path.join(dir, '.git', 'git-kb', 'gate-kernel.json');
}

/** Every rule of the kernel, with the entry that carries it, in entry then list order. */
export function kernelRules(kernel: Kernel): GateRule[] {
  const out: GateRule[] = [];
  for (const e of kernel.entries) e.rules.forEach((r, i) => out.push({ id: e.id, title: e.title, index: i + 1, ...r }));
  return out;
}

function readCache(dir: string): KernelCache | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(kernelCacheFile(dir), 'utf8')) as KernelCache;
    if (data?.v !== KERNEL_CACHE_VERSION || typeof data.key !== 'string' || !Array.isArray(data.dirs) || !Array.isArray(data.entries)) return undefined;
    return data;
  } catch {
    return undefined;
  }
}

function staleReason(dir: string, cache: KernelCache): string | undefined {
  if (freshnessKey(dir, cache.dirs) !== cache.key) return 'key';
  for (const e of cache.entries) if (statSig(path.join(dir, e.path)) !== e.sig) return `kernel ${e.path}`;
  return undefined;
}

/** The kernel of the data repo at `dir` (which must exist), from the cache when it is fresh. */
export async function loadKernel(dir: string): Promise<Kernel> {
  const cache = readCache(dir);
  const why = cache ? staleReason(dir, cache) : 'missing';
  if (cache && !why) return { entries: cache.entries, digest: cache.digest, state: 'cached' };
  const { rebuildKernel } = await import('./kernel-build.js');
  return rebuildKernel(dir, why ?? 'stale', { file: kernelCacheFile(dir), version: KERNEL_CACHE_VERSION });
}
