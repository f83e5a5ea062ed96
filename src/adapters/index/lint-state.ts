/**
 * Contract: the lint state, `.git/git-kb/lint.v1`: what the last `lint` read (a stat table: every file of the
 * entry folders with its stat data, under the names key of that moment), which files link to which ids, and each
 * file's own findings. `lint` then re-reads only the files whose stat data moved, the new ones, those linking an
 * id that went away and those with a dangling link; the others' findings are the recorded ones. Bump LINT_RULES
 * when a check changes: a state of other rules is ignored. Safe to delete.
 */
import { readAt } from '../store/fsutil.js';
import { readStatTable, writeStatTable, type FileStat, type StatColumns, type StatTable } from './stat-table.js';
import fs from 'node:fs';
import type { Problem } from '../../core/format/entry.js';

/** The version of the checks lint makes; a state recorded under another is ignored. */
const LINT_RULES = 2;
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
}

export function lintStateFile(dir: string): string {
  return `${dir}/.git/git-kb/lint.v1`;
}

/** The recorded clean state, or undefined (none, torn, other rules). */
export function readLintState(dir: string): LintState | undefined {
  const table = readStatTable<LintStateHeader>(lintStateFile(dir), MAGIC, (h) => h?.rules === LINT_RULES && typeof h.namesKey === 'string');
  if (!table) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(lintStateFile(dir), 'r');
    const st = fs.fstatSync(fd);
    if (st.ino !== table.ino || st.size !== table.size) return undefined;
    const tail = JSON.parse(readAt(fd, table.tailAt, table.tailBytes).toString('utf8')) as { links: Record<string, string[]>; problems: Record<string, Problem[]> };
    return { table, links: new Map(Object.entries(tail.links)), problems: new Map(Object.entries(tail.problems)) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
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
