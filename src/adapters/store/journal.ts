/**
 * Contract: the one write journal of a data repo, `.git/git-kb/journal.json`. A writer holding the write lock
 * writes it before touching anything and removes it once the write is complete, so a killed writer leaves a note
 * that the next one (taking the lock) finishes. Two kinds: a commit, where the working files lead and the branch
 * follows (the journal names the blob each path is to hold, so the next writer knows whether every file was
 * written whole: it commits them all, or puts them all back; a commit is all or nothing), and a checkout, where
 * the branch leads and the working files and index follow (replayed until every path matches the branch).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from './fsutil.js';
import { stateDir } from './layout.js';

/** What a write in progress is doing: the paths it touches, and what finishes it. */
export type Journal =
  | { kind: 'commit'; paths: string[]; message: string; oids?: (string | null)[] }
  | { kind: 'checkout'; paths: string[]; from: string | null; to: string };

function journalFile(dir: string): string {
  return path.join(stateDir(dir), 'journal.json');
}

/** Records the write about to start (the caller holds the write lock). */
export function writeJournal(dir: string, journal: Journal): void {
  fs.mkdirSync(stateDir(dir), { recursive: true });
  writeFileAtomic(journalFile(dir), JSON.stringify(journal));
}

/** True when a journal is waiting to be finished. */
export function journalPending(dir: string): boolean {
  return fs.existsSync(journalFile(dir));
}

/**
 * The journal left by an unfinished write, or undefined. One that cannot be read is removed: a write that died
 * before its journal was whole had touched nothing yet.
 */
export function readJournal(dir: string): Journal | undefined {
  let text: string;
  try {
    text = fs.readFileSync(journalFile(dir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const j = JSON.parse(text) as { kind?: unknown; paths?: unknown; message?: unknown; from?: unknown; to?: unknown; oids?: unknown };
    if (!Array.isArray(j.paths) || !j.paths.every((p) => typeof p === 'string')) throw new Error('no paths');
    const paths = j.paths as string[];
    if (j.kind === 'checkout') {
      if (typeof j.to !== 'string') throw new Error('no target');
      return { kind: 'checkout', paths, from: typeof j.from === 'string' ? j.from : null, to: j.to };
    }
    // NOTE: a journal without a kind is a commit's (the only kind before checkouts shared the journal).
    const oids = Array.isArray(j.oids) && j.oids.length === paths.length && j.oids.every((o) => o === null || typeof o === 'string') ? (j.oids as (string | null)[]) : undefined;
    return { kind: 'commit', paths, message: typeof j.message === 'string' ? j.message : 'a write', ...(oids ? { oids } : {}) };
  } catch {
    clearJournal(dir);
    return undefined;
  }
}

/** Removes the journal once its write is complete. */
export function clearJournal(dir: string): void {
  fs.rmSync(journalFile(dir), { force: true });
}
