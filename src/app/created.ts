/**
 * Contract: the data repos a write of this process created (repoForWrite notes them), handed out once, so the CLI
 * says where the data went (spec/cli.md, "Data repo"). Light: main asks after every verb, so nothing heavy loads.
 */
import { takeCreatedDirs } from '../adapters/store/commit-events.js';

/** The data repos created so far and not yet reported; each is handed out once. */
export function takeCreatedRepos(): string[] {
  return takeCreatedDirs();
}
