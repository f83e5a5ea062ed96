/** `init`: create, adopt or clone a data repo (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/repo.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('init', 'create a data repo, adopt an existing clone, or clone one (--default: record it in the config)')
    .option('--clone <url>', 'clone this remote into the data repo directory')
    .option('--remote <url>', 'set the remote (origin) used by sync')
    .option('--default', 'record this data repo in the config as the one every command uses')
    .option('--force', 'adopt the git repo there even when it is a code project (it has a package.json, go.mod, ...)')
    .action(async (o: { clone?: string; remote?: string; default?: boolean; force?: boolean }, cmd: Command) => {
      const { initDataRepo } = await import('../../app/init.js');
      const r = await initDataRepo({ clone: o.clone, remote: o.remote, makeDefault: o.default === true, force: o.force === true, ...repoOptions(ctx, cmd) });
      ctx.reply({ json: r, text: () => render.init(r) });
    });
}
