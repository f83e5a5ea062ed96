/** `history` and `restore`: an entry's commits, and bringing one back (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/render.js';
import { type Cli, emit, globals } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('history', "an entry's commits, newest first")
    .argument('<id>', 'entry id')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const { entryHistory } = await import('../../app/history.js');
      const r = await entryHistory({ data: g.data, id });
      emit(r, () => render.history(r));
    });

  verb('restore', 'bring back an earlier version of an entry as a new commit')
    .argument('<id>', 'entry id')
    .option('--to <rev>', 'the commit to restore from (default: the version before the last change)')
    .action(async (id: string, o: { to?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { restoreEntry } = await import('../../app/history.js');
      const r = await restoreEntry({ data: g.data, id, to: o.to });
      emit(r, () => (r.changed ? `restored ${r.id} from ${r.from.slice(0, 12)} (commit ${r.commit!.slice(0, 12)})` : `${r.id} already matches ${r.from.slice(0, 12)}; nothing to do`));
    });
}
