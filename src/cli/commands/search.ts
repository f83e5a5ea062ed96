/** `search`: ranked full-text search (spec/search.md). */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { progressBar } from '../render/progress.js';
import { type Cli, intArg, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('search', 'ranked full-text search; several queries are merged')
    .argument('<queries...>', 'one or more queries (quote multi-word queries to keep them together)')
    .option('--type <type>', 'only this type')
    .option('--tag <tag>', 'only entries with this tag')
    .option('--host <key>', 'only facts of this host')
    .option('--since <date>', 'only entries updated since (YYYY-MM-DD, today, yesterday, 7d, 2w...)')
    .option('--limit <n>', 'at most N results (default 10); entries linked to the strongest come on top, marked "linked" (up to N/2, at least 3)', intArg('--limit'))
    .option('--tool-output', 'show the tool output a session turn matched in (it is searched either way)')
    .option('--no-turns', 'leave out session turns not yet in a summary')
    .action(async (queries: string[], o: Record<string, unknown>, cmd: Command) => {
      const { searchEntries } = await import('../../app/search.js');
      // A rebuild of the index (no cache, or much changed) shows its progress on a terminal.
      let bar: { label: string; bar: ReturnType<typeof progressBar> } | undefined;
      const onProgress = (phase: string, done: number, total: number): void => {
        if (bar?.label !== phase) {
          bar?.bar.done();
          bar = { label: phase, bar: progressBar(phase) };
        }
        bar.bar.update(done, total);
      };
      const r = await searchEntries({ ...repoOptions(ctx, cmd), queries, ...(o as object), onProgress }).finally(() => bar?.bar.done());
      const warnings = render.readWarnings(r);
      ctx.reply({ json: { query: r.query, queries: r.queries, results: r.results, total: r.total, sessions: r.sessions, ...(r.unreadable.length ? { unreadable: r.unreadable } : {}) }, text: () => render.search(r), ...(warnings.length ? { warnings } : {}) });
    });
}
