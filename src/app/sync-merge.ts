/**
 * Contract: the pull of `sync` (spec/sync.md, "Merge"): under the write lock, bring the remote tip into the
 * current branch by a fast-forward, or by a merge commit with two parents whose tree merges what both sides
 * changed (nothing is ever lost: a conflict keeps both versions), then check it out. The data repo's rules live
 * here: an entry merges field by field and keeps a conflict inside itself; any other file merges line by line or
 * structurally and keeps theirs beside ours.
 */
import { headOid, writeCommit } from '../adapters/git/git.js';
import { mergeTrees, type MergeConflict, type MergeRules } from '../adapters/git/merge-trees.js';
import { ObjectReader } from '../adapters/git/reader.js';
import { machineName } from '../adapters/git/transport.js';
import type { RemoteTarget } from '../adapters/git/remote.js';
import { mergeBases, type PathChange } from '../adapters/git/walk.js';
import { ENTRY_ROOTS, readEntryText } from '../adapters/store/layout.js';
import { splitEntry } from '../core/format/entry.js';
import { withWriteLock, type WriteTransaction } from '../adapters/write/transaction.js';
import { KbError } from '../core/errors.js';
import { findSecrets } from '../core/secrets/scan.js';
import { idFromPath } from '../core/format/schema.js';
import { conflictOpenLine, mergeDataFile, mergeEntryText } from '../core/merge/merge.js';
import { conflictsIn, trackConflicts } from './conflicts.js';
import { filesById, pathLookup } from './find.js';
import type { CommitIdentity } from '../adapters/git/author.js';
import type { SyncResult } from './sync.js';

function isEntryPath(p: string): boolean {
  return (ENTRY_ROOTS as readonly string[]).includes(p.split('/')[0]!) && p.endsWith('.md');
}

/** The entry id a path's file name claims, for a file in the entry folders. */
function entryIdOf(p: string): string | undefined {
  return isEntryPath(p) ? idFromPath(p) : undefined;
}

/**
 * How the data repo's files merge, `label` naming their side in conflict blocks. A merged text that would hold
 * secret-shaped content (the remote brought it by a plain git push) is not written: theirs' version is kept
 * unchanged, so git-kb never writes a new blob holding a secret (spec/secrets.md), and `secretHeld` names it for
 * a note; ours stays in history.
 */
function dataRepoRules(label: string, secretHeld: Set<string>, pathOf: (id: string) => string | undefined): MergeRules {
  return {
    mergeText: (p, base, ours, theirs) => {
      const id = entryIdOf(p);
      const m = id ? mergeEntryText(base, ours, theirs, p, conflictOpenLine(id, label), pathOf) : mergeDataFile(base, ours, theirs, p);
      if (m.text !== ours && m.text !== theirs && findSecrets(m.text).length > 0) {
        secretHeld.add(p);
        return { text: theirs, conflict: false };
      }
      return m;
    },
    inline: (p) => entryIdOf(p) !== undefined,
    nameOf: (p) => entryIdOf(p) ?? p,
    // An entry is its id: a file renamed on one side and edited on the other merges into one file.
    identity: entryIdOf,
    // A deleted entry says so in the history; a deleted data file (hosts.yaml, say) is worth a note.
    noteDeletion: (p) => !isEntryPath(p),
  };
}

function countChanges(changes: PathChange[], into: SyncResult['changed']): void {
  for (const c of changes) {
    if (c.oid === null) into.deleted++;
    else if (c.old) into.modified++;
    else into.added++;
  }
}

function mergeMessage(t: RemoteTarget, merged: number, conflicts: MergeConflict[], notes: string[], rules: MergeRules): string {
  const lines = [`git-kb sync: merge ${t.remote}/${t.branch} into ${t.branch}`, '', `Merged on ${machineName()}: ${merged} file(s) changed on both sides merged cleanly.`];
  if (conflicts.length) {
    lines.push(`Conflicts (both versions kept; settle with git-kb resolve):`);
    for (const c of conflicts) lines.push(`- ${c.kind === 'inline' ? rules.nameOf!(c.path) : c.path}${c.sibling ? ` (theirs in ${c.sibling})` : ''}`);
  }
  for (const n of notes) lines.push(`Note: ${n}`);
  return lines.join('\n');
}

