/**
 * Contract: how memory stands against its budgets (spec/memory.md): the kernel's total, the biggest host's facts,
 * the biggest single entry, each with its budget from kb.json (or the default), and the lessons seen often enough
 * to be promoted to the kernel. Plain data for `status` and `promote`.
 */
import type { Catalog, EntryMeta } from '../adapters/index/catalog.js';
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

/** How many times an entry's lesson was seen: its `recurrences`, or 1. */
export function recurrenceCount(e: Pick<EntryMeta, 'data'>): number {
  const n = e.data.recurrences;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1;
}

/** The entry's pattern key, when it has one. */
export function patternKeyOf(e: Pick<EntryMeta, 'data'>): string | undefined {
  return typeof e.data.pattern_key === 'string' ? e.data.pattern_key : undefined;
}

const line = (chars: number, budget: number): BudgetLine => ({ chars, budget, over: chars > budget });

/** The memory report of a catalog. */
export function memoryReport(catalog: Catalog, settings: RepoSettings = readRepoSettings(catalog.dir)): MemoryReport {
  const { budgets } = settings;
  let kernelChars = 0;
  let kernelEntries = 0;
  const hosts = new Map<string, number>();
  let biggest: EntryMeta | undefined;
  const candidates: MemoryReport['promotion_candidates'] = [];
  for (const e of catalog.byId.values()) {
    if (e.kernel) {
      kernelEntries++;
      kernelChars += e.bodyLength;
    }
    if (e.host) hosts.set(e.host, (hosts.get(e.host) ?? 0) + e.bodyLength);
    if (e.type !== 'session_summary' && (!biggest || e.bodyLength > biggest.bodyLength || (e.bodyLength === biggest.bodyLength && e.id < biggest.id))) biggest = e;
    const count = recurrenceCount(e);
    if (!e.kernel && patternKeyOf(e) && count >= settings.promote_after) candidates.push({ id: e.id, title: e.title, count });
  }
  const host = [...hosts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  return {
    kernel: { ...line(kernelChars, budgets.kernel_chars), entries: kernelEntries },
    ...(host ? { biggest_host: { ...line(host[1], budgets.host_chars), key: host[0] } } : {}),
    ...(biggest ? { biggest_entry: { ...line(biggest.bodyLength, budgets.entry_chars), id: biggest.id, title: biggest.title } } : {}),
    promotion_candidates: candidates.sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1)),
    promote_after: settings.promote_after,
  };
}
