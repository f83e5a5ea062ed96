/** `history` and `restore`: an entry's commits, and bringing one back (spec/cli.md). */
import type { Command } from 'commander';
import { idArgument } from '../../core/format/schema.js';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('history', "an entry's commits, newest first (a deleted entry's up to the commit that deleted it)")
    .argument('<id>', 'entry id')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const { entryHistory } = await import('../../app/history.js');
      const r = await entryHistory({ ...repoOptions(ctx, cmd), id: idArgument(id) });
      ctx.reply({ json: r, text: () => render.history(r) });
    });

  verb('restore', 'bring back an earlier version of an entry, or a deleted entry, as a new commit')
    .argument('<id>', 'entry id')
    .option('--to <rev>', 'the revision to restore from, e.g. HEAD~1 or a commit id (default: the version before the last change; for a deleted entry, its last version)')
    .action(async (id: string, o: { to?: string }, cmd: Command) => {
      const { restoreEntry } = await import('../../app/history.js');
      const r = await restoreEntry({ ...repoOptions(ctx, cmd), id: idArgument(id), to: o.to });
      ctx.reply({ json: r, text: () => render.restore(r) });
    });
}