async function pull(tx: WriteTransaction, reader: ObjectReader, t: RemoteTarget, tip: string, result: SyncResult): Promise<void> {
  const { dir } = tx;
  const head = await headOid(dir);
  if (head === tip) return;
  let target = tip;
  let made: MergeConflict[] = [];
  if (head) {
    const bases = await mergeBases(dir, head, tip, reader);
    if (bases.includes(tip)) return; // we are ahead: nothing to pull
    if (!bases.includes(head)) {
      const label = `${t.remote}/${t.branch} at ${tip.slice(0, 8)}`;
      const secretHeld = new Set<string>();
      // A merged entry's Links section names targets by their file names here (spec/sync.md).
      const rules = dataRepoRules(label, secretHeld, pathLookup(filesById(dir)));
      const baseTrees = await Promise.all(bases.map(async (b) => (await reader.commit(b)).tree));
      const m = await mergeTrees({ dir, reader, bases: baseTrees, ours: (await reader.commit(head)).tree, theirs: (await reader.commit(tip)).tree, label, rules });
      if (bases.length > 1) result.notes.push(`histories crossed (${bases.length} merge bases): merged file by file against each base`);
      if (bases.length === 0) result.notes.push('the remote history is unrelated to this one: merged with no common base');
      for (const p of secretHeld) {
        m.notes.push(`${rules.nameOf!(p)}: ${label} holds secret-shaped content, so it was not merged into a new version: kept ${label}'s version unchanged (your change is in ${head.slice(0, 8)}); remove the secret (git-kb lint shows where), re-apply your change and sync`);
      }
      result.notes.push(...m.notes);
      target = await writeCommit({ dir, tree: m.tree, parents: [head, tip], message: mergeMessage(t, m.merged.length, m.conflicts, m.notes, rules), author: tx.author() });
      made = m.conflicts;
      result.merge = 'merge';
      result.merge_commit = target;
    } else result.merge = 'fast-forward';
  } else result.merge = 'fast-forward';
  const changes = await tx.checkout(head, target, reader);
  countChanges(changes, result.changed);
  result.notes.push(...promptNotices(dir, changes));
  result.conflicts.push(...made.flatMap((c) => (c.kind === 'inline' ? conflictsIn(dir, c.path) : c.sibling ? conflictsIn(dir, c.sibling) : [])));
  trackConflicts(dir, changes.filter((c) => c.oid !== null).map((c) => c.path));
}

/**
 * What the pull brought that reaches every prompt or tool call from now on, so the user hears of it: kernel
 * entries (their bodies are injected into every prompt) and gate rules (they judge what the agent publishes),
 * new or changed. Another machine's or another person's words become the model's standing instructions here.
 */
function promptNotices(dir: string, changes: PathChange[]): string[] {
  const kernel: string[] = [];
  const rules: string[] = [];
  for (const c of changes) {
    if (c.oid === null || !c.path.startsWith('entries/')) continue;
    let data: Record<string, unknown>;
    try {
      data = splitEntry(readEntryText(dir, c.path), c.path).data;
    } catch {
      continue; // unreadable: lint's business, and the hooks skip it
    }
    const name = `${idFromPath(c.path) ?? c.path} ${String(data.title ?? '').slice(0, 80)}`.trim();
    if (data.kernel === true) kernel.push(name);
    if (Array.isArray(data.rules) && data.rules.length) rules.push(name);
  }
  const list = (xs: string[]): string => `${xs.slice(0, 5).join('; ')}${xs.length > 5 ? `; and ${xs.length - 5} more` : ''}`;
  const out: string[] = [];
  if (kernel.length) out.push(`brought ${kernel.length} new or changed kernel ${kernel.length === 1 ? 'entry' : 'entries'}, whose text now goes into every prompt: ${list(kernel)} ("git-kb get ID" reads one)`);
  if (rules.length) out.push(`brought ${rules.length} new or changed ${rules.length === 1 ? 'entry' : 'entries'} with gate rules, which now judge what is published: ${list(rules)}`);
  return out;
}

/** Pulls the remote tip into the current branch under the write lock, recording what it did in `result`. */
export async function integrate(t: RemoteTarget, tip: string, result: SyncResult, identity: CommitIdentity): Promise<void> {
  await withWriteLock(
    t.dir,
    async (tx) => {
      const reader = new ObjectReader(t.dir);
      try {
        await pull(tx, reader, t, tip, result);
      } catch (err) {
        if (err instanceof KbError) throw err;
        // NOTE: a merge that fails unexpectedly has changed nothing (the branch moves last, after a journal).
        const msg = String((err as Error)?.message ?? err).split('\n')[0];
        throw new KbError('SYNC_FAILED', `could not merge ${t.remote}/${t.branch} (${tip.slice(0, 8)}) into ${t.branch}: ${msg}; nothing was changed and local commits are kept; please report this`, { tip });
      } finally {
        reader.close();
      }
    },
    { identity },
  );
}
