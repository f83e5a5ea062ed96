/** `lint`: every problem in the data repo (spec/entry-format.md). */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('lint', 'validate the whole data repo; exit 5 if anything is wrong').action(async (_o: unknown, cmd: Command) => {
    const { lintRepo } = await import('../../app/lint.js');
    const r = lintRepo(repoOptions(ctx, cmd));
    ctx.reply({ json: { ok: r.problems.length === 0, files: r.files, problems: r.problems, ...(r.hints.length ? { hints: r.hints } : {}) }, text: () => render.lint(r), exit: r.exit });
  });
}
