/**
 * Contract: when and where the prompt index is brought up to date (spec/hooks.md, "Rebuilds" and "Updates"), the
 * one door to it for its readers (the prompt hook, the prose gate) and writers (git-kb commands and hooks that
 * just wrote call refreshPromptIndex). A fresh index (with its delta, delta.ts) is served as is. A stale one that
 * may answer meanwhile (fresh.ts servableWhileStale: same hosts.yaml, same kernel files) is first updated from
 * what changed (update.ts) in this process when that is cheap (UPDATE_BUDGET_MS). Otherwise, and for a missing
 * one, it is brought up to date (updated where it can be, else rebuilt) in this process when the rebuild is
 * cheap (the estimate is the number of entry files times the per-file cost with or without a warm catalog
 * cache) or when the caller waits for it (`wait`); otherwise a detached builder process is started (at most one
 * per data repo, guarded by `prompt/build.lock`) and the caller gets the previous index when it is safe to serve,
 * else no index. The hook's deadline can therefore never cut a large first build short forever. The updater and
 * builder (update.ts, build.ts) are imported only to bring the index up to date. */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { builtFile } from '../../system/built.js';
import { processAlive } from '../../system/pid.js';
import { readSmall } from '../../system/read-bounded.js';
import type { BuildResult } from './build.js';
import { buildLockFile, catalogCacheFile, checkFreshness, indexFile, servableWhileStale } from '../fresh.js';
import { openPromptIndex } from './delta.js';
import type { IndexReader } from './format.js';

/** A rebuild expected to take longer than this runs in the background. */
export const SYNC_BUILD_BUDGET_MS = 2500;
/**
 * The same, when the previous index can answer meanwhile (servableWhileStale): a prompt then never waits long
 * for a rebuild after a change (a Stop hook's commit, an edit), at the price of a pointer to the changed entry
 * arriving a few seconds late. NOTE: at 0.15 ms a file that is about 3,000 entries.
 */
export const STALE_BUILD_BUDGET_MS = 500;
/** An update from what changed (update.ts) runs in the prompt up to this estimate, else in the background. */
export const UPDATE_BUDGET_MS = 60;
/** Its estimate: a fixed part (loading the updater and the parser, reading a changed file) and per file (listed and stat'ed). */
const UPDATE_FIXED_MS = 20;
const MS_PER_FILE_UPDATE = 0.005;
/** Estimated rebuild cost per entry file: with the catalog cache warm, and parsing every file. */
// NOTE: the build reads every body (the keyword signal indexes them): measured 0.1-0.2 ms a file on the two
// bench corpora with the catalog warm.
const MS_PER_FILE_WARM = 0.15;
export const MS_PER_FILE_COLD = 0.4;
/** Catalog cache bytes per entry, to tell a warm cache from one that predates most of the files. */
const CACHE_BYTES_PER_FILE = 300;
/** A build lock older than this is taken to be dead whatever its pid says. */
const BUILD_LOCK_MAX_AGE_MS = 10 * 60_000;

/**
 * Brings the index of `dir` up to date in this process: as a delta from what changed where it can be (update.ts),
 * else rebuilt (loads the builder, the catalog and, for changed files, the parser).
 */
async function rebuild(dir: string, options: { update?: boolean } = {}): Promise<BuildResult> {
  const { refreshIndex } = await import('./update.js');
  return refreshIndex(dir, options);
}

/**
 * Brings the prompt index of `dir` up to date when it exists and is stale: for git-kb commands that just wrote,
 * so that the next prompt does not pay for the rebuild (a repo whose prompt hook never ran gets no index).
 * Never throws.
 */
export async function refreshPromptIndex(dir: string): Promise<void> {
  try {
    const reader = openPromptIndex(dir, indexFile(dir));
    if (!reader) return;
    const fresh = checkFreshness(dir, reader).fresh;
    reader.close();
    if (!fresh) await rebuild(dir);
  } catch {
    /* the next prompt rebuilds */
  }
}

function countEntryFiles(dir: string): number {
  let n = 0;
  const names = (rel: string): fs.Dirent[] => {
    try {
      return fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return [];
    }
  };
  const walk = (rel: string, depth: number): void => {
    for (const d of names(rel)) {
      if (d.isDirectory() && depth > 0) walk(`${rel}/${d.name}`, depth - 1);
      else if (d.name.endsWith('.md')) n++;
    }
  };
  walk('entries', 0);
  walk('hosts', 1);
  walk('sessions', 2);
  return n;
}

/** The estimated cost of a rebuild in milliseconds. */
export function estimateRebuildMs(dir: string, knownFiles?: number): number {
  const files = knownFiles ?? countEntryFiles(dir);
  let cacheBytes = 0;
  try {
    cacheBytes = fs.statSync(catalogCacheFile(dir)).size;
  } catch {
    /* no cache */
  }
  const warm = Math.min(files, cacheBytes / CACHE_BYTES_PER_FILE);
  return warm * MS_PER_FILE_WARM + (files - warm) * MS_PER_FILE_COLD;
}

