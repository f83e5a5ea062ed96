/**
 * Contract: how memory stands against its budgets (spec/memory.md): the kernel's total, the biggest host's facts,
 * the biggest single entry, each with its budget from kb.json (or the default), and the lessons seen often enough
 * to be promoted to the kernel. Plain data for `status` and `promote`.
 */
import { loadCatalog, type Catalog } from '../adapters/index/catalog.js';
import { readEntryText } from '../adapters/store/layout.js';
import { memoryStats, type MemoryStats } from '../adapters/index/summary.js';
import { readRepoSettings, type RepoSettings } from '../adapters/store/repo-settings.js';
import { entryBudget, kernelOrder, kernelShownWhole } from '../core/budget.js';
import { bodyOf } from '../core/format/fence.js';
import { parseEntry } from '../core/format/entry.js';
import { withoutSightings } from '../core/format/learning.js';

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
    ...(stats.biggest ? { biggest_entry: { ...line(stats.biggest.bodyLength, entryBudget(budgets, stats.biggest.type)), id: stats.biggest.id, title: stats.biggest.title } } : {}),
    promotion_candidates: candidates.sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1)),
    promote_after: settings.promote_after,
  };
}

/** The kernel over its budget after a write: its size, the budget, and the entries the prompt shows as pointers. */
export interface KernelOverBudget {
  chars: number;
  budget: number;
  /** Kernel entries whose bodies no longer fit what the prompt hook injects: each is shown as a pointer instead. */
  pointers: { id: string; title: string }[];
}

/** One entry's body over its type's budget after a write (kb.json "budgets.entry_chars"). */
export interface EntryOverBudget {
  chars: number;
  budget: number;
}

/**
 * The standing of the entry written as `text` when its body is over its type's budget (session summaries aside, as
 * the Stop hook's check has it: core/budget.ts budgetOverruns); undefined within it, or when kb.json's budgets do
 * not validate (a write never fails on them after its commit).
 */
export function entryOverBudget(dir: string, text: string, file: string): EntryOverBudget | undefined {
  try {
    const { entry } = parseEntry(text, file);
    if (!entry || entry.type === 'session_summary') return undefined;
    const chars = entry.body.length;
    const budget = entryBudget(readRepoSettings(dir).budgets, entry.type);
    return chars > budget ? { chars, budget } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The kernel's standing when it is over its budget (kb.json "kernel_chars"), for `add` and `edit` to warn with;
 * undefined within it, or when kb.json's budgets do not validate (a write never fails on them after its commit).
 */
export async function kernelOverBudget(dir: string): Promise<KernelOverBudget | undefined> {
  const catalog = await loadCatalog(dir);
  let report: MemoryReport;
  try {
    report = memoryReport(catalog);
  } catch {
    return undefined;
  }
  if (!report.kernel.over) return undefined;
  const kernel = [...catalog.byId.values()].filter((e) => e.kernel).sort(kernelOrder);
  const shown = kernel.map((e) => {
    try {
      return withoutSightings(bodyOf(readEntryText(dir, e.path))).trimEnd().length;
    } catch {
      return 0;
    }
  });
  const whole = kernelShownWhole(shown);
  return { chars: report.kernel.chars, budget: report.kernel.budget, pointers: kernel.filter((_, i) => !whole.has(i)).map((e) => ({ id: e.id, title: e.title })) };
}
