/**
 * Contract: the per-session dedup ledger of the prompt hook (spec/hooks.md, "Ledger"). One small JSON file per
 * session under `<data>/.git/git-kb/prompt/ledger/`, holding the ids already pointed to in that session and
 * the index generation they were pointed to under. A different generation (the data changed) empties the id
 * list. The file is written only when a pointer is added or on a session's first prompt (so its absence means
 * "first prompt"), in place, because a per-prompt write would cost more than the whole lookup. A missing,
 * unreadable or corrupt ledger reads as empty; a failed write is ignored (the worst case is a repeated pointer).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fnv1a } from '../../core/text/fnv.js';
import { readSmall } from '../system/read-bounded.js';
import { promptStateDir, writeInPlace } from './fresh.js';

export interface Ledger {
  generation: string;
  ids: string[];
  /** False when the session has no ledger file yet (its first looked-at prompt). */
  exists: boolean;
}

/** A file name for a session id: safe characters kept, anything else hashed. */
export function ledgerName(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9_-]/g, '');
  if (safe === sessionId && safe.length > 0 && safe.length <= 100) return `${safe}.json`;
  return `${safe.slice(0, 60)}-${fnv1a(sessionId).toString(36)}.json`;
}

function ledgerPath(dir: string, sessionId: string): string {
  return path.join(promptStateDir(dir), 'ledger', ledgerName(sessionId));
}

/** The largest ledger read: far more ids than a session is ever pointed to; a bigger file reads as empty. */
const LEDGER_MAX_BYTES = 1024 * 1024;

/**
 * Reads a session's ledger; the ids are emptied when the generation differs. What is not a regular file of at most
 * LEDGER_MAX_BYTES (a FIFO, `/dev/zero` linked in its place) reads as a corrupt ledger, without waiting or reading it.
 */
export function readLedger(dir: string, sessionId: string, generation: string): Ledger {
  const file = ledgerPath(dir, sessionId);
  const bytes = readSmall(file, LEDGER_MAX_BYTES);
  if (!bytes) return { generation, ids: [], exists: fs.existsSync(file) };
  try {
    const raw = JSON.parse(bytes.toString('utf8')) as { generation?: unknown; ids?: unknown };
    if (raw.generation !== generation || !Array.isArray(raw.ids)) return { generation, ids: [], exists: true };
    return { generation, ids: raw.ids.filter((x): x is string => typeof x === 'string'), exists: true };
  } catch {
    return { generation, ids: [], exists: true };
  }
}

/** Writes a session's ledger in place (errors ignored; see writeInPlace). */
export function writeLedger(dir: string, sessionId: string, ledger: { generation: string; ids: string[] }): void {
  const file = ledgerPath(dir, sessionId);
  const text = JSON.stringify({ generation: ledger.generation, ids: ledger.ids });
  try {
    writeInPlace(file, text);
  } catch {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      writeInPlace(file, text);
    } catch {
      /* a read-only repo: pointers may repeat */
    }
  }
}
