/** `status`: the data repo at a glance (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/repo.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('status', 'the data repo, entry counts, kernel size, remote').action(async (_o: unknown, cmd: Command) => {
    const { repoStatus } = await import('../../app/status.js');
    const r = await repoStatus(repoOptions(ctx, cmd));
    ctx.reply({ json: r, text: () => render.status(r) });
  });
}
