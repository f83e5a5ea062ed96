/**
 * Contract: the output limits every hook keeps (spec/hooks.md). Claude Code cuts hook output at 10,000
 * characters blindly, so git-kb stays under HOOK_OUTPUT_MAX and keeps kernel bodies within KERNEL_BUDGET.
 */

/** The most characters any hook prints. */
export const HOOK_OUTPUT_MAX = 9000;

/** The most characters of kernel bodies injected whole on one prompt; the rest become pointers. */
export const KERNEL_BUDGET = 6000;

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
