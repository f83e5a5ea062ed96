/**
 * Contract: `promote ID` makes an entry kernel (its body then rides on every prompt), within the kernel budget:
 * when the kernel would go over it, nothing is written and the refusal names what to compact first.
 */
import { loadCatalog } from '../adapters/index/catalog.js';
import { readEntryText } from '../adapters/store/layout.js';
import { readRepoSettings } from '../adapters/store/repo-settings.js';
import { withWriteLock } from '../adapters/write/transaction.js';
import { KbError } from '../core/errors.js';
import { updateEntryText } from '../core/format/entry.js';
import { nowStamp, validateEntryText } from './fields.js';
import { idSet } from './find.js';
import { memoryReport } from './memory.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface PromoteResult {
  id: string;
  path: string;
  commit?: string;
  changed: boolean;
  /** The kernel's size after the promotion, and its budget. */
  kernel_chars: number;
  budget: number;
}

/** Sets kernel: true on an entry, or refuses when the kernel budget has no room for it. */
export async function promoteEntry(options: RepoOptions & { id: string; now?: Date }): Promise<PromoteResult> {
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const catalog = await loadCatalog(dir);
    const e = catalog.byId.get(options.id);
    if (!e) throw new KbError('NOT_FOUND', `no entry ${options.id}`);
    const report = memoryReport(catalog, readRepoSettings(dir));
    const budget = report.kernel.budget;
    if (e.kernel) return { id: e.id, path: e.path, changed: false, kernel_chars: report.kernel.chars, budget };
    const after = report.kernel.chars + e.bodyLength;
    if (after > budget) {
      const biggest = [...catalog.byId.values()]
        .filter((x) => x.kernel)
        .sort((a, b) => b.bodyLength - a.bodyLength)
        .slice(0, 3)
        .map((x) => `${x.id} (${x.bodyLength})`);
      // NOTE: compaction is the skill's (/git-kb compact in Claude Code); the CLI only checks and rolls it back.
      const first = e.bodyLength > budget
        ? `/git-kb compact ${e.id} in Claude Code, or shorten it with git-kb edit ${e.id} (it alone is over the budget)`
        : `/git-kb compact kernel in Claude Code${biggest.length ? ` (biggest: ${biggest.join(', ')})` : ''}, or /git-kb compact ${e.id}; or shorten them with git-kb edit`;
      throw new KbError('CONFLICT', `promoting ${e.id} (${e.bodyLength} characters) would put the kernel at ${after} of its ${budget}-character budget; nothing written. Compact first: ${first}`, { kernel_chars: report.kernel.chars, budget, entry_chars: e.bodyLength });
    }
    const text = updateEntryText(readEntryText(dir, e.path), e.path, { kernel: true, updated: nowStamp(options.now) });
    const ids = idSet(dir);
    validateEntryText(text, e.path, (x) => ids.has(x));
    const commit = await tx.commit([{ path: e.path, content: text }], `promote ${e.id}: ${e.title} (kernel)`);
    return { id: e.id, path: e.path, commit, changed: true, kernel_chars: after, budget };
  }, { identity: options.settings });
}
