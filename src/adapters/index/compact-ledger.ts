/**
 * Contract: the compaction ledger (spec/memory.md, "The ledger"): one JSON line per graded round, appended to
 * `<data>/.git/git-kb/compact-ledger.jsonl`. It is derived state (safe to delete: the round count starts again);
 * a corrupt line is skipped when read. Beside it, `compact-floors.json`: the size at which each target was last
 * graded FLOOR, which the Stop hook's budget block reads (safe to delete: the block asks once more).
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../store/fsutil.js';
import { stateDir } from '../store/layout.js';
import type { FloorSizes } from '../../core/budget.js';

/** One graded round. */
export interface LedgerRow {
  at: string;
  directive: string;
  target: string;
  /** The baseline revision, as a full commit id. */
  baseline: string;
  baseline_chars: number;
  current_chars: number;
  verdict: string;
  round: number;
  defects: number;
  /** The commit that put the baseline back, when this round ended in a rollback. */
  rolled_back?: string;
}

/** The ledger file of a data repo. */
export function compactLedgerPath(dir: string): string {
  return path.join(stateDir(dir), 'compact-ledger.jsonl');
}

/** Every readable row, oldest first. */
export function readCompactLedger(dir: string): LedgerRow[] {
  let text: string;
  try {
    text = fs.readFileSync(compactLedgerPath(dir), 'utf8');
  } catch {
    return [];
  }
  const rows: LedgerRow[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as LedgerRow;
      if (r && typeof r.target === 'string' && typeof r.baseline === 'string') rows.push(r);
    } catch {
      /* a torn or hand-edited line: skipped */
    }
  }
  return rows;
}

/** Appends one row. */
export function appendCompactLedger(dir: string, row: LedgerRow): void {
  const file = compactLedgerPath(dir);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.appendFileSync(file, `${JSON.stringify(row)}\n`);
}

function floorsPath(dir: string): string {
  return path.join(stateDir(dir), 'compact-floors.json');
}

/** The sizes targets were graded FLOOR at (empty when none, or unreadable). */
export function readFloorSizes(dir: string): FloorSizes {
  try {
    const raw = JSON.parse(fs.readFileSync(floorsPath(dir), 'utf8')) as unknown;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
    return Object.fromEntries(Object.entries(raw).filter((kv): kv is [string, number] => typeof kv[1] === 'number' && Number.isFinite(kv[1])));
  } catch {
    return {};
  }
}

/** Records that `target` was graded FLOOR at `chars` (as the budgets measure it). */
export function recordFloorSize(dir: string, target: string, chars: number): void {
  writeFileAtomic(floorsPath(dir), `${JSON.stringify({ ...readFloorSizes(dir), [target]: chars })}\n`, { fsync: false });
}
