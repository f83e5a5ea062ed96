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
  /** One entry's body. */
  entry_chars: number;
}

/** The defaults; a data repo's kb.json may override them under "budgets". */
export const DEFAULT_BUDGETS: MemoryBudgets = { kernel_chars: KERNEL_BUDGET, host_chars: 4000, entry_chars: 3000 };

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

/** One budget exceeded: which, the compaction target, its size against the budget, and the entries biggest first. */
export interface Overrun {
  budget: keyof MemoryBudgets;
  /** The `compact` target: `kernel`, `host:KEY` or an entry id. */
  target: string;
  chars: number;
  limit: number;
  entries: { id: string; title: string; chars: number }[];
}

/**
 * Every budget the entries exceed (spec/memory.md, "The Stop hook's budget block"): the kernel's total, each host's
 * facts together, and each entry's body (session summaries aside), in that order, the biggest first within a kind.
 */
export function budgetOverruns(entries: Iterable<BudgetEntry>, budgets: MemoryBudgets): Overrun[] {
  const kernel: BudgetEntry[] = [];
  const hosts = new Map<string, BudgetEntry[]>();
  const single: Overrun[] = [];
  const item = (e: BudgetEntry) => ({ id: e.id, title: e.title, chars: e.bodyLength });
  const biggest = (a: BudgetEntry, b: BudgetEntry): number => b.bodyLength - a.bodyLength || (a.id < b.id ? -1 : 1);
  for (const e of entries) {
    if (e.kernel) kernel.push(e);
    if (e.host) hosts.set(e.host, [...(hosts.get(e.host) ?? []), e]);
    if (e.type !== 'session_summary' && e.bodyLength > budgets.entry_chars) single.push({ budget: 'entry_chars', target: e.id, chars: e.bodyLength, limit: budgets.entry_chars, entries: [item(e)] });
  }
  const out: Overrun[] = [];
  const sum = (l: BudgetEntry[]): number => l.reduce((n, e) => n + e.bodyLength, 0);
  if (sum(kernel) > budgets.kernel_chars) out.push({ budget: 'kernel_chars', target: 'kernel', chars: sum(kernel), limit: budgets.kernel_chars, entries: kernel.sort(biggest).map(item) });
  const hostOver: Overrun[] = [];
  for (const [key, l] of hosts) if (sum(l) > budgets.host_chars) hostOver.push({ budget: 'host_chars', target: `host:${key}`, chars: sum(l), limit: budgets.host_chars, entries: l.sort(biggest).map(item) });
  out.push(...hostOver.sort((a, b) => b.chars - a.chars || (a.target < b.target ? -1 : 1)));
  out.push(...single.sort((a, b) => b.chars - a.chars || (a.target < b.target ? -1 : 1)));
  return out;
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
