/** `status`: the data repo at a glance (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/render.js';
import { type Cli, emit, globals } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('status', 'the data repo, entry counts, kernel size, remote').action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const { repoStatus } = await import('../../app/status.js');
    const r = await repoStatus({ data: g.data });
    emit(r, () => render.status(r));
  });
}
