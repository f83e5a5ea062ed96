/** `commit`: hand edits of entry files as one commit (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('commit', 'commit hand edits of entry files (new, changed, deleted) that lint clean, in one commit')
    .option('-m, --message <msg>', 'the commit message (default: names the files)')
    .action(async (o: { message?: string }, cmd: Command) => {
      const { commitHandEdits } = await import('../../app/commit.js');
      const r = await commitHandEdits({ ...repoOptions(ctx, cmd), message: o.message });
      ctx.reply({ json: r, text: () => render.committed(r) });
    });
}
