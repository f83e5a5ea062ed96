/**
 * Contract: the data repos a write of this process created (repoForWrite notes them), handed out once, so the CLI
 * says where the data went (spec/cli.md, "Data repo"). Light: main asks after every verb, so nothing heavy loads.
 */
import { onWriteInterrupt, takeCreatedDirs } from '../adapters/store/commit-events.js';

/** The data repos created so far and not yet reported; each is handed out once. */
export function takeCreatedRepos(): string[] {
  return takeCreatedDirs();
}

/**
 * What a Ctrl-C does while a write of this process holds a data repo's lock (`fn` gets the repo; again, with `stop`,
 * when the write is done and the process stops: whether it committed).
 */
export function onInterruptedWrite(fn: (dir: string, stop?: { committed: boolean }) => void): void {
  onWriteInterrupt(fn);
}
