/**
 * Contract: `commit` turns hand edits of entry files (made in Obsidian, an editor, a shell) into one commit:
 * every entry file that is new, modified or deleted in the work tree compared with HEAD. What would be committed
 * is checked first as every write is: secrets with the one secret guard (refuseSecretWrite), then each new or
 * changed file against the format with links resolved (and no conflict markers, no id claimed twice), and no
 * deletion may leave another entry's link dangling; any failure commits nothing and lists every problem with
 * file and line. Obsidian's `.obsidian/` folder is kept out by the `.gitignore` (store/gitignore.ts), committed
 * with the edits (or alone, when the folder is there and not ignored yet). `sync` runs the same before it pulls.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatProblems, KbError, messageWithoutPlace } from '../core/errors.js';
import { parseEntry, type Problem } from '../core/format/entry.js';
import { idFromPath } from '../core/format/schema.js';
import { conflictProblems } from '../core/merge/merge.js';
import { refuseSecretWrite } from '../core/secrets/guard.js';
import { workingChanges } from '../adapters/git/status.js';
import { gitignoreUpdate } from '../adapters/store/gitignore.js';
import { listEntryPaths, readEntryText } from '../adapters/store/layout.js';
import { withWriteLock, type PendingFile, type WriteTransaction } from '../adapters/write/transaction.js';
import { linksInto } from './delete.js';
import { filesById } from './find.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface CommitEditsOptions extends RepoOptions {
  message?: string;
}

export interface CommitEditsResult {
  /** Absent when there was nothing to commit. */
  commit?: string;
  files: { path: string; status: 'added' | 'modified' | 'deleted' }[];
  /** True when the commit includes the .gitignore that keeps .obsidian/ out. */
  gitignore: boolean;
}

/** An entry file's path: `.md` directly in entries/, hosts/<key>/ or sessions/<yyyy>/<mm>/. */
const ENTRY_FILE = /^(?:entries\/[^/]+|hosts\/[^/]+\/[^/]+|sessions\/[^/]+\/[^/]+\/[^/]+)\.md$/;
const isEntryFile = (p: string): boolean => ENTRY_FILE.test(p) && !p.split('/').pop()!.startsWith('.');

/** Commits the hand edits of the repo inside a held write lock (also sync's first step). */
export async function commitWorkingChanges(dir: string, tx: WriteTransaction, message?: string): Promise<CommitEditsResult> {
  const changes = await workingChanges(dir, listEntryPaths(dir), isEntryFile);
  const ignore = changes.length || fs.existsSync(path.join(dir, '.obsidian')) ? gitignoreUpdate(dir) : undefined;
  if (changes.length === 0 && !ignore) return { files: [], gitignore: false };
  const files: PendingFile[] = [];
  const problems: Problem[] = [];
  for (const c of changes) {
    if (c.work === null) {
      files.push({ path: c.path, content: null });
      continue;
    }
    try {
      files.push({ path: c.path, content: readEntryText(dir, c.path) });
    } catch (err) {
      const e = err as KbError;
      problems.push({ rule: 'unreadable', message: messageWithoutPlace(e), file: c.path, line: (e.data?.line as number) ?? 1 });
    }
  }
  const status = changes.map((c) => ({ path: c.path, status: c.work === null ? ('deleted' as const) : c.head === null ? ('added' as const) : ('modified' as const) }));
  const subject = message?.trim() || `commit ${changes.length} hand edit${changes.length === 1 ? '' : 's'}${changes.length ? `: ${changes.slice(0, 3).map((c) => c.path.split('/').pop()).join(', ')}${changes.length > 3 ? ', ...' : ''}` : ' (.gitignore)'}`;
  // NOTE: secrets first, so a secret is refused as one and never echoed by a format message.
  refuseSecretWrite(files, subject);
  const index = filesById(dir);
  const exists = (id: string): boolean => index.has(id);
  for (const f of files) {
    if (f.content === null) continue;
    const text = typeof f.content === 'string' ? f.content : f.content.toString('utf8');
    problems.push(...parseEntry(text, f.path, { idExists: exists }).problems, ...conflictProblems(text, f.path));
    const id = idFromPath(f.path);
    const claims = id ? index.get(id) ?? [] : [];
    if (claims.length > 1) problems.push({ rule: 'id-duplicate', message: `id ${id} is claimed by ${claims.length} files: ${claims.map((x) => x.path).join(', ')}`, file: f.path, line: 2, id });
  }
  const gone = new Set(changes.filter((c) => c.work === null).map((c) => idFromPath(c.path)).filter((x): x is string => !!x && !index.has(x)));
  if (gone.size) {
    const changed = new Set(files.map((f) => f.path));
    for (const d of linksInto(dir, gone, (id) => exists(id) || gone.has(id))) if (!changed.has(d.file)) problems.push({ rule: 'link-dangling', message: `links to ${d.to}, whose file was deleted`, file: d.file, line: d.line });
  }
  if (problems.length) {
    throw new KbError('INVALID_ENTRY', `hand edits not committed (nothing written); fix these, or undo the edit:\n${formatProblems(problems)}`, { problems });
  }
  if (ignore) files.push(ignore);
  const commit = await tx.commit(files, subject);
  return { commit, files: status, gitignore: !!ignore };
}

/** `git-kb commit`: the hand edits of the work tree as one commit. */
export async function commitHandEdits(options: CommitEditsOptions): Promise<CommitEditsResult> {
  const { dir } = repoForRead(options);
  return withWriteLock(dir, (tx) => commitWorkingChanges(dir, tx, options.message), { identity: options.settings });
}
