/**
 * Contract: the human output of the verbs about the data repo and its setup (init, status, install,
 * uninstall): pure functions from a use case's result to text.
 */
import type { InitResult } from '../../app/init.js';
import type { InstallResult } from '../../app/install.js';
import type { StatusResult } from '../../app/status.js';
import { budgetLines } from './memory.js';

/** `init`: what was done to which data repo, and where it was recorded. */
export function init(r: InitResult): string {
  const lines = [`${r.action} data repo ${r.data_dir} (${r.entries} entries)`];
  if (r.remote) lines.push(`remote: ${r.remote}`);
  if (r.config_file) lines.push(`recorded in ${r.config_file}`);
  for (const n of r.notes ?? []) lines.push(`note: ${n}`);
  return lines.join('\n');
}

/** `status`: the data repo at a glance. */
export function status(r: StatusResult): string {
  const types = Object.entries(r.by_type)
    .sort()
    .map(([t, n]) => `  ${t}: ${n}`);
  return [
    `data repo: ${r.data_dir} (from ${r.source})`,
    `entries: ${r.entries}`,
    ...types,
    `kernel: ${r.kernel.entries} entries, ${r.kernel.chars} of ${r.kernel.budget} characters`,
    ...budgetLines(r.memory),
    `problems: ${r.problems}${r.problems ? ' (run git-kb lint)' : ''}`,
    `head: ${r.head ?? '(no commits)'}`,
    `remote: ${r.remote ?? '(none)'}${r.sync.auto_sync ? ' (auto-sync on)' : ''}`,
    ...(r.remote && r.sync.ahead !== undefined ? [`sync: ${r.sync.ahead} commit(s) to push, ${r.sync.behind ?? 0} to pull, as last seen`] : r.remote ? ['sync: never synced'] : []),
    ...(r.sync.unresolved ? [`conflicts: ${r.sync.unresolved} unresolved (git-kb lint lists them; git-kb resolve settles them)`] : []),
  ].join('\n');
}

/** `install` and `uninstall`: what changed in the settings file (the diff too on a dry run). */
export function install(r: InstallResult): string {
  const verb = r.action === 'install' ? 'installed' : 'removed';
  if (!r.changed) return r.action === 'install' ? `git-kb hooks already installed in ${r.settings}` : `no git-kb hooks in ${r.settings}`;
  const what = `${r.events.join(', ')} in ${r.settings}`;
  return r.dryRun ? `${r.diff}\n(dry run: would have ${verb} git-kb hooks for ${what}; nothing written)` : `${verb} git-kb hooks for ${what}`;
}
