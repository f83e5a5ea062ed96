/** `compact check` and `compact rollback`: grading a shorter rewrite against a baseline, and undoing it (spec/memory.md). */
import type { Command } from 'commander';
import * as render from '../render/compact.js';
import { type Cli, intArg, repoOptions } from '../io.js';

interface Flags {
  baseline: string;
  target?: number;
  floor?: number;
}

/** Registers the verbs on the program. */
export function register(ctx: Cli): void {
  const sub = ctx.group('compact', 'grade a shorter rewrite of an entry, the kernel or a host against a baseline; roll it back');
  sub('check', 'grade the target now against its text at --baseline (exit 0 PASS or FLOOR, 1 DEFECTS, 2 cannot grade)')
    .argument('<target>', 'an entry id, "kernel", or host:KEY')
    .requiredOption('--baseline <rev>', 'the revision holding the text before the rewrite')
    .option('--target <n>', 'the most characters allowed (default 85% of the baseline)', intArg('--target'))
    .option('--floor <n>', 'the fewest characters allowed (default 40% of the baseline)', intArg('--floor', 0))
    .action(async (target: string, o: Flags, cmd: Command) => {
      const { compactCheck } = await import('../../app/compact.js');
      const r = await compactCheck({ ...repoOptions(ctx, cmd), target, baseline: o.baseline, targetChars: o.target, floorChars: o.floor });
      const exit = r.verdict === 'DEFECTS' ? 'COMPACT_DEFECTS' : r.verdict === 'CANNOT_GRADE' ? 'CANNOT_GRADE' : undefined;
      ctx.reply({ json: r, text: () => render.check(r), exit });
    });
  sub('rollback', 'restore the target exactly to its text at --baseline, as a new commit')
    .argument('<target>', 'an entry id, "kernel", or host:KEY')
    .requiredOption('--baseline <rev>', 'the revision to restore')
    .action(async (target: string, o: Flags, cmd: Command) => {
      const { compactRollback } = await import('../../app/compact.js');
      const r = await compactRollback({ ...repoOptions(ctx, cmd), target, baseline: o.baseline });
      ctx.reply({ json: r, text: () => render.rollback(r) });
    });
}
