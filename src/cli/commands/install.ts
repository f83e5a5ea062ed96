/** `install` and `uninstall`: the hooks without the plugin (spec/hooks.md). */
import type { Command } from 'commander';
import * as render from '../render/repo.js';
import { type Cli, globals } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  // Hooks without the plugin (spec/hooks.md, "Install without the plugin").
  for (const action of ['install', 'uninstall'] as const) {
    verb(action, action === 'install' ? 'wire the hooks of hooks/hooks.json into ~/.claude/settings.json' : 'remove git-kb hooks from ~/.claude/settings.json')
      .option('--dry-run', 'print the change without writing it')
      .option('--settings <file>', 'the settings file (default ~/.claude/settings.json)')
      .action(async (o: { dryRun?: boolean; settings?: string }, cmd: Command) => {
        globals(cmd);
        const m = await import('../../app/install.js');
        const r = await (action === 'install' ? m.installHooks : m.uninstallHooks)({ dryRun: o.dryRun, settings: o.settings, home: ctx.settings.home });
        ctx.reply({ json: r, text: () => render.install(r) });
      });
  }
}
