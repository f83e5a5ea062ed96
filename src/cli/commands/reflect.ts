/** `reflect`: propose host facts and lessons from a session and commit those that pass the filters (spec/reflect.md). */
import type { Command } from 'commander';
import { debugLog } from '../../adapters/system/debug-log.js';
import * as render from '../render/reflect.js';
import { type Cli, repoOptions } from '../io.js';

interface ReflectFlags {
  session?: string;
  transcript?: string;
  dryRun?: boolean;
  auto?: boolean;
}

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  ctx
    .verb('reflect', 'ask a model child for host facts and lessons from a session; commit those that pass the filters')
    .option('--session <id>', 'the session (its transcript is found from its summary state or ~/.claude/projects)')
    .option('--transcript <path>', 'the Claude Code transcript (JSONL)')
    .option('--dry-run', 'show what is proposed, kept and dropped, and why; write nothing')
    .option('--auto', 'the hooks\' worker: only when the session was not reflected yet; exit 0 whatever happens')
    .action(async (o: ReflectFlags, cmd: Command) => {
      const { reflectSession } = await import('../../app/reflect.js');
      const { settings } = ctx;
      const log = (record: object): void => debugLog({ event: 'reflect', ...record }, settings);
      try {
        const r = await reflectSession({ ...repoOptions(ctx, cmd), transcript: o.transcript, sessionId: o.session, dryRun: !!o.dryRun, auto: !!o.auto });
        const { exit, ...data } = r;
        // NOTE: the log holds what the proposals became, titles as shown (redacted or withheld), never their text or quotes.
        log({
          session: r.sessionId,
          status: r.status,
          reason: r.reason,
          commit: r.commit,
          compact: r.compact.length ? r.compact : undefined,
          proposals: r.proposals.map((p) => ({ kind: p.kind, host: p.host, title: p.title, decision: p.decision, reason: p.reason, id: p.id })),
        });
        const failed = r.status === 'error' ? ('INTERNAL' as const) : exit;
        ctx.reply({ json: data, text: () => render.reflect(r), exit: o.auto ? undefined : failed });
      } catch (err) {
        if (!o.auto) throw err;
        // The worker fails open: nobody reads its output, so the reason goes to the debug log.
        log({ session: o.session, status: 'error', reason: String((err as Error)?.message ?? err).split('\n')[0]!.slice(0, 500) });
      }
    });
}
