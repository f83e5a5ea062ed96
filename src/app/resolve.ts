/**
 * Contract: `resolve` of spec/sync.md: settles sync conflicts with one command and one commit. For an entry id,
 * keep ours (the file), theirs (the block) or both (ours' fields with both sides' lists, both bodies); for a file
 * with theirs kept beside it, keep ours or theirs, and the sibling goes. Git's own conflict markers are left to a
 * person, who is told so.
 */
import { unknownChoice } from '../core/text/suggest.js';
import fs from 'node:fs';
import path from 'node:path';
import { readEntryText, safeJoin } from '../adapters/store/layout.js';
import { MAX_INPUT_BYTES, readRegularFile } from '../adapters/system/read-bounded.js';
import { withWriteLock, type PendingFile } from '../adapters/write/transaction.js';
import { KbError } from '../core/errors.js';
import { isConflictSibling } from '../core/merge/marks.js';
import { resolveConflictText, type Keep } from '../core/merge/merge.js';
import { conflictMarksIn, siblingOf, trackConflicts, type ConflictInfo } from './conflicts.js';
import { nowStamp } from './fields.js';
import { findEntryFile } from './find.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface ResolveOptions extends RepoOptions {
  targets: string[];
  keep?: string;
  all?: boolean;
}

export interface ResolveResult {
  keep: Keep;
  resolved: { target: string; path: string; id?: string }[];
  commit: string | null;
  unresolved: ConflictInfo[];
}

/** Settles conflicts: for each entry id or file, keep ours, theirs, or both (entries only). One commit. */
export async function resolveConflicts(options: ResolveOptions): Promise<ResolveResult> {
  const keep = options.keep as Keep;
  if (!['ours', 'theirs', 'both'].includes(options.keep ?? '')) {
    const why = '"ours" is the version the file holds, "theirs" the one in the conflict block';
    if (options.keep === undefined) throw new KbError('USAGE', `resolve needs --keep ours, theirs or both; ${why}`);
    throw new KbError('USAGE', `${unknownChoice('--keep', options.keep, ['ours', 'theirs', 'both']).message}; ${why}`);
  }
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    let targets = options.targets;
    if (options.all) targets = [...new Set(trackConflicts(dir).map((c) => c.id ?? c.of ?? c.path))];
    if (targets.length === 0) throw new KbError('USAGE', options.all ? 'no unresolved conflicts' : 'name the entry ids or files to resolve (or --all)');
    const files: PendingFile[] = [];
    const resolved: ResolveResult['resolved'] = [];
    for (const target of targets) {
      if (/^kb-[0-9a-z]+$/.test(target)) {
        const file = findEntryFile(dir, target);
        const text = readEntryText(dir, file.path);
        let next: string | undefined;
        try {
          next = resolveConflictText(text, keep, file.path, keep === 'both' ? nowStamp() : undefined);
        } catch (err) {
          throw new KbError('CONFLICT', (err as Error).message, { file: file.path });
        }
        if (next === undefined) {
          const git = conflictMarksIn(dir, file.path);
          if (git.length) throw new KbError('CONFLICT', `${file.path}:${git[0]!.line}: these are git's own conflict markers, not a git-kb conflict block; edit the file by hand (keep what you want, delete the marker lines) and commit`, { file: file.path, line: git[0]!.line });
          throw new KbError('NOT_FOUND', `${target} (${file.path}) has no unresolved conflict`, { id: target });
        }
        files.push({ path: file.path, content: next });
        resolved.push({ target, path: file.path, id: target });
        continue;
      }
      // A file with theirs kept beside it: the file itself or its sibling.
      const rel = target.replace(/\\/g, '/').replace(/^\.\//, '');
      const base = siblingOf(rel);
      safeJoin(dir, base);
      const dirOf = base.includes('/') ? base.slice(0, base.lastIndexOf('/')) : '';
      const siblings = fs
        .readdirSync(dirOf ? path.join(dir, dirOf) : dir)
        .filter((n) => isConflictSibling(n) && siblingOf(n) === base.split('/').pop())
        .map((n) => (dirOf ? `${dirOf}/${n}` : n))
        .filter((s) => s === rel || rel === base);
      if (siblings.length === 0) throw new KbError('NOT_FOUND', `${target} has no unresolved conflict (no ${base}.conflict-* file beside it)`);
      if (keep === 'both') throw new KbError('USAGE', `--keep both works for entries only; for ${base} keep ours or theirs, or merge ${siblings[0]} into it by hand and delete it`);
      if (keep === 'theirs') {
        if (siblings.length > 1) throw new KbError('CONFLICT', `${base} has ${siblings.length} other versions (${siblings.join(', ')}); name the one to keep`);
        files.push({ path: base, content: readRegularFile(safeJoin(dir, siblings[0]!), siblings[0]!, MAX_INPUT_BYTES, true).toString('utf8') });
      }
      for (const s of siblings) files.push({ path: s, content: null });
      resolved.push({ target, path: base });
    }
    // NOTE: a conflicted file may sit anywhere in the repo (a sync merges every tracked file), so this one write
    // may touch paths outside the entry folders; safeJoin still keeps it out of .git and inside the repo.
    const message = `resolve ${resolved.map((r) => r.id ?? r.path).join(', ')}: keep ${keep}`;
    const commit = await tx.commit(files, message, { anyPath: true });
    return { keep, resolved, commit, unresolved: trackConflicts(dir, resolved.map((r) => r.path)) };
  }, { identity: options.settings });
}
