/**
 * Contract: the output limits every hook keeps (spec/hooks.md). Claude Code cuts hook output at 10,000
 * characters blindly, so git-kb stays under HOOK_OUTPUT_MAX and keeps kernel bodies within KERNEL_BUDGET.
 */

/** The most characters any hook prints. */
export const HOOK_OUTPUT_MAX = 9000;

/** The most characters of kernel bodies injected whole on one prompt; the rest become pointers. */
export const KERNEL_BUDGET = 6000;
