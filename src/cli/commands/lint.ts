/** `lint`: every problem in the data repo (spec/entry-format.md). */
import type { Command } from 'commander';
import * as render from '../render/render.js';
import { type Cli, emit, globals } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('lint', 'validate the whole data repo; exit 5 if anything is wrong').action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const { lintRepo } = await import('../../app/lint.js');
    const r = lintRepo({ data: g.data });
    emit({ ok: r.problems.length === 0, files: r.files, problems: r.problems }, () => render.lint(r));
    if (r.problems.length > 0) process.exitCode = 5;
  });
}
