/** `doctor`: one line per check of the install and the data repo, with the fix (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/repo.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  ctx.verb('doctor', 'check the data repo, the hooks (each wired one is run once), the bundle, the judge, the prompt index and the remote; exit 7 if a check fails').action(async (_o: unknown, cmd: Command) => {
    const { runDoctor } = await import('../../app/doctor.js');
    const r = await runDoctor(repoOptions(ctx, cmd));
    ctx.reply({ json: r, text: () => render.doctor(r), exit: r.exit });
  });
}
