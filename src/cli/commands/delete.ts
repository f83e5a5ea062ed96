/** `delete`: remove entries in one commit (spec/cli.md). */
import type { Command } from 'commander';
import { idArgument } from '../../core/format/schema.js';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('delete', 'delete entries in one commit; refused while other entries link to them, unless --force')
    .argument('<id...>', 'entry ids')
    .option('--force', 'delete even when other entries link to them (the links are reported, left dangling)')
    .action(async (ids: string[], o: { force?: boolean }, cmd: Command) => {
      const { deleteEntries } = await import('../../app/delete.js');
      const r = await deleteEntries({ ...repoOptions(ctx, cmd), ids: ids.map(idArgument), force: o.force === true });
      ctx.reply({ json: r, text: () => render.deleted(r) });
    });
}
