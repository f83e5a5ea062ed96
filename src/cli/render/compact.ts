/**
 * Contract: the human output of `compact check` and `compact rollback` (spec/memory.md): the verdict first, then one
 * repair pointer a line, then what the ledger round did.
 */
import type { CompactCheckResult, RollbackResult } from '../../app/compact.js';

/** `compact check`: the verdict, the window, the defects with their pointers, the round. */
export function check(r: CompactCheckResult): string {
  const lines = [`${r.verdict}: ${r.target}: ${r.current_chars} chars (baseline ${r.baseline_chars} at ${r.baseline_rev.slice(0, 12)}, window ${r.floor_chars}..${r.target_chars}, minimum ${r.minimum})`];
  if (r.reason) lines.push(r.reason);
  for (const d of r.defects) lines.push(`- ${d.kind}: ${d.message}`);
  lines.push(`round ${r.round} (directive ${r.directive})`);
  if (r.rolled_back) lines.push(rolledBack(r.rolled_back));
  else if (r.verdict === 'DEFECTS') lines.push(`repair the defects above, then run git-kb compact check ${r.target} --baseline ${r.baseline_rev.slice(0, 12)} again (${r.failed_rounds + 1 >= 2 ? 'one more failed round puts the baseline back' : 'two failed rounds put the baseline back'})`);
  return lines.join('\n');
}

function rolledBack(r: RollbackResult): string {
  return r.changed ? `rolled back ${r.target} to ${r.baseline_rev.slice(0, 12)} in ${r.commit?.slice(0, 12)} (${r.paths.join(', ')})` : `${r.target} already matches ${r.baseline_rev.slice(0, 12)}: nothing to roll back`;
}

/** `compact rollback`: the commit that put the baseline back, or that there was nothing to do. */
export function rollback(r: RollbackResult): string {
  return rolledBack(r);
}
