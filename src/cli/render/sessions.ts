/**
 * Contract: the human output of `session <sub>` (spec/sessions.md): pure functions from a use case's result to
 * text.
 */
import { localTime } from './time.js';
import type { CatchUpResult, RecordResult, SessionItem } from '../../app/session.js';

/** `session list`: one summary per line, most recent first. */
export function list(items: SessionItem[]): string {
  if (items.length === 0) return 'no session summaries';
  return items.map((s) => `${s.id}  ${localTime(s.ended)}  ${s.project ?? '-'}  ${s.branch ?? '-'}  ${s.turns ?? '?'} prompts  ${s.title}`).join('\n');
}

/** `session show`: the summary entry verbatim. */
export function show(r: { text: string }): string {
  return r.text;
}

/** `session record`: written (with its commit), unchanged, or why there is no summary. */
export function record(r: RecordResult): string {
  return r.status === 'written' ? `${r.id} written (commit ${r.commit!.slice(0, 12)})` : r.status === 'unchanged' ? `${r.id} unchanged` : `no summary: ${r.reason}`;
}

/** `session catch-up`: how many transcripts ended each way. */
export function catchUp(r: CatchUpResult): string {
  return `${r.written.length} written, ${r.unchanged} unchanged, ${r.skipped} without prompts, ${r.forbidden} forbidden, ${r.current} already current${r.failed.length ? `, ${r.failed.length} failed` : ''}${r.left ? `, ${r.left} left for next time` : ''}`;
}
