/** `session <sub>`: session summaries (spec/sessions.md). */
import type { Command } from 'commander';
import { type Cli, collect, emit, globals, intArg } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { group } = ctx;
  const session = group('session', 'session summaries: list, show, record, catch-up (spec/sessions.md)');
  session('list', 'session summaries, most recent first')
    .option('--cwd <dir>', 'only sessions of this project directory')
    .option('--limit <n>', 'at most N', intArg('--limit'))
    .action(async (o: { cwd?: string; limit?: number }, cmd: Command) => {
      const g = globals(cmd);
      const { listSessions } = await import('../../app/session.js');
      const r = await listSessions({ data: g.data, ...o });
      emit({ sessions: r }, () => (r.length ? r.map((s) => `${s.id}  ${(s.ended ?? '').slice(0, 16).replace('T', ' ')}  ${s.project ?? '-'}  ${s.branch ?? '-'}  ${s.turns ?? '?'} prompts  ${s.title}`).join('\n') : 'no session summaries'));
    });
  session('show', 'print a session summary (by entry id or session id)')
    .argument('<id>', 'entry id, or session id (8 characters or more)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const { showSession } = await import('../../app/session.js');
      const r = await showSession({ data: g.data, id });
      emit(r, () => r.text);
    });
  session('record', 'summarise a transcript into its session_summary entry and commit it')
    .requiredOption('--transcript <path>', 'the Claude Code transcript (JSONL)')
    .option('--session-id <id>', 'the session id (default: the transcript\'s own)')
    .action(async (o: { transcript: string; sessionId?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { recordSession } = await import('../../app/session.js');
      const r = await recordSession({ data: g.data, transcript: o.transcript, sessionId: o.sessionId, create: true });
      emit(r, () => (r.status === 'written' ? `${r.id} written (commit ${r.commit!.slice(0, 12)})` : r.status === 'unchanged' ? `${r.id} unchanged` : `no summary: ${r.reason}`));
      if (r.status === 'forbidden') process.exitCode = 5;
    });
  session('catch-up', 'summarise recent transcripts under ~/.claude/projects that were never summarised')
    .option('--days <n>', 'transcripts changed in the last N days (default 30)', intArg('--days'))
    .option('--exclude <session-id>', 'leave this session alone (repeatable)', collect)
    .option('--projects <dir>', 'the transcripts folder (default ~/.claude/projects)')
    .action(async (o: { days?: number; exclude?: string[]; projects?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { catchUpSessions } = await import('../../app/session.js');
      const r = await catchUpSessions({ data: g.data, ...o });
      emit(r, () => `${r.written.length} written, ${r.unchanged} unchanged, ${r.skipped} without prompts, ${r.forbidden} forbidden, ${r.current} already current${r.failed.length ? `, ${r.failed.length} failed` : ''}${r.left ? `, ${r.left} left for next time` : ''}`);
    });
}
