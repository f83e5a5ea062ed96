/**
 * Contract: the human lines about memory against its budgets and the promotion candidates (spec/memory.md), for
 * `status`, and the output of `promote`.
 */
import type { EntryOverBudget, KernelOverBudget, MemoryReport } from '../../app/memory.js';
import type { PromoteResult } from '../../app/promote.js';
import type { PruneResult } from '../../app/prune.js';

const mark = (over: boolean): string => (over ? ' OVER BUDGET' : '');

/** The budget lines after the kernel line of `status` (the biggest host, the biggest entry, candidates). */
export function budgetLines(m: MemoryReport): string[] {
  const lines: string[] = [];
  if (m.kernel.over) lines.push(`kernel is over budget: compact it (git-kb compact kernel)`);
  if (m.biggest_host) lines.push(`biggest host: ${m.biggest_host.key}, ${m.biggest_host.chars} of ${m.biggest_host.budget} characters${mark(m.biggest_host.over)}`);
  if (m.biggest_entry) lines.push(`biggest entry: ${m.biggest_entry.id}, ${m.biggest_entry.chars} of ${m.biggest_entry.budget} characters${mark(m.biggest_entry.over)}`);
  if (m.promotion_candidates.length) {
    lines.push(`promotion candidates (seen ${m.promote_after}+ times; git-kb promote ID):`);
    for (const c of m.promotion_candidates) lines.push(`  ${c.id}  ${c.count}x  ${c.title}`);
  }
  return lines;
}

/** The warning of `add` and `edit` when a kernel entry left the kernel over its budget. */
export function kernelOverWarning(k: KernelOverBudget | undefined): string[] {
  if (!k) return [];
  const shown = k.pointers.length
    ? `the prompt now shows ${k.pointers.map((p) => `${p.id} "${p.title.slice(0, 60)}"`).join(', ')} as ${k.pointers.length === 1 ? 'a pointer' : 'pointers'} instead of ${k.pointers.length === 1 ? 'its body' : 'their bodies'}`
    : 'every kernel body is still shown whole for now (the prompt hook injects up to its own cap)';
  return [`the kernel is ${k.chars} of its ${k.budget}-character budget (kb.json "budgets.kernel_chars"): ${shown}; compact it: git-kb compact kernel`];
}

/** The warning of `add` and `edit` when the entry's body is over its type's budget (the Stop hook will ask to compact it). */
export function entryOverWarning(e: EntryOverBudget | undefined): string[] {
  if (!e) return [];
  return [`the body is ${e.chars} characters, over this type's budget of ${e.budget} (kb.json "budgets.entry_chars"): the next Stop hook asks to compact it; shorten it with git-kb edit, or split it into linked entries`];
}

/** `promote`: the entry is kernel now, and what the kernel weighs. */
export function promote(r: PromoteResult): string {
  return r.changed ? `promoted ${r.id} to the kernel in ${r.commit?.slice(0, 12)} (kernel: ${r.kernel_chars} of ${r.budget} characters)` : `${r.id} is already kernel (kernel: ${r.kernel_chars} of ${r.budget} characters)`;
}

/** `prune`: one candidate a line with its reason; then what was deleted, or how to delete. */
export function prune(r: PruneResult): string {
  if (r.candidates.length === 0) return `nothing to prune (stale: ${r.half_lives} half-lives old, never seen again, not linked to; duplicates: same type and identical body or pattern_key)`;
  const lines = r.candidates.map((c) => `${c.id}  ${c.reason}  ${c.title}\n    ${c.detail}`);
  if (r.commit) lines.push(`deleted ${r.deleted.length} ${r.deleted.length === 1 ? 'entry' : 'entries'} in ${r.commit.slice(0, 12)} (git history keeps them: git-kb history, git revert)${r.folded?.length ? `; duplicates folded into the recurrence history of ${r.folded.join(', ')}` : ''}`);
  else lines.push(`${r.candidates.length} ${r.candidates.length === 1 ? 'candidate' : 'candidates'}; nothing deleted. Delete them in one commit: git-kb prune --yes`);
  return lines.join('\n');
}
