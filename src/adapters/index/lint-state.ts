/**
 * Contract: the lint state, `.git/git-kb/lint.v1`: what the last `lint` read (a stat table: every file of the
 * entry folders with its stat data, under the names key of that moment), which files link to which ids, and each
 * file's own findings. `lint` then re-reads only the files whose stat data moved, the new ones, those linking an
 * id that went away and those with a dangling link; the others' findings are the recorded ones. Bump LINT_RULES
 * when a check changes: a state of other rules is ignored. Safe to delete.
 */
import { readAt } from '../store/fsutil.js';
import { patchStat, readStatTableFd, writeStatTable, type FileStat, type StatColumns, type StatTable } from './stat-table.js';
import type { StatData } from '../store/layout.js';
import fs from 'node:fs';
import type { Problem } from '../../core/format/entry.js';

/** The version of the checks lint makes (and of their messages: 5, type-unknown names the nearest type); a state recorded under another is ignored. */
const LINT_RULES = 5;
const MAGIC = 'git-kb lint 2';

export interface LintStateHeader {
  rules: number;
  namesKey: string;
}

export interface LintState {
  table: StatTable<LintStateHeader>;
  /** id -> the files that link to it. */
  links: Map<string, string[]>;
  /** file -> its own findings (files without any absent). */
  problems: Map<string, Problem[]>;
  /**
   * Records new stat data for file `i` in the very file this state was read from, in place; false when it cannot
   * (opened read-only). Only for a file whose findings and links are the recorded ones.
   */
  patch(i: number, st: StatData): boolean;
  /** Closes the state file (call it when done). */
  close(): void;
}

export function lintStateFile(dir: string): string {
  return `${dir}/.git/git-kb/lint.v1`;
}

/** The recorded clean state, open (close it), or undefined (none, torn, other rules). */
export function readLintState(dir: string): LintState | undefined {
  let fd: number | undefined;
  let writable = true;
  try {
    try {
      fd = fs.openSync(lintStateFile(dir), 'r+');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EACCES' && (err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
      fd = fs.openSync(lintStateFile(dir), 'r');
      writable = false;
    }
    const table = readStatTableFd<LintStateHeader>(fd, MAGIC, (h) => h?.rules === LINT_RULES && typeof h.namesKey === 'string');
    if (!table) throw new Error('no state');
    const tail = JSON.parse(readAt(fd, table.tailAt, table.tailBytes).toString('utf8')) as { links: Record<string, string[]>; problems: Record<string, Problem[]> };
    const open = fd;
    let closed = false;
    return {
      table,
      links: new Map(Object.entries(tail.links)),
      problems: new Map(Object.entries(tail.problems)),
      patch: (i, st) => {
        if (!writable || closed) return false;
        patchStat(open, table, i, st);
        return true;
      },
      close: () => {
        if (!closed) fs.closeSync(open);
        closed = true;
      },
    };
  } catch {
    if (fd !== undefined) fs.closeSync(fd);
    return undefined;
  }
}

/** Records what a lint read and found. Never throws (derived state: the next lint reads everything). */
export function writeLintState(dir: string, namesKey: string, files: FileStat[] | StatColumns, links: Map<string, string[]>, problems: Map<string, Problem[]>): void {
  try {
    const tail = Buffer.from(JSON.stringify({ links: Object.fromEntries(links), problems: Object.fromEntries(problems) }), 'utf8');
    writeStatTable(lintStateFile(dir), MAGIC, { rules: LINT_RULES, namesKey } satisfies LintStateHeader, files, tail);
  } catch {
    /* the next lint checks everything */
  }
}
