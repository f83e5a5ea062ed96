/** `sync` and `resolve` (spec/sync.md); the push after each CLI write is main's (auto_sync). */
import type { Command } from 'commander';
import * as render from '../render/sync.js';
import { type Cli, intArg, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('sync', 'fetch, merge and push the data repo; exit 4 while conflicts remain')
    .option('--no-push', 'fetch and merge only')
    .option('--timeout <seconds>', 'give up on the network after this many seconds', intArg('--timeout'))
    .action(async (o: { push?: boolean; timeout?: number }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const { syncRepo } = await import('../../app/sync.js');
      const r = await syncRepo({ ...repo, push: o.push, timeoutMs: o.timeout ? o.timeout * 1000 : undefined });
      ctx.reply({ json: r, text: () => render.sync(r), exit: r.unresolved.length > 0 ? 'MERGE_CONFLICT' : undefined });
    });
  verb('resolve', 'settle a sync conflict: keep ours (the file), theirs (the block) or both')
    .argument('[targets...]', 'entry ids, or files with a .conflict-* sibling')
    .option('--keep <side>', 'ours | theirs | both')
    .option('--all', 'every unresolved conflict')
    .action(async (targets: string[], o: { keep?: string; all?: boolean }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const { resolveConflicts } = await import('../../app/resolve.js');
      const r = await resolveConflicts({ ...repo, targets, keep: o.keep, all: o.all });
      ctx.reply({ json: r, text: () => render.resolve(r) });
    });
}
