/** `sync` and `resolve`, and the optional push after each CLI write (spec/sync.md). */
import type { Command } from 'commander';
import { type Cli, emit, globals, intArg } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  // Sync (spec/sync.md): sync, resolve, and the optional push after each CLI write (auto_sync; hooks never wait).
  verb('sync', 'fetch, merge and push the data repo; exit 4 while conflicts remain (spec/sync.md)')
    .option('--no-push', 'fetch and merge only')
    .option('--timeout <seconds>', 'give up on the network after this many seconds', intArg('--timeout'))
    .action(async (o: { push?: boolean; timeout?: number }, cmd: Command) => {
      const g = globals(cmd);
      const { syncRepo, describeSync } = await import('../../app/sync.js');
      const r = await syncRepo({ data: g.data, push: o.push, timeoutMs: o.timeout ? o.timeout * 1000 : undefined });
      emit(r, () => describeSync(r));
      if (r.unresolved.length > 0) process.exitCode = 4;
    });
  verb('resolve', 'settle a sync conflict: keep ours (the file), theirs (the block) or both')
    .argument('[targets...]', 'entry ids, or files with a .conflict-* sibling')
    .option('--keep <side>', 'ours | theirs | both')
    .option('--all', 'every unresolved conflict')
    .action(async (targets: string[], o: { keep?: string; all?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const { resolveConflicts, describeResolve } = await import('../../app/sync.js');
      const r = await resolveConflicts({ data: g.data, targets, keep: o.keep, all: o.all });
      emit(r, () => describeResolve(r));
    });
  ctx.program.hook('postAction', async (_p: Command, action: Command) => {
    if (action.name() === 'sync' || action.name() === 'hook') return;
    const { committedDirs } = await import('../../adapters/store/commit-events.js');
    const dirs = committedDirs();
    if (dirs.length === 0) return;
    const { autoSyncAfterWrite } = await import('../../app/sync.js');
    for (const line of await autoSyncAfterWrite(dirs)) process.stderr.write(`git-kb: ${line}\n`);
  });
}
