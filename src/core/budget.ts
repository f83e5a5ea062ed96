/**
 * Contract: the output limits every hook keeps (spec/hooks.md). Claude Code cuts hook output at 10,000
 * characters blindly, so git-kb stays under HOOK_OUTPUT_MAX and keeps kernel bodies within KERNEL_BUDGET.
 */

/** The most characters any hook prints. */
export const HOOK_OUTPUT_MAX = 9000;

/** The most characters of kernel bodies injected whole on one prompt; the rest become pointers. */
export const KERNEL_BUDGET = 6000;

/** The longest title a prompt-hook pointer line shows (cut at a word boundary, src/core/text/clip.ts). */
export const POINTER_TITLE_MAX = 120;

/** The sizes `status` holds memory to and `promote` keeps the kernel within (spec/memory.md, "Budgets"). */
export interface MemoryBudgets {
  /** All kernel bodies together (at most KERNEL_BUDGET: the prompt hook injects no more). */
  kernel_chars: number;
  /** The facts of one host together. */
  host_chars: number;
  /** One entry's body, for a type without its own budget. */
  entry_chars: number;
  /** One entry's body, by type: a reference or an imported note may be long where a lesson or a fact may not. */
  entry_chars_by_type: Record<string, number>;
}

/**
 * The defaults; a data repo's kb.json may override them under "budgets" (`"entry_chars"`: a number for every type,
 * or `{"default": N, TYPE: N, ...}`).
 */
export const DEFAULT_BUDGETS: MemoryBudgets = { kernel_chars: KERNEL_BUDGET, host_chars: 4000, entry_chars: 3000, entry_chars_by_type: { factual_reference: 12000 } };

/** The budget of one entry's body of type `type`. */
export function entryBudget(budgets: MemoryBudgets, type: string | undefined): number {
  return (type !== undefined ? budgets.entry_chars_by_type[type] : undefined) ?? budgets.entry_chars;
}

/** The kernel's order, oldest first (`created`, else `updated`, then the id): the order the prompt shows it in. */
export function kernelOrder(a: { id: string; created?: string; updated?: string }, b: { id: string; created?: string; updated?: string }): number {
  const ka = a.created ?? a.updated ?? '';
  const kb = b.created ?? b.updated ?? '';
  return ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Which kernel bodies the prompt hook shows whole (spec/hooks.md): in kernel order (oldest first), each body that
 * still fits within KERNEL_BUDGET with the ones before it; every other kernel entry is shown as a pointer.
 */
export function kernelShownWhole(lengths: number[], budget = KERNEL_BUDGET): Set<number> {
  const whole = new Set<number>();
  let used = 0;
  lengths.forEach((n, i) => {
    if (used + n <= budget) {
      whole.add(i);
      used += n;
    }
  });
  return whole;
}

/** How many times a lesson's pattern key is seen before it is a promotion candidate (kb.json "promote_after"). */
export const PROMOTE_AFTER = 3;

/** The fields of an entry the budgets look at. */
export interface BudgetEntry {
  id: string;
  title: string;
  type: string;
  kernel?: boolean;
  host?: string;
  bodyLength: number;
}

/**
 * The sizes at which a compaction target was graded FLOOR (nothing legal left to cut), by target (`kernel`,
 * `host:KEY`, an id), measured as the budgets measure it: the Stop hook asks again only once it is bigger.
 */
export type FloorSizes = Record<string, number>;

/** The budgets the Stop hook blocks for, each with its own cooldown. */
export type BudgetName = 'kernel_chars' | 'host_chars' | 'entry_chars';

/** One budget exceeded: which, the compaction target, its size against the budget, and the entries biggest first. */
export interface Overrun {
  budget: BudgetName;
  /** The `compact` target: `kernel`, `host:KEY` or an entry id. */
  target: string;
  chars: number;
  limit: number;
  entries: { id: string; title: string; chars: number }[];
}

/**
 * Every budget the entries exceed (spec/memory.md, "The Stop hook's budget block"): the kernel's total, each host's
 * facts together, and each entry's body against its type's budget (session summaries aside), in that order, the
 * biggest first within a kind. A target graded FLOOR at a size it has not outgrown is left out (`floors`).
 */
export function budgetOverruns(entries: Iterable<BudgetEntry>, budgets: MemoryBudgets, floors: FloorSizes = {}): Overrun[] {
  const kernel: BudgetEntry[] = [];
  const hosts = new Map<string, BudgetEntry[]>();
  const single: Overrun[] = [];
  const item = (e: BudgetEntry) => ({ id: e.id, title: e.title, chars: e.bodyLength });
  const biggest = (a: BudgetEntry, b: BudgetEntry): number => b.bodyLength - a.bodyLength || (a.id < b.id ? -1 : 1);
  for (const e of entries) {
    if (e.kernel) kernel.push(e);
    if (e.host) hosts.set(e.host, [...(hosts.get(e.host) ?? []), e]);
    const limit = entryBudget(budgets, e.type);
    if (e.type !== 'session_summary' && e.bodyLength > limit) single.push({ budget: 'entry_chars', target: e.id, chars: e.bodyLength, limit, entries: [item(e)] });
  }
  const out: Overrun[] = [];
  const sum = (l: BudgetEntry[]): number => l.reduce((n, e) => n + e.bodyLength, 0);
  if (sum(kernel) > budgets.kernel_chars) out.push({ budget: 'kernel_chars', target: 'kernel', chars: sum(kernel), limit: budgets.kernel_chars, entries: kernel.sort(biggest).map(item) });
  const hostOver: Overrun[] = [];
  for (const [key, l] of hosts) if (sum(l) > budgets.host_chars) hostOver.push({ budget: 'host_chars', target: `host:${key}`, chars: sum(l), limit: budgets.host_chars, entries: l.sort(biggest).map(item) });
  out.push(...hostOver.sort((a, b) => b.chars - a.chars || (a.target < b.target ? -1 : 1)));
  out.push(...single.sort((a, b) => b.chars - a.chars || (a.target < b.target ? -1 : 1)));
  return out.filter((o) => !(o.chars <= (floors[o.target] ?? -1)));
}

/** The reason a Stop hook gives when it blocks the turn for these overruns: the entries and the commands to run. */
export function budgetBlockReason(overruns: Overrun[]): string {
  const lines = ['git-kb: memory is over its budget (kb.json "budgets"); compact it before finishing:'];
  for (const o of overruns.slice(0, 8)) {
    const names = o.entries.slice(0, 5).map((e) => `${e.id} "${e.title.slice(0, 60)}" (${e.chars})`).join(', ');
    const more = o.entries.length > 5 ? ` and ${o.entries.length - 5} more` : '';
    lines.push(`- ${o.budget}: ${o.target} is ${o.chars} of ${o.limit} characters (${names}${more}). Run: /git-kb compact ${o.target}`);
  }
  if (overruns.length > 8) lines.push(`- and ${overruns.length - 8} more over budget (git-kb status)`);
  lines.push('Each compaction is graded by `git-kb compact check` and rolled back if it fails. This reminder is given once per budget per cooldown.');
  return lines.join('\n');
}
