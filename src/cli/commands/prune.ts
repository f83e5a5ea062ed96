/** `prune`: list stale and duplicate entries; delete them in one commit only with --yes (spec/memory.md). */
import type { Command } from 'commander';
import * as render from '../render/memory.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  ctx
    .verb('prune', 'list stale and duplicate entries; --yes deletes the listed ones in one commit')
    .option('--yes', 'delete the listed entries (one commit); without it nothing is written')
    .option('--half-lives <n>', 'stale from this many half-lives old (default 4)', (v: string) => Number(v))
    .action(async (o: { yes?: boolean; halfLives?: number }, cmd: Command) => {
      const { prune } = await import('../../app/prune.js');
      const r = await prune({ ...repoOptions(ctx, cmd), yes: !!o.yes, halfLives: o.halfLives });
      ctx.reply({ json: r, text: () => render.prune(r) });
    });
}
