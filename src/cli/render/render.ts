/**
 * Contract: human-readable output for each verb (the --json shapes are the use cases' results as they are).
 * Pure functions from results to text, plus a progress bar that draws only on a terminal.
 */
import type { EditResult } from '../../app/edit.js';
import type { GotEntry } from '../../app/get.js';
import type { ImportResult } from '../../app/import.js';
import type { InitResult } from '../../app/init.js';
import type { LintResult } from '../../app/lint.js';
import type { ListItem } from '../../app/list.js';
import type { SearchResultSet } from '../../app/search.js';
import type { StatusResult } from '../../app/status.js';
import type { HistoryItem } from '../../adapters/git/git.js';

export function init(r: InitResult): string {
  const lines = [`${r.action} data repo ${r.data_dir} (${r.entries} entries)`];
  if (r.remote) lines.push(`remote: ${r.remote}`);
  if (r.config_file) lines.push(`recorded in ${r.config_file}`);
  for (const n of r.notes ?? []) lines.push(`note: ${n}`);
  return lines.join('\n');
}

export function edit(r: EditResult): string {
  return r.changed ? `${r.diff.replace(/^={10,}\n/m, '')}\nedited ${r.id} (commit ${r.commit!.slice(0, 12)})` : `${r.id}: no change`;
}

export function get(entries: GotEntry[]): string {
  return entries
    .map((e) => {
      let text = e.text.endsWith('\n') ? e.text : `${e.text}\n`;
      if (e.links) {
        text += e.links.length
          ? `\nLinked entries (1 hop):\n${e.links.map((l) => `- ${l.id} — ${l.title} (${l.direction === 'out' ? l.rel : `${l.rel} from`})`).join('\n')}\n`
          : '\nLinked entries (1 hop): none\n';
      }
      return text;
    })
    .join(entries.length > 1 ? '\n' : '');
}

export function search(r: SearchResultSet): string {
  if (r.results.length === 0) return `no results for ${r.queries.map((q) => `"${q}"`).join(', ')}`;
  return r.results
    .map((h) => {
      const via = h.via ? `  (linked: ${h.via.rel} ${h.via.from})` : '';
      const tags = h.tags.length ? `  [${h.tags.join(', ')}]` : '';
      return `${h.id}  ${h.title}${tags}${via}\n    ${h.snippet}`;
    })
    .join('\n');
}

export function list(items: ListItem[]): string {
  if (items.length === 0) return 'no entries';
  return items.map((e) => `${e.id}  ${(e.updated ?? e.created ?? '').slice(0, 10)}  ${e.type.padEnd(18)} ${e.title}`).join('\n');
}

export function lint(r: LintResult): string {
  if (r.problems.length === 0) return `ok: ${r.files} files, no problems`;
  const lines = r.problems.map((p) => `${p.file}${p.line ? `:${p.line}` : ''}: ${p.message} [${p.rule}]`);
  return `${lines.join('\n')}\n${r.problems.length} problem${r.problems.length === 1 ? '' : 's'} in ${r.files} files`;
}

export function importResult(r: ImportResult): string {
  const lines = [`imported ${r.imported} notes${r.commit ? ` (commit ${r.commit.slice(0, 12)})` : ''}`];
  for (const s of r.skipped) lines.push(`skipped ${s.file}: ${s.reason}`);
  for (const x of r.redacted) lines.push(`redacted ${x.count} secret${x.count === 1 ? '' : 's'} in ${x.file} (${x.kinds.join(', ')})`);
  return lines.join('\n');
}

export function history(r: { id: string; path: string; commits: HistoryItem[] }): string {
  return [`${r.id} (${r.path})`, ...r.commits.map((c) => `${c.commit.slice(0, 12)}  ${c.date.slice(0, 19).replace('T', ' ')}  ${c.message.split('\n')[0]}`)].join('\n');
}

export function status(r: StatusResult): string {
  const types = Object.entries(r.by_type)
    .sort()
    .map(([t, n]) => `  ${t}: ${n}`);
  return [
    `data repo: ${r.data_dir} (from ${r.source})`,
    `entries: ${r.entries}`,
    ...types,
    `kernel: ${r.kernel.entries} entries, ${r.kernel.chars} of ${r.kernel.budget} characters`,
    `problems: ${r.problems}${r.problems ? ' (run git-kb lint)' : ''}`,
    `head: ${r.head ?? '(no commits)'}`,
    `remote: ${r.remote ?? '(none)'}${r.sync.auto_sync ? ' (auto-sync on)' : ''}`,
    ...(r.remote && r.sync.ahead !== undefined ? [`sync: ${r.sync.ahead} commit(s) to push, ${r.sync.behind ?? 0} to pull, as last seen`] : r.remote ? ['sync: never synced'] : []),
    ...(r.sync.unresolved ? [`conflicts: ${r.sync.unresolved} unresolved (git-kb lint lists them; git-kb resolve settles them)`] : []),
  ].join('\n');
}

/** A one-line progress bar on stderr, drawn only when stderr is a terminal. */
export function progressBar(label: string): { update: (done: number, total: number) => void; done: () => void } {
  const tty = process.stderr.isTTY === true;
  let last = 0;
  let drawn = false;
  return {
    update(done, total) {
      if (!tty) return;
      const now = Date.now();
      if (now - last < 50 && done < total) return;
      last = now;
      const width = 30;
      const filled = Math.round((done / Math.max(1, total)) * width);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total}`);
      drawn = true;
    },
    done() {
      if (drawn) process.stderr.write('\n');
    },
  };
}
