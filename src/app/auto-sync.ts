/**
 * Contract: the push after a CLI write (spec/sync.md, "Auto mode"): the data repos this process committed to
 * go to the sync use case, which pushes when auto_sync is on. Costs nothing after a verb that committed
 * nothing; never throws, and returns the lines to report on stderr.
 */
import { readConfig, type KbConfig } from '../adapters/config/config.js';
import type { Settings } from '../adapters/config/settings.js';
import { committedDirs } from '../adapters/store/commit-events.js';
import { autoSyncOn } from './sync-settings.js';

/** Syncs each data repo this process committed to, when auto_sync is on. */
export async function autoSyncCommitted(options: { settings: Settings }): Promise<string[]> {
  const dirs = committedDirs();
  if (dirs.length === 0) return [];
  // NOTE: decided before the sync use case is loaded: it brings the transport and isomorphic-git (about 10 ms).
  let cfg: KbConfig;
  try {
    cfg = readConfig(options.settings);
  } catch {
    return [];
  }
  if (!autoSyncOn(options.settings, cfg)) return [];
  const { autoSyncAfterWrite } = await import('./sync.js');
  return autoSyncAfterWrite(dirs, options.settings, cfg);
}
