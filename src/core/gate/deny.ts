/**
 * Contract: the words of a prose-gate denial (spec/hooks.md, "Prose gate"): one line saying the call was held
 * and why, then one line per violation with where it is, the phrase quoted, and the rule (entry id, title and
 * rule number with its message for layer 1; the judge's rule and fix for layer 2), then how to proceed. The
 * reason stays under MAX_REASON characters: lines that do not fit are counted, never cut mid-line.
 */
import type { Violation } from './rules.js';

/** The longest reason written (the hook output cap is 9,000 characters, JSON escaping included). */
export const MAX_REASON = 6_000;

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= n ? t : `${t.slice(0, n - 1)}…`;
}

/** One violation as a line of the reason. */
export function violationLine(v: Violation): string {
  if (v.rule) {
    return `- ${v.where}: "${v.quote}" breaks rule ${v.rule.index} of ${v.rule.id} (${clip(v.rule.title, 60)}): ${clip(v.rule.message, 300)}`;
  }
  const judged = v.judged ?? { rule: 'house rules' };
  return `- ${v.where}: "${v.quote}" breaks ${clip(judged.rule, 200)}${judged.fix ? `; suggested: ${clip(judged.fix, 200)}` : ''}`;
}

/** The permissionDecisionReason for a denied call. */
export function denyReason(o: { tool: string; layer: 'rules' | 'judge'; violations: Violation[]; more?: number; model?: string }): string {
  const head =
    o.layer === 'rules'
      ? `git-kb prose gate: this ${o.tool} call was held because the prose it would publish breaks house rules kept as patterns in kernel entries of the knowledge base.`
      : `git-kb prose gate: this ${o.tool} call was held because a model judge (claude -p${o.model ? `, ${o.model}` : ''}) found prose in it that breaks the house rules in kernel entries of the knowledge base.`;
  const tail = 'Reword the flagged text and make the call again; `git-kb get <id>` prints a rule entry in full.';
  const lines: string[] = [];
  let used = head.length + tail.length + 100;
  let left = o.more ?? 0;
  for (const v of o.violations) {
    const line = violationLine(v);
    if (used + line.length + 1 > MAX_REASON) {
      left++;
      continue;
    }
    lines.push(line);
    used += line.length + 1;
  }
  if (left > 0) lines.push(`(${left} more ${left === 1 ? 'match' : 'matches'} not listed.)`);
  return [head, ...lines, tail].join('\n');
}

/** The hook output that denies a PreToolUse call. */
export function denyOutput(reason: string): object {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}
