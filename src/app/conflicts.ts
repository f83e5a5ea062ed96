/**
 * Contract: the unresolved sync conflicts of a data repo (spec/sync.md, "Conflicts"): an entry holding a git-kb
 * conflict block (or plain git's markers), or a file with theirs kept beside it as `<name>.conflict-<8 hex>`.
 * The list is kept in `.git/git-kb/conflicts.json`, so a sync with nothing to do reads a handful of files, not
 * the repo.
 */
import fs from 'node:fs';
import { readConflictList, writeConflictList } from '../adapters/store/conflict-list.js';
import { entryFolderNames, readEntryText, safeJoin } from '../adapters/store/layout.js';
import { idFromPath } from '../core/format/schema.js';
import { findConflicts, isConflictSibling } from '../core/merge/marks.js';

/** One unresolved conflict: the file, the line of its conflict block, and the entry id when it is an entry. */
export interface ConflictInfo {
  path: string;
  line: number;
  id?: string;
  /** "entry": both versions in the entry; "file": theirs kept in the sibling `path`; "git": markers from plain git. */
  kind: 'entry' | 'file' | 'git';
  /** For kind "file": the file that holds ours. */
  of?: string;
}

/** The file a conflict sibling holds theirs of. */
export function siblingOf(p: string): string {
  return p.replace(/\.conflict-[0-9a-f]{8}$/, '');
}

/**
 * Conflict marks in a working file (entries in conflict form, git's own markers); none in a file that does not read
 * as an entry does (a link out of the repo, a FIFO or device, over the input limit: layout.ts readEntryText).
 */
export function conflictMarksIn(dir: string, p: string): { line: number; kind: string }[] {
  try {
    return findConflicts(readEntryText(dir, p));
  } catch {
    return [];
  }
}

/** The conflicts one file holds now (none once it is settled or gone). */
export function conflictsIn(dir: string, p: string): ConflictInfo[] {
  if (isConflictSibling(p)) {
    if (!fs.existsSync(safeJoin(dir, p))) return [];
    return [{ path: p, line: 1, kind: 'file', of: siblingOf(p) }];
  }
  const id = p.endsWith('.md') ? idFromPath(p) : undefined;
  return conflictMarksIn(dir, p).map((m) => ({ path: p, line: m.line, kind: m.kind === 'git' ? 'git' : 'entry', ...(id ? { id } : {}) }));
}

/** Every conflict in the working files, found by reading them all (lint does the same). */
function scanConflicts(dir: string): ConflictInfo[] {
  const out: ConflictInfo[] = [];
  for (const name of fs.readdirSync(dir)) if (isConflictSibling(name)) out.push(...conflictsIn(dir, name));
  for (const { folder: d, names } of entryFolderNames(dir)) {
    for (const name of names) {
      if (name.endsWith('.md') || isConflictSibling(name)) out.push(...conflictsIn(dir, `${d}/${name}`));
    }
  }
  return out;
}

/**
 * The unresolved conflicts, from the kept list plus `touched` (paths whose content just changed), the list brought
 * up to date. The first call on a repo (no list yet) scans every file once.
 */
export function trackConflicts(dir: string, touched: string[] = []): ConflictInfo[] {
  let paths = readConflictList(dir);
  const listed = paths;
  if (!paths) paths = [...new Set(scanConflicts(dir).map((c) => c.path))];
  const candidates = [...new Set([...paths, ...touched])];
  const infos = candidates.flatMap((p) => conflictsIn(dir, p));
  const now = [...new Set(infos.map((c) => c.path))].sort();
  if (!listed || JSON.stringify(now) !== JSON.stringify([...listed].sort())) writeConflictList(dir, now);
  return infos.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
}
