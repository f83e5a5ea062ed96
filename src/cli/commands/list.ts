/** `list`: entries, newest first (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { type Cli, intArg, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('list', 'entries, newest first')
    .option('--type <type>', 'only this type')
    .option('--tag <tag>', 'only entries with this tag')
    .option('--host <key>', 'only facts of this host')
    .option('--since <date>', 'only entries updated since (YYYY-MM-DD, today, yesterday, 7d, 2w...)')
    .option('--limit <n>', 'at most N entries', intArg('--limit'))
    .action(async (o: Record<string, unknown>, cmd: Command) => {
      const { listEntries } = await import('../../app/list.js');
      const r = await listEntries({ ...repoOptions(ctx, cmd), ...(o as object) });
      ctx.reply({ json: { entries: r }, text: () => render.list(r) });
    });
}
