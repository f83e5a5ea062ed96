/**
 * Contract: where the data repo stands against its remote for `status` (spec/sync.md), from what the last sync
 * saw: no network, a short walk of recent commits, and the kept list of unresolved conflicts.
 */
import { configRemote, readConfig } from '../adapters/config/config.js';
import { configValue, readRef } from '../adapters/git/refs.js';
import { headSymbolicRef } from '../adapters/store/layout.js';
import { trackConflicts } from './conflicts.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { autoSyncOn } from './sync-settings.js';

/** Where the data repo stands against its remote. */
export interface SyncStatus {
  remote?: string;
  url?: string;
  branch?: string;
  /** Commits here that the remote lacked when last seen, and the reverse; undefined before the first sync. */
  ahead?: number;
  behind?: number;
  unresolved: number;
  auto_sync: boolean;
}

/** Reports the sync state for `status`. */
export async function syncStatus(options: RepoOptions): Promise<SyncStatus> {
  const { dir } = repoForRead(options);
  // NOTE: refs and the remote's URL read straight from .git (adapters/git/refs.ts): status loads no git library
  // unless there are commits to count.
  const config = readConfig(options.settings);
  // A remote named only in the config file is the one sync uses (the first sync sets it as origin).
  const url = configValue(dir, 'remote', 'origin', 'url') || configRemote(config);
  const out: SyncStatus = { unresolved: trackConflicts(dir).length, auto_sync: autoSyncOn(options.settings, config) };
  if (!url) return out;
  out.remote = 'origin';
  const { redactUrl } = await import('../adapters/git/remote.js');
  out.url = redactUrl(url);
  const ref = headSymbolicRef(dir);
  if (!ref?.startsWith('refs/heads/')) return out;
  out.branch = ref.slice('refs/heads/'.length);
  const head = readRef(dir, 'HEAD');
  const tracking = readRef(dir, `refs/remotes/origin/${out.branch}`);
  if (!head || !tracking) return out;
  if (head === tracking) return { ...out, ahead: 0, behind: 0 };
  const { ObjectReader } = await import('../adapters/git/reader.js');
  const { newCommits } = await import('../adapters/git/walk.js');
  const reader = new ObjectReader(dir);
  try {
    out.ahead = (await newCommits(reader, head, tracking)).length;
    out.behind = (await newCommits(reader, tracking, head)).length;
  } finally {
    reader.close();
  }
  return out;
}
