/** `lint`: every problem in the data repo (spec/entry-format.md); `--all` re-reads every file. */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('lint', 'validate the data repo (re-reads what changed since the last clean lint); exit 5 if anything is wrong')
    .option('--all', 're-read every file, not just what changed since the last clean lint')
    .action(async (o: { all?: boolean }, cmd: Command) => {
      const { lintRepo } = await import('../../app/lint.js');
      const r = await lintRepo({ ...repoOptions(ctx, cmd), all: o.all });
      ctx.reply({ json: { ok: r.problems.length === 0, files: r.files, problems: r.problems, ...(r.hints.length ? { hints: r.hints } : {}) }, text: () => render.lint(r), exit: r.exit });
    });
}
