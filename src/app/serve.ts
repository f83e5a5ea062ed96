/** Contract: what a long-lived front end (the MCP server) asks of the data repo: keep its derived state in memory, never stale (adapters/index/warm.ts). */
import { keepWarm } from '../adapters/index/warm.js';
import { repoForRead, type RepoOptions } from './repo.js';

/** Keeps the catalog and search index of the data repo in memory between calls, when the repo exists. */
export function keepRepoWarm(options: RepoOptions): void {
  try {
    keepWarm(repoForRead(options).dir);
  } catch {
    /* no data repo yet: every call proves freshness from disk */
  }
}
