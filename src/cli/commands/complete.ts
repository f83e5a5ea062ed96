/**
 * `__complete KIND [WORD]`: the hidden verb the completion scripts call for values (src/app/complete.ts), one
 * `value<TAB>description` line each. Fail-silent: any error (no data repo, a broken hosts.yaml, an unknown kind)
 * prints nothing and exits 0, so a TAB never shows an error in the middle of a command line.
 */
import type { Command } from 'commander';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program (hidden from help and from the completion scripts). */
export function register(ctx: Cli): void {
  const cmd = ctx.verb('__complete', 'values for shell completion (used by the completion scripts)');
  cmd.argument('<kind>').argument('[word]').action(async (kind: string, word: string | undefined, _o: unknown, c: Command) => {
    let lines: string[] = [];
    try {
      const { completions, COMPLETION_KINDS } = await import('../../app/complete.js');
      if ((COMPLETION_KINDS as readonly string[]).includes(kind)) {
        const found = await completions(repoOptions(ctx, c), kind as (typeof COMPLETION_KINDS)[number], word ?? '');
        lines = found.map((x) => (x.description ? `${x.value}\t${x.description.replace(/[\t\n\r]/g, ' ')}` : x.value));
      }
    } catch {
      lines = [];
    }
    ctx.reply({ json: lines, text: () => lines.join('\n') });
  });
}