/** True while a background builder holds the lock. */
export function buildRunning(dir: string): boolean {
  try {
    const st = fs.statSync(buildLockFile(dir));
    const pid = Number.parseInt(readSmall(buildLockFile(dir), 1024)?.toString('utf8') ?? '', 10);
    return Date.now() - st.mtimeMs < BUILD_LOCK_MAX_AGE_MS && (!Number.isInteger(pid) || pid <= 0 ? Date.now() - st.mtimeMs < 5000 : processAlive(pid));
  } catch {
    return false;
  }
}

/** Starts a detached builder for `dir` unless one is running. Returns false when none could be started. */
export async function startBackgroundBuild(dir: string, env?: NodeJS.ProcessEnv): Promise<boolean> {
  if (buildRunning(dir)) return true;
  const lock = buildLockFile(dir);
  try {
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    fs.rmSync(lock, { force: true });
    const fd = fs.openSync(lock, 'wx');
    fs.closeSync(fd);
  } catch {
    return false; // another prompt won the race, or nothing can be written
  }
  try {
    // NOTE: the builder imports update.ts and runs runBackgroundBuild: from a build, its stable file
    // dist/hooks/prompt-build.js (lazyHooks of build.mjs; this code may be bundled anywhere); from the sources,
    // the update.ts beside this file.
    const built = builtFile('hooks/prompt-build.js');
    const here = import.meta.url;
    const builder = built ? pathToFileURL(built).href : new URL(`./update${path.extname(new URL(here).pathname)}`, here).href;
    // The builder of a build is CommonJS: import() gives its exports as the namespace's default.
    const code = 'const [u, d] = process.argv.slice(1); const m = await import(u); await (m.runBackgroundBuild ?? m.default.runBackgroundBuild)(d);';
    // NOTE: loaded here, not at the top: node:child_process pulls in net and dgram, milliseconds a prompt
    // that needs no builder should not pay.
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['--input-type=module', '-e', code, builder, dir], { detached: true, stdio: 'ignore', env });
    child.on('error', () => undefined);
    if (child.pid) fs.writeFileSync(lock, String(child.pid));
    child.unref();
    return true;
  } catch {
    fs.rmSync(lock, { force: true });
    return false;
  }
}

/** The index of a prompt, or why there is none. */
export type LoadedIndex = { reader: IndexReader; state: string } | { reader?: undefined; state: string };

/** How loadPromptIndex may rebuild. */
export interface LoadOptions {
  /** Rebuild here whatever it costs, never in the background (for a caller with time, such as the prose gate). */
  wait?: boolean;
  /** A rebuild estimated above this runs in the background (default STALE_BUILD_BUDGET_MS when the previous index can answer meanwhile, else SYNC_BUILD_BUDGET_MS). */
  budgetMs?: number;
}

/**
 * Loads the index of `dir`: fresh as is, else updated or rebuilt here when cheap or waited for, else in the
 * background (the previous index, or no index, now); `env` is the environment of a background builder (the
 * caller's own when undefined).
 */
export async function loadPromptIndex(dir: string, env?: NodeJS.ProcessEnv, options: LoadOptions = {}): Promise<LoadedIndex> {
  const reader = openPromptIndex(dir, indexFile(dir));
  let reason = 'missing';
  let knownFiles: number | undefined;
  // The previous index, while the rebuild runs in the background (see servableWhileStale): never blind.
  let previous: IndexReader | undefined;
  if (reader) {
    const f = checkFreshness(dir, reader);
    if (f.fresh) return { reader, state: 'fresh' };
    reason = f.reason ?? 'stale';
    knownFiles = reader.header.fileCount;
    if (!options.wait && servableWhileStale(dir, reader)) previous = reader;
    else reader.close();
  }
  let declined = false; // an update was tried here and declined: a rebuild is due
  const meanwhile = (state: string): LoadedIndex => (previous ? { reader: previous, state: `${state}; the previous index answers meanwhile` } : { state });
  if (!options.wait) {
    if (buildRunning(dir)) return meanwhile(`${reason}; a background build is running`);
    // An update from what changed, here when it is cheap (it lists and stats every file): the prompt then sees
    // the change itself. When it cannot be made (a rebuild is due) or costs more, the rest decides as before.
    if (previous && previous.header.avg && UPDATE_FIXED_MS + (knownFiles ?? 0) * MS_PER_FILE_UPDATE <= (options.budgetMs ?? UPDATE_BUDGET_MS)) {
      const { updatePromptIndex } = await import('./update.js');
      const up = await updatePromptIndex(dir);
      if (up) {
        previous.close();
        return { reader: up.reader, state: `updated (${reason}) in ${up.ms} ms${up.saved ? '' : ', not saved'}` };
      }
      declined = true;
    }
    const estimate = estimateRebuildMs(dir, knownFiles);
    if (estimate > (options.budgetMs ?? (previous ? STALE_BUILD_BUDGET_MS : SYNC_BUILD_BUDGET_MS))) {
      const started = await startBackgroundBuild(dir, env);
      const what = previous?.header.avg && !declined ? 'update' : `rebuild estimated at ${Math.round(estimate)} ms`;
      return meanwhile(`${reason}; ${what} ${started ? 'started in the background' : 'could not be started'}`);
    }
  }
  previous?.close();
  const built = await rebuild(dir, { update: !declined });
  return { reader: built.reader, state: `${built.updated ? 'updated' : 'rebuilt'} (${reason}) in ${built.ms} ms${built.saved ? '' : ', not saved'}` };
}
