/** `get`: entries verbatim (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/render.js';
import { type Cli, emit, globals } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('get', 'print entries verbatim')
    .argument('<ids...>', 'entry ids')
    .option('--links', "also list each entry's 1-hop neighbours")
    .action(async (ids: string[], o: { links?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const { getEntries } = await import('../../app/get.js');
      const r = await getEntries({ data: g.data, ids, links: o.links });
      emit({ entries: r }, () => render.get(r));
    });
}
