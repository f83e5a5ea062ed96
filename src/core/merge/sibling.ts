/** Contract: the name of the file a sync keeps theirs in beside ours (spec/sync.md): no dependencies, so listing code can test names without loading the merge code. */

/** True for a file that holds "theirs" of a conflicted non-entry file (`<name>.conflict-<8 hex>`). */
export function isConflictSibling(name: string): boolean {
  return /\.conflict-[0-9a-f]{8}$/.test(name);
}
