/** `tags`: every tag with its count (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('tags', 'every tag with the number of entries that carry it, most used first').action(async (_o: unknown, cmd: Command) => {
    const { tagCounts } = await import('../../app/tags.js');
    const counted = await tagCounts(repoOptions(ctx, cmd));
    const { tags, unreadable } = counted;
    const warnings = render.readWarnings(counted);
    ctx.reply({ json: { tags, ...(unreadable.length ? { unreadable } : {}) }, text: () => render.tags(tags), ...(warnings.length ? { warnings } : {}) });
  });
}
