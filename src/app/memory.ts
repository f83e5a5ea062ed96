/**
 * Contract: how memory stands against its budgets (spec/memory.md): the kernel's total, the biggest host's facts,
 * the biggest single entry, each with its budget from kb.json (or the default), and the lessons seen often enough
 * to be promoted to the kernel. Plain data for `status` and `promote`.
 */
import type { Catalog } from '../adapters/index/catalog.js';
import { memoryStats, type MemoryStats } from '../adapters/index/summary.js';
import { readRepoSettings, type RepoSettings } from '../adapters/store/repo-settings.js';

export interface BudgetLine {
  chars: number;
  budget: number;
  over: boolean;
}

export interface MemoryReport {
  kernel: BudgetLine & { entries: number };
  /** The host whose facts are biggest together (absent without host facts). */
  biggest_host?: BudgetLine & { key: string };
  /** The biggest entry body, session summaries aside (absent in an empty repo). */
  biggest_entry?: BudgetLine & { id: string; title: string };
  /** Entries whose pattern key was seen at least `promote_after` times and that are not kernel yet. */
  promotion_candidates: { id: string; title: string; count: number }[];
  promote_after: number;
}

export { patternKeyOf, recurrenceCount } from '../core/format/learning.js';

const line = (chars: number, budget: number): BudgetLine => ({ chars, budget, over: chars > budget });

/** The memory report of a catalog. */
export function memoryReport(catalog: Catalog, settings: RepoSettings = readRepoSettings(catalog.dir)): MemoryReport {
  return memoryReportOf(memoryStats(catalog.byId.values()), settings);
}

/** The memory report from the catalog's sums (a summary's, or a catalog's), against the repo's budgets. */
export function memoryReportOf(stats: MemoryStats, settings: RepoSettings): MemoryReport {
  const { budgets } = settings;
  const host = [...stats.hostChars].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  const candidates = stats.patterned.filter((c) => c.count >= settings.promote_after);
  return {
    kernel: { ...line(stats.kernelChars, budgets.kernel_chars), entries: stats.kernelEntries },
    ...(host ? { biggest_host: { ...line(host[1], budgets.host_chars), key: host[0] } } : {}),
    ...(stats.biggest ? { biggest_entry: { ...line(stats.biggest.bodyLength, budgets.entry_chars), id: stats.biggest.id, title: stats.biggest.title } } : {}),
    promotion_candidates: candidates.sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1)),
    promote_after: settings.promote_after,
  };
}
