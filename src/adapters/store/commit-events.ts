/**
 * Contract: a record of the data repos this process committed to, so the CLI can push after a write when
 * auto_sync is on (spec/sync.md, "Auto mode"), and of those a write created, so the CLI can say where the data
 * went (spec/cli.md, "Data repo"). No dependencies: the CLI loads it on every verb.
 */
const committed = new Set<string>();
const created = new Set<string>();

/** Notes that a write created the data repo at `dir` (its first write; not `init`, which says so itself). */
export function noteCreated(dir: string): void {
  created.add(dir);
}

/** The data repos a write of this process created; each is reported once, so this empties the record. */
export function takeCreatedDirs(): string[] {
  const dirs = [...created];
  created.clear();
  return dirs;
}

/** Notes that a commit landed in the data repo at `dir`. */
export function noteCommit(dir: string): void {
  committed.add(dir);
}

/** The data repos committed to so far in this process. */
export function committedDirs(): string[] {
  return [...committed];
}
