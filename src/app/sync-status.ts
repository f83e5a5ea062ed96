/**
 * Contract: where the data repo stands against its remote for `status` (spec/sync.md), from what the last sync
 * saw: no network, a short walk of recent commits, and the kept list of unresolved conflicts.
 */
import { readConfig } from '../adapters/config/config.js';
import { headOid, headRef, refOid, remoteUrl } from '../adapters/git/git.js';
import { ObjectReader } from '../adapters/git/reader.js';
import { redactUrl } from '../adapters/git/remote.js';
import { newCommits } from '../adapters/git/walk.js';
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
  const url = await remoteUrl(dir);
  const out: SyncStatus = { unresolved: trackConflicts(dir).length, auto_sync: autoSyncOn(options.settings, readConfig(options.settings)) };
  if (!url) return out;
  out.remote = 'origin';
  out.url = redactUrl(url);
  const ref = headRef(dir);
  if (!ref?.startsWith('refs/heads/')) return out;
  out.branch = ref.slice('refs/heads/'.length);
  const head = await headOid(dir);
  const tracking = await refOid(dir, `refs/remotes/origin/${out.branch}`);
  if (!head || !tracking) return out;
  const reader = new ObjectReader(dir);
  try {
    out.ahead = (await newCommits(reader, head, tracking)).length;
    out.behind = (await newCommits(reader, tracking, head)).length;
  } finally {
    reader.close();
  }
  return out;
}
