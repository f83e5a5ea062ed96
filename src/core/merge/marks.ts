/**
 * Contract: how a conflict shows in the files (spec/sync.md): the lines around a git-kb conflict block, git's own
 * markers, and the name of the file a sync keeps theirs in beside ours. No dependencies, so the code that lists
 * files or reports status (sync status, lint, status) finds conflicts without loading the merge code.
 */

/** The first characters of the line that opens a conflict block. */
export const CONFLICT_OPEN = '<<<<<<< git-kb conflict';
/** The line that closes a conflict block. */
export const CONFLICT_CLOSE = '>>>>>>> git-kb conflict end';

/** One unresolved conflict block (or a plain git conflict marker) in a text, with its 1-based line. */
export interface ConflictMark {
  line: number;
  kind: 'git-kb' | 'git';
}

/**
 * Finds the conflict blocks of a text: each outermost `<<<<<<< git-kb conflict` block, and plain git conflict
 * markers (`<<<<<<< ` at the start of a line) left by a merge made with git itself.
 */
export function findConflicts(text: string): ConflictMark[] {
  if (!text.includes('<<<<<<<')) return [];
  const marks: ConflictMark[] = [];
  let depth = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith(CONFLICT_OPEN)) {
      if (depth === 0) marks.push({ line: i + 1, kind: 'git-kb' });
      depth++;
    } else if (l.startsWith(CONFLICT_CLOSE)) {
      depth = Math.max(0, depth - 1);
    } else if (depth === 0 && /^<{7}( |$)/.test(l)) {
      marks.push({ line: i + 1, kind: 'git' });
    }
  }
  return marks;
}

/** True for a file that holds "theirs" of a conflicted non-entry file (`<name>.conflict-<8 hex>`). */
export function isConflictSibling(name: string): boolean {
  return /\.conflict-[0-9a-f]{8}$/.test(name);
}
