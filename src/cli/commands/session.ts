/** `session <sub>`: session summaries (spec/sessions.md). */
import type { Command } from 'commander';
import { idArgument } from '../../core/format/schema.js';
import * as render from '../render/sessions.js';
import { type Cli, collect, intArg, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { group } = ctx;
  const session = group('session', 'session summaries: list, show, record, catch-up (man git-kb)');
  session('list', 'session summaries, most recent first')
    .option('--cwd <dir>', 'only sessions of this project directory')
    .option('--limit <n>', 'at most N', intArg('--limit'))
    .action(async (o: { cwd?: string; limit?: number }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const { listSessions } = await import('../../app/session.js');
      const r = await listSessions({ ...repo, ...o });
      ctx.reply({ json: { sessions: r }, text: () => render.list(r) });
    });
  session('show', 'print a session summary, or its turns from the archive (by entry id or session id)')
    .argument('<id>', 'entry id, or session id (8 characters or more)')
    .option('--turns', 'list the turns, each with its number and anchor')
    .option('--turn <n>', 'one turn in full (a number or an anchor): prompt, replies, tool calls and their output')
    .option('--grep <text>', 'the lines of the session that hold this text, with their turn')
    .action(async (id: string, o: { turns?: boolean; turn?: string; grep?: string }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const { showSession } = await import('../../app/session.js');
      const r = await showSession({ ...repo, id: idArgument(id), ...o });
      ctx.reply({ json: r, text: () => render.show(r) });
    });
  session('record', 'summarise a transcript into its session_summary entry and commit it')
    .requiredOption('--transcript <path>', 'the Claude Code transcript (JSONL)')
    .option('--session-id <id>', 'the session id when no line of the transcript carries one (else its file name)')
    .action(async (o: { transcript: string; sessionId?: string }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const { recordSession } = await import('../../app/session.js');
      const r = await recordSession({ ...repo, transcript: o.transcript, sessionId: o.sessionId, create: true });
      const { exit, ...data } = r;
      ctx.reply({ json: data, text: () => render.record(r), exit });
    });
  session('catch-up', 'summarise recent transcripts under ~/.claude/projects that were never summarised')
    .option('--days <n>', 'transcripts changed in the last N days (default 30)', intArg('--days'))
    .option('--exclude <session-id>', 'leave this session alone (repeatable)', collect)
    .option('--projects <dir>', 'the transcripts folder (default ~/.claude/projects)')
    .action(async (o: { days?: number; exclude?: string[]; projects?: string }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const { catchUpSessions } = await import('../../app/session.js');
      const r = await catchUpSessions({ ...repo, ...o });
      ctx.reply({ json: r, text: () => render.catchUp(r) });
    });
}
