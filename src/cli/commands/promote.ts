/** `promote`: make a recurring lesson a kernel entry, within the kernel budget (spec/memory.md). */
import type { Command } from 'commander';
import { idArgument } from '../../core/format/schema.js';
import * as render from '../render/memory.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  ctx
    .verb('promote', 'make an entry kernel (its body on every prompt), if the kernel budget has room')
    .argument('<id>', 'entry id (git-kb status lists promotion candidates)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const { promoteEntry } = await import('../../app/promote.js');
      const r = await promoteEntry({ ...repoOptions(ctx, cmd), id: idArgument(id) });
      ctx.reply({ json: r, text: () => render.promote(r) });
    });
}
