/** `completion SHELL`: a shell completion script from the command tree (src/cli/completion.ts). */
import type { Command } from 'commander';
import { unknownChoice } from '../../core/text/suggest.js';
import { type Cli } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('completion', 'print a shell completion script: source <(git-kb completion bash), zsh alike, or git-kb completion fish | source')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string, _o: unknown, _cmd: Command) => {
      const { completionScript, SHELLS } = await import('../completion.js');
      if (!(SHELLS as readonly string[]).includes(shell)) throw unknownChoice('shell', shell, SHELLS);
      const script = completionScript(ctx.program, shell as (typeof SHELLS)[number]);
      ctx.reply({ json: { shell, script }, text: () => script });
    });
}
