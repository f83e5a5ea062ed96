/** `init`: create, adopt or clone a data repo (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/repo.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('init', 'create a data repo, adopt an existing clone, or clone one; record it in the config')
    .option('--clone <url>', 'clone this remote into the data repo directory')
    .option('--remote <url>', 'set the remote (origin) used by sync')
    .action(async (o: { clone?: string; remote?: string }, cmd: Command) => {
      const { initDataRepo } = await import('../../app/init.js');
      const r = await initDataRepo({ ...o, ...repoOptions(ctx, cmd) });
      ctx.reply({ json: r, text: () => render.init(r) });
    });
}
