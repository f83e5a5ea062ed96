/**
 * Contract: the kept list of paths that may hold an unresolved sync conflict, `.git/git-kb/conflicts.json`
 * (src/app/conflicts.ts re-checks every listed path and keeps only the real ones). A checkout adds the paths it
 * wrote before its journal is cleared, so a sync killed after writing a conflict still lists it; no list at all
 * means "scan every file once".
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './fsutil.js';
import { stateDir } from './layout.js';

function listFile(dir: string): string {
  return path.join(stateDir(dir), 'conflicts.json');
}

/** The listed paths, or undefined when there is no readable list. */
export function readConflictList(dir: string): string[] | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(listFile(dir), 'utf8')) as unknown;
    if (Array.isArray(parsed) && parsed.every((p) => typeof p === 'string')) return parsed;
  } catch {
    // missing or unreadable
  }
  return undefined;
}

/** Replaces the list (best effort: a read-only repo re-checks next time). */
export function writeConflictList(dir: string, paths: string[]): void {
  try {
    fs.mkdirSync(stateDir(dir), { recursive: true });
    writeFileAtomic(listFile(dir), JSON.stringify(paths), { fsync: false });
  } catch {
    // NOTE: a read-only repo still reports; it just re-checks next time.
  }
}

/** Adds paths to re-check to an existing list (none: the next check scans everything anyway). */
export function addConflictCandidates(dir: string, paths: string[]): void {
  const listed = readConflictList(dir);
  if (!listed || paths.length === 0) return;
  const all = [...new Set([...listed, ...paths])].sort();
  if (all.length !== listed.length) writeConflictList(dir, all);
}
