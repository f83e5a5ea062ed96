/**
 * Contract: `status` describes the data repo: where it is and why, entries by type, the kernel's size against
 * its budget, problems the catalog knows of (all from the catalog summary), and the remote with the sync state (no network: as last seen).
 */
import { manifestProblems } from './lint.js';
import { currentSummary } from '../adapters/index/summary.js';
import { readRepoSettings } from '../adapters/store/repo-settings.js';
import { linkedEntryFolders } from '../adapters/store/layout.js';
import { readRef } from '../adapters/git/refs.js';
import { syncStatus, type SyncStatus } from './sync-status.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { memoryReportOf, type MemoryReport } from './memory.js';

export interface StatusResult {
  data_dir: string;
  source: string;
  entries: number;
  by_type: Record<string, number>;
  kernel: { entries: number; chars: number; budget: number };
  /** Sizes against their budgets, and promotion candidates (spec/memory.md). */
  memory: MemoryReport;
  problems: number;
  head?: string;
  remote?: string;
  sync: SyncStatus;
}

/** Reports on the data repo. */
export async function repoStatus(options: RepoOptions): Promise<StatusResult> {
  const { dir, source } = repoForRead(options);
  const summary = await currentSummary(dir);
  const sync = await syncStatus({ data: dir, settings: options.settings });
  const memory = memoryReportOf(summary.memory, readRepoSettings(dir));
  return {
    data_dir: dir,
    source,
    entries: summary.entries,
    by_type: { ...summary.byType },
    kernel: { entries: memory.kernel.entries, chars: memory.kernel.chars, budget: memory.kernel.budget },
    memory,
    // kb.json's own problems too (lint.ts manifestProblems: one small file read).
    problems: summary.problems + manifestProblems(dir).length + linkedEntryFolders(dir).length,
    head: readRef(dir, 'HEAD'),
    remote: sync.url,
    sync,
  };
}
