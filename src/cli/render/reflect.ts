/**
 * Contract: the human output of `reflect` (spec/reflect.md, "Output"): pure, from the use case's result. One line
 * per proposal, kept or dropped with its reason; texts are shown as the use case gives them (redacted for a
 * secret, withheld for a forbidden host).
 */
import type { ProposalReport, ReflectResult } from '../../app/reflect.js';

function clip(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function proposalLines(p: ProposalReport): string[] {
  const what = p.kind === 'host_fact' ? `host fact${p.host ? ` (${p.host})` : ''}` : p.kind === 'lesson' ? `lesson${p.pattern_key ? ` (${p.pattern_key})` : ''}` : p.kind;
  return [
    `${p.decision === 'kept' ? 'kept   ' : 'dropped'}  ${what}: ${clip(p.title, 100)}${p.id ? ` [${p.id}]` : ''}`,
    `         why: ${p.reason}`,
    `         text: ${clip(p.text, 200)}`,
    `         quote: "${clip(p.quote, 160)}"`,
  ];
}

/** `reflect`: what was proposed, kept and dropped, and the commit. */
export function reflect(r: ReflectResult): string {
  const session = r.sessionId ?? '(no session id)';
  if (r.status === 'skipped' || r.status === 'forbidden' || r.status === 'error') return `reflect ${session}: no reflection: ${r.reason}`;
  const head = r.status === 'dry-run' ? `reflect ${session} (dry run: nothing written)` : `reflect ${session}`;
  const lines = [`${head}: ${r.proposals.length} proposed, ${r.proposals.filter((p) => p.decision === 'kept').length} kept (model ${r.model})`];
  for (const p of r.proposals) lines.push(...proposalLines(p));
  const { host_facts, lessons, recurrences } = r.kept;
  if (r.commit) lines.push(`commit ${r.commit.slice(0, 12)}: ${host_facts} host facts, ${lessons} lessons, ${recurrences} recurrences`);
  else if (r.status === 'reflected') lines.push('nothing to commit');
  for (const c of r.compact) lines.push(`over budget: ${c}`);
  return lines.join('\n');
}
