/** `install` and `uninstall`: the hooks without the plugin (spec/hooks.md). */
import type { Command } from 'commander';
import * as render from '../render/repo.js';
import { type Cli, globals } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  // Hooks without the plugin (spec/hooks.md, "Install without the plugin").
  for (const action of ['install', 'uninstall'] as const) {
    const c = verb(
      action,
      action === 'install'
        ? 'wire the hooks of hooks/hooks.json into ~/.claude/settings.json and put a git-kb shim on PATH'
        : 'remove git-kb hooks from ~/.claude/settings.json, and the shim install wrote',
    )
      .option('--dry-run', 'print the change without writing it')
      .option('--settings <file>', 'the settings file (default ~/.claude/settings.json)')
      .option('--bin-dir <dir>', 'the folder of the git-kb shim the model runs (default ~/.local/bin)');
    if (action === 'install') c.option('--force', 'wire the hooks even though the git-kb plugin is installed');
    c.action(async (o: { dryRun?: boolean; settings?: string; binDir?: string; force?: boolean }, cmd: Command) => {
      globals(cmd);
      const m = await import('../../app/install.js');
      const s = ctx.settings;
      const r = await (action === 'install' ? m.installHooks : m.uninstallHooks)({
        dryRun: o.dryRun,
        settings: o.settings,
        binDir: o.binDir,
        force: o.force,
        home: s.home,
        claudeConfigDir: s.claudeConfigDir,
        path: s.path,
      });
      ctx.reply({ json: r, text: () => render.install(r) });
    });
  }
}
