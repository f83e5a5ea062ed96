/**
 * Contract: a record of the data repos this process committed to, so the CLI can push after a write when
 * auto_sync is on (spec/sync.md, "Auto mode"). No dependencies: the CLI loads it on every verb.
 */
const committed = new Set<string>();

/** Notes that a commit landed in the data repo at `dir`. */
export function noteCommit(dir: string): void {
  committed.add(dir);
}

/** The data repos committed to so far in this process. */
export function committedDirs(): string[] {
  return [...committed];
}
