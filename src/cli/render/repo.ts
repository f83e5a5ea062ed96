/**
 * Contract: the human output of the verbs about the data repo and its setup (init, status, install,
 * uninstall, doctor): pure functions from a use case's result to text.
 */
import type { DoctorResult } from '../../app/doctor.js';
import type { InitResult } from '../../app/init.js';
import path from 'node:path';
import type { InstallResult } from '../../app/install.js';
import type { StatusResult } from '../../app/status.js';
import { budgetLines } from './memory.js';
import { plural } from './plural.js';

/** `init`: what was done to which data repo, and where it was recorded. */
export function init(r: InitResult): string {
  const lines = [`${r.action} data repo ${r.data_dir} (${plural(r.entries, 'entry', 'entries')})`];
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
    `kernel: ${plural(r.kernel.entries, 'entry', 'entries')}, ${r.kernel.chars} of ${r.kernel.budget} characters`,
    ...budgetLines(r.memory),
    `problems: ${r.problems}${r.problems ? ' (run git-kb lint)' : ''}`,
    `head: ${r.head ?? '(no commits)'}`,
    `remote: ${r.remote ?? '(none)'}${r.sync.auto_sync ? ' (auto-sync on)' : ''}`,
    ...(r.remote && r.sync.ahead !== undefined ? [`sync: ${plural(r.sync.ahead, 'commit')} to push, ${r.sync.behind ?? 0} to pull, as last seen`] : r.remote ? ['sync: never synced'] : []),
    ...(r.sync.unresolved ? [`conflicts: ${r.sync.unresolved} unresolved (git-kb lint lists them; git-kb resolve settles them)`] : []),
  ].join('\n');
}

/** `install` and `uninstall`: what changed in the settings file (the diff too on a dry run), and the shim. */
export function install(r: InstallResult): string {
  const verb = r.action === 'install' ? 'installed' : 'removed';
  const lines: string[] = [];
  if (!r.changed) lines.push(r.action === 'install' ? `git-kb hooks already installed in ${r.settings}` : `no git-kb hooks in ${r.settings}`);
  else {
    const what = `${r.events.join(', ')} in ${r.settings}`;
    lines.push(r.dryRun ? `${r.diff}\n(dry run: would have ${verb} git-kb hooks for ${what}; nothing written)` : `${verb} git-kb hooks for ${what}`);
  }
  const c = r.cli;
  const would = r.dryRun ? 'would write' : 'wrote';
  if (c.action === 'written') lines.push(`${would} ${c.path}, so the "git-kb get" the hooks suggest runs this checkout`);
  else if (c.action === 'unchanged') lines.push(`git-kb shim: ${c.path}`);
  else if (c.action === 'on-path') lines.push(`git-kb on PATH: ${c.path}`);
  else if (c.action === 'kept') lines.push(`kept ${c.path} (not written by git-kb install): the model runs that git-kb`);
  else if (c.action === 'removed') lines.push(`${r.dryRun ? 'would remove' : 'removed'} ${c.path}`);
  if (c.notOnPath && c.path) lines.push(`note: ${path.dirname(c.path)} is not on PATH: add it (export PATH="${path.dirname(c.path)}:$PATH" in your shell profile) so the model can run git-kb`);
  if (r.plugin && r.action === 'uninstall') lines.push(`the git-kb plugin (${r.plugin}) is still installed and runs its hooks`);
  else if (r.plugin) lines.push(`warning: the git-kb plugin (${r.plugin}) is installed too: each hook runs twice ("git-kb uninstall" removes these)`);
  return lines.join('\n');
}

/** `doctor`: one line per check (status, name, what was found, and the fix when it is not ok), then a verdict. */
export function doctor(r: DoctorResult): string {
  const mark = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;
  const width = Math.max(...r.checks.map((c) => c.name.length));
  const lines = r.checks.map((c) => `${mark[c.status]}  ${c.name.padEnd(width)}  ${c.detail}${c.fix ? `; fix: ${c.fix}` : ''}`);
  const fails = r.checks.filter((c) => c.status === 'fail').length;
  const warns = r.checks.filter((c) => c.status === 'warn').length;
  lines.push(fails ? `${plural(fails, 'check')} failed` : warns ? `all checks pass (${plural(warns, 'warning')})` : 'all checks pass');
  return lines.join('\n');
}
