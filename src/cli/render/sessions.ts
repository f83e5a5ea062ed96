/**
 * Contract: the human output of `session <sub>` (spec/sessions.md): pure functions from a use case's result to
 * text.
 */
import { entryText, paint } from './colour.js';
import { localTime } from './time.js';
import { plural } from './plural.js';
import type { CatchUpResult, RecordResult, SessionItem, ShowResult } from '../../app/session.js';

/** `session list`: one summary per line, most recent first. */
export function list(items: SessionItem[]): string {
  if (items.length === 0) return 'no session summaries';
  return items.map((s) => `${paint('yellow', s.id)}  ${paint('dim', localTime(s.ended))}  ${s.project ?? '-'}  ${s.branch ?? '-'}  ${s.turns === undefined ? '? prompts' : plural(s.turns, 'prompt')}  ${s.title}`).join('\n');
}

/** `session show`: the summary entry verbatim, or the turns, one turn, or the lines found. */
export function show(r: ShowResult): string {
  if (r.view === 'summary') return entryText(r.text);
  const head = paint('bold', `${r.id}  session ${r.session_id}  ${r.title}`);
  if (r.view === 'turns') {
    if (r.turns.length === 0) return `${head}\nno turns`;
    const rows = r.turns.map((t) => `#${t.n}  ${t.anchor}  ${t.at ? localTime(t.at) : '-'}  ${t.prompt || '(before the first prompt)'}  [${plural(t.replies, 'reply', 'replies')}, ${plural(t.tools, 'tool call')}${t.recaps ? `, ${plural(t.recaps, 'recap')}` : ''}]`);
    return [head, ...rows].join('\n');
  }
  if (r.view === 'grep') {
    if (r.lines.length === 0) return `${head}\nno line holds "${r.grep}"`;
    return [head, ...r.lines.map((l) => `#${l.n} ${l.anchor} ${l.kind}${l.tool ? ` (${l.tool})` : ''}: ${l.line}`)].join('\n');
  }
  const t = r.turn;
  const out = [head, paint('bold', `## Turn ${t.n} (${t.anchor})${t.at ? ` ${localTime(t.at)}` : ''}`), '', paint('bold', '### Prompt'), '', t.prompt || '(before the first prompt)'];
  for (const recap of t.recaps) out.push('', paint('bold', '### Recap'), '', recap);
  for (const reply of t.replies) out.push('', paint('bold', '### Reply'), '', reply);
  for (const tool of t.tools) {
    out.push('', paint(tool.error ? 'red' : 'bold', `### ${tool.name}${tool.error ? ' (error)' : ''}: ${tool.call}`));
    if (tool.output !== undefined) out.push('', '```', tool.output.replace(/```/g, '`\u200b``'), '```');
  }
  return out.join('\n');
}

/** What each reason a transcript gets no summary means (core/sessions/summary.ts SkipReason), for a person. */
const NO_SUMMARY: Record<string, string> = {
  'no-prompts': 'the transcript holds no prompt of yours',
  'no-session-id': 'the file holds no session id: is it a Claude Code transcript (a .jsonl file under ~/.claude/projects)?',
  'no-timestamps': 'the transcript holds no timestamps',
  'git-kb-child': "it is a session of git-kb's own model judge or reflection",
};

/** `session record`: written (with its commit), unchanged, or why there is no summary. */
export function record(r: RecordResult): string {
  if (r.status === 'written') return `${r.id} written (commit ${r.commit!.slice(0, 12)})`;
  if (r.status === 'unchanged') return `${r.id} unchanged`;
  const why = r.reason ? NO_SUMMARY[r.reason] : undefined;
  return `no summary: ${r.reason}${why ? ` (${why})` : ''}`;
}

/** `session catch-up`: how many transcripts ended each way. */
export function catchUp(r: CatchUpResult): string {
  return `${r.written.length} written, ${r.logged} turn logs updated, ${r.unchanged} unchanged, ${r.skipped} without prompts, ${r.forbidden} forbidden, ${r.current} already current${r.copies ? `, ${r.copies} copies of another transcript left alone` : ''}${r.failed.length ? `, ${r.failed.length} failed` : ''}${r.left ? `, ${r.left} left for next time` : ''}${r.rebuilt ? `, ${r.rebuilt} turn logs rebuilt from the archive` : ''}${r.pruned ? `, ${r.pruned} archived transcripts past their retention removed` : ''}`;
}
