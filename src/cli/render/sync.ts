/**
 * Contract: the human output of `sync` and `resolve` (spec/sync.md): pure functions from a use case's result to
 * text, every unresolved conflict listed with the command that settles it.
 */
import type { ResolveResult } from '../../app/resolve.js';
import type { SyncResult } from '../../app/sync.js';
import { plural } from './plural.js';

/** `sync`: what moved each way, notes, and every conflict left to settle. */
export function sync(r: SyncResult): string {
  const lines: string[] = [];
  const short = (o: string | null): string => (o ? o.slice(0, 8) : '(none)');
  if (r.status === 'up-to-date') lines.push(`${r.branch} is up to date with ${r.remote} (${r.url}) at ${short(r.head_after)}`);
  else {
    lines.push(`synced ${r.branch} with ${r.remote} (${r.url})`);
    if (r.merge === 'fast-forward') lines.push(`  pulled: fast-forward to ${short(r.head_after)}`);
    if (r.merge === 'merge') lines.push(`  pulled: merged ${r.remote}/${r.branch} (merge commit ${short(r.merge_commit)})`);
    const c = r.changed;
    if (c.added + c.modified + c.deleted) lines.push(`  files: ${c.added} added, ${c.modified} changed, ${c.deleted} deleted`);
    if (r.pushed) lines.push(`  pushed: ${short(r.head_after)} to ${r.remote}/${r.branch}`);
  }
  for (const n of r.notes) lines.push(`  note: ${n}`);
  if (r.conflicts.length) lines.push(`  ${plural(r.conflicts.length, 'new conflict')}: both versions kept`);
  if (r.unresolved.length) {
    lines.push(`${plural(r.unresolved.length, 'unresolved conflict')}:`);
    for (const c of r.unresolved) lines.push(`  ${c.path}:${c.line}${c.id ? `  ${c.id}` : ''}${c.of ? `  (theirs of ${c.of})` : ''}`);
    lines.push('settle each with: git-kb resolve <id or file> --keep ours|theirs|both (git-kb resolve --help)');
  }
  return lines.join('\n');
}

/** `resolve`: each conflict settled, the commit, and how many are left. */
export function resolve(r: ResolveResult): string {
  const lines = r.resolved.map((x) => `resolved ${x.id ?? x.path} (${x.path}): kept ${r.keep}`);
  if (r.commit) lines.push(`commit ${r.commit.slice(0, 12)}`);
  lines.push(r.unresolved.length ? `${plural(r.unresolved.length, 'conflict')} left` : 'no conflicts left');
  return lines.join('\n');
}
