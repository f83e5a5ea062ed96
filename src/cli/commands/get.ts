/** `get`: entries verbatim (spec/cli.md). */
import type { Command } from 'commander';
import { idArgument } from '../../core/format/schema.js';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('get', 'print entries verbatim')
    .argument('<ids...>', 'entry ids')
    .option('--links', "also list each entry's 1-hop neighbours")
    .action(async (ids: string[], o: { links?: boolean }, cmd: Command) => {
      const { getEntries } = await import('../../app/get.js');
      const r = await getEntries({ ...repoOptions(ctx, cmd), ids: ids.map(idArgument), links: o.links });
      const unreadable = r.filter((e) => e.unreadable).map((e) => `${e.unreadable}; it is shown as it is, and list and search skip it ("git-kb lint" lists every problem)`);
      const warnings = [...unreadable, ...r.flatMap((e) => (e.type_written !== undefined ? [render.unknownTypeNote({ ...e, type_written: e.type_written })] : []))];
      ctx.reply({ json: { entries: r }, text: () => render.get(r), ...(warnings.length ? { warnings } : {}) });
    });
}
