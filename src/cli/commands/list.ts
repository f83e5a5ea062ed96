/** `list`: entries, newest first (spec/cli.md). */
import type { Command } from 'commander';
import { KbError } from '../../core/errors.js';
import * as render from '../render/entries.js';
import { type Cli, intArg, isJson, repoOptions } from '../io.js';

/** How many entries `list` shows on a terminal when neither --limit nor --all is given. */
export const TERMINAL_LIMIT = 50;

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('list', `entries, newest first (on a terminal the first ${TERMINAL_LIMIT}, unless --limit or --all)`)
    .option('--type <type>', 'only this type')
    .option('--tag <tag>', 'only entries with this tag')
    .option('--host <key>', 'only facts of this host')
    .option('--since <date>', 'only entries updated since (YYYY-MM-DD, today, yesterday, 7d, 2w...)')
    .option('--limit <n>', 'at most N entries', intArg('--limit'))
    .option('--all', 'every entry (no limit on a terminal)')
    .action(async (o: Record<string, unknown>, cmd: Command) => {
      if (o.all && o.limit !== undefined) throw new KbError('USAGE', '--all and --limit cannot be combined; use one');
      const { all, ...rest } = o;
      const { listEntries } = await import('../../app/list.js');
      const listed = await listEntries({ ...repoOptions(ctx, cmd), ...(rest as object) });
      const { entries: r, unreadable, unknownTypes } = listed;
      // NOTE: the terminal's default limit is for people reading; --json and pipes always get every entry.
      const cut = !all && o.limit === undefined && !isJson() && process.stdout.isTTY === true && r.length > TERMINAL_LIMIT;
      const warnings = render.readWarnings(listed);
      const typeWarning = render.unknownTypeWarning(unknownTypes);
      if (typeWarning) warnings.push(typeWarning);
      ctx.reply({ json: { entries: r, ...(unreadable.length ? { unreadable } : {}), ...(unknownTypes.length ? { type_unknown: unknownTypes } : {}) }, text: () => render.list(cut ? r.slice(0, TERMINAL_LIMIT) : r, cut ? r.length - TERMINAL_LIMIT : 0), ...(warnings.length ? { warnings } : {}) });
    });
}
