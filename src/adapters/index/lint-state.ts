/**
 * Contract: the lint state, `.git/git-kb/lint.v1`: what the last clean `lint` checked (a stat table: every entry
 * file with its stat data, under the names key and hosts.yaml's stat data of that moment) and which files link to
 * which ids. `lint` then re-checks only the files whose stat data moved, the new ones, and those linking an id
 * that went away; a lint that finds anything records nothing, so the next one checks again everything changed
 * since the last clean one. Bump LINT_RULES when a check changes: a state of other rules is ignored. Safe to delete.
 */
import { readAt, readStatTable, writeStatTable, type FileStat, type StatTable } from './stat-table.js';
import fs from 'node:fs';

/** The version of the checks lint makes; a state recorded under another is ignored. */
const LINT_RULES = 1;
const MAGIC = 'git-kb lint 1';

export interface LintStateHeader {
  rules: number;
  namesKey: string;
  hosts: string;
}

export interface LintState {
  table: StatTable<LintStateHeader>;
  /** id -> the files that link to it. */
  links: Map<string, string[]>;
}

export function lintStateFile(dir: string): string {
  return `${dir}/.git/git-kb/lint.v1`;
}

/** The recorded clean state, or undefined (none, torn, other rules). */
export function readLintState(dir: string): LintState | undefined {
  const table = readStatTable<LintStateHeader>(lintStateFile(dir), MAGIC, (h) => h?.rules === LINT_RULES && typeof h.namesKey === 'string' && typeof h.hosts === 'string');
  if (!table) return undefined;
  let fd: number | undefined;
  try {
    fd = fs.openSync(lintStateFile(dir), 'r');
    const st = fs.fstatSync(fd);
    if (st.ino !== table.ino || st.size !== table.size) return undefined;
    const links = JSON.parse(readAt(fd, table.tailAt, table.tailBytes).toString('utf8') || '{}') as Record<string, string[]>;
    return { table, links: new Map(Object.entries(links)) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Records a clean lint. Never throws (derived state: the next lint checks everything). */
export function writeLintState(dir: string, header: Omit<LintStateHeader, 'rules'>, files: FileStat[], links: Map<string, string[]>): void {
  try {
    writeStatTable(lintStateFile(dir), MAGIC, { rules: LINT_RULES, ...header } satisfies LintStateHeader, files, Buffer.from(JSON.stringify(Object.fromEntries(links)), 'utf8'));
  } catch {
    /* the next lint checks everything */
  }
}
