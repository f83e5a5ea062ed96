/** `relink`: every entry's links in the form Obsidian follows, in one commit (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('relink', 'rewrite entry links to the file-name form Obsidian follows and regenerate each Links section; one commit').action(async (_o: unknown, cmd: Command) => {
    const { relinkRepo } = await import('../../app/relink.js');
    const r = await relinkRepo(repoOptions(ctx, cmd));
    ctx.reply({ json: r, text: () => render.relinked(r) });
  });
}
