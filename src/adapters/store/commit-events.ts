/**
 * Contract: a record of the data repos this process committed to, so the CLI can push after a write when
 * auto_sync is on (spec/sync.md, "Auto mode"), and of those a write created, so the CLI can say where the data
 * went (spec/cli.md, "Data repo"), and of a write under way, which a Ctrl-C lets finish. No dependencies: the CLI
 * loads it on every verb.
 */
const committed = new Set<string>();
const created = new Set<string>();
let notice: ((dir: string, stop?: { committed: boolean }) => void) | undefined;
/** Commits so far in this process, and their count when the write under way took its lock. */
let commits = 0;
let commitsAtLock = 0;
let writing: string | undefined;
let stopAfter = false;
let listening = false;

/**
 * Ctrl-C (SIGINT) and writes, once a write of this process has started: a Ctrl-C while a write holds the lock of
 * a data repo lets that write finish (it is all or nothing: a stop halfway would leave files the next write must
 * settle) and stops the process after it; `fn` gets the repo, to say so. A second Ctrl-C, or one outside a write,
 * stops at once (exit 130). A process that never writes keeps Node's own SIGINT. `fn` is called again with `stop`
 * when the write is done and the process stops, saying whether it committed (so the user knows whether to run it
 * again).
 */
export function onWriteInterrupt(fn: (dir: string, stop?: { committed: boolean }) => void): void {
  notice = fn;
}

function interrupt(): void {
  if (writing && !stopAfter) {
    stopAfter = true;
    notice?.(writing);
  } else process.exit(130);
}

/**
 * Lets a Ctrl-C that came during the write be seen before it ends: a write that never yields to the event loop
 * (an import writes its files in one go) would otherwise end, and the process with it, before Node reads the
 * signal (its handle does not keep the loop alive), and the Ctrl-C would be lost.
 */
export async function writeEnding(): Promise<void> {
  if (listening) await new Promise((resolve) => setImmediate(resolve));
}

/** Notes the data repo a write transaction holds the lock of now (undefined: the write ended, its lock released). */
export function noteWriting(dir: string | undefined): void {
  const was = writing;
  writing = dir;
  if (dir) commitsAtLock = commits;
  if (dir && notice && !listening) {
    listening = true;
    process.on('SIGINT', interrupt);
  }
  if (!dir && stopAfter) {
    if (was) notice?.(was, { committed: commits > commitsAtLock });
    process.exit(130);
  }
}

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
  commits++;
}

/** The data repos committed to so far in this process. */
export function committedDirs(): string[] {
  return [...committed];
}
