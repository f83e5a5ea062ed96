/**
 * Contract: what the index keeps for the prompt hook's recent-sessions signal (spec/hooks.md, "Signals";
 * spec/sessions.md, "Recall"). At build time the newest summaries of every project directory are written to a
 * side file named by a fresh token, and the index keeps only its name: the header every prompt parses stays small
 * however many sessions and directories there are. The side file is hashed by directory into BUCKETS parts behind
 * a table of offsets, so a session's first prompt reads the table and one small part (readSideRows), not the
 * whole list. A missing, unreadable or foreign side file reads as no rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { POINTER_TITLE_MAX } from '../../../core/budget.js';
import { isTrivialSession } from '../../../core/sessions/trivial.js';
import { clipText } from '../../../core/text/clip.js';
import { fnv1a } from '../../../core/text/fnv.js';
import { crypto } from '../../system/builtins.js';
import { openRegular, readSmall } from '../../system/read-bounded.js';
import { writeFileAtomic } from '../../store/fsutil.js';
import { promptStateDir } from '../fresh.js';

/** Summaries kept per directory (one more than the signal shows, so the current session can be left out). */
export const RECENT_KEPT = 4;

/** The recent-sessions signal's part of the index. */
export interface SessionExtras {
  v: 1;
  /** The side file's name inside the prompt state directory. */
  file?: string;
  sessions?: number;
  dirs?: number;
}

/** One row of the side file: [entry id, pointer title, session id, when it ended (what rows sort by)]. */
export type SideRow = [string, string, string, string];

/** Parts of the side file; a directory's rows are all in part fnv1a(dir) % BUCKETS. */
export const BUCKETS = 64;
const MAGIC = 'GKBRS001';
const TABLE = 8 + BUCKETS * 8;
/** The names side files are given (anything else named in an index is not read). */
export const SIDE_FILE = /^recent-[0-9a-f]+\.bin$/;

/** Encodes the side file: a magic, a table of [offset, length] per part, then each part as JSON {dir: rows}. */
export function encodeSide(byDir: Record<string, SideRow[]>): Buffer {
  const parts: Record<string, SideRow[]>[] = Array.from({ length: BUCKETS }, () => ({}));
  for (const [dir, rows] of Object.entries(byDir)) parts[fnv1a(dir) % BUCKETS]![dir] = rows;
  const bodies = parts.map((p) => Buffer.from(Object.keys(p).length ? JSON.stringify(p) : '', 'utf8'));
  const table = Buffer.alloc(TABLE);
  table.write(MAGIC, 0, 'latin1');
  let off = TABLE;
  bodies.forEach((b, i) => {
    table.writeUInt32LE(off, 8 + i * 8);
    table.writeUInt32LE(b.length, 12 + i * 8);
    off += b.length;
  });
  return Buffer.concat([table, ...bodies]);
}

/** The rows of one directory from a side file (undefined when the file is missing or foreign). */
export function readSideRows(file: string, dir: string): SideRow[] | undefined {
  const f = openRegular(file);
  if (!f) return undefined;
  const fd = f.fd;
  try {
    const table = Buffer.alloc(TABLE);
    if (fs.readSync(fd, table, 0, TABLE, 0) !== TABLE || table.toString('latin1', 0, 8) !== MAGIC) return undefined;
    const b = fnv1a(dir) % BUCKETS;
    const off = table.readUInt32LE(8 + b * 8);
    const len = table.readUInt32LE(12 + b * 8);
    if (len === 0) return [];
    if (off + len > f.size) return undefined;
    const part = Buffer.alloc(len);
    if (fs.readSync(fd, part, 0, len, off) !== len) return undefined;
    const all = JSON.parse(part.toString('utf8')) as Record<string, SideRow[]>;
    return Object.prototype.hasOwnProperty.call(all, dir) ? all[dir] : [];
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v ? v : v instanceof Date ? v.toISOString() : undefined;
}

/** Normalises a directory for matching: no trailing separators. */
export function normDir(d: string): string {
  return d.length > 1 ? d.replace(/[\\/]+$/, '') : d;
}

/** The pointer title of a summary: date, branch, title and prompt count. */
export function sessionLine(e: { title: string; data: Record<string, unknown>; created?: string; updated?: string }): string {
  const d = e.data;
  const when = (str(d.ended) ?? str(d.started) ?? e.updated ?? e.created ?? '').slice(0, 10);
  const turns = typeof d.turns === 'number' ? ` (${d.turns} prompt${d.turns === 1 ? '' : 's'})` : '';
  const branch = str(d.branch);
  return [when, branch, `${e.title}${turns}`].filter(Boolean).join(' · ');
}

const POINTER_PREFIX = 'earlier session: ';
/** The prompt count sessionLine ends with. */
const TURNS_SUFFIX = / \(\d+ prompts?\)$/;

/**
 * The pointer title of a side file's line (sessionLine), within POINTER_TITLE_MAX: when too long, the date, branch
 * and title are cut at a word boundary and the prompt count is kept whole.
 */
export function recentPointerTitle(line: string): string {
  const max = POINTER_TITLE_MAX - POINTER_PREFIX.length;
  const t = line.replace(/\s+/g, ' ').trim();
  const suffix = TURNS_SUFFIX.exec(t);
  if (t.length <= max || !suffix) return `${POINTER_PREFIX}${clipText(t, max)}`;
  return `${POINTER_PREFIX}${clipText(t.slice(0, suffix.index), max - suffix[0].length)}${suffix[0]}`;
}

type SessionEntry = { id: string; title: string; type: string; created?: string; updated?: string; data: Record<string, unknown> };

/** True when a session summary is one the side file keeps (it has a directory and is not trivial). */
export function countsAsRecent(e: Pick<SessionEntry, 'type' | 'data'>): boolean {
  return e.type === 'session_summary' && !!str(e.data.cwd) && !isTrivialSession(e.data);
}

/** A summary's directory (normalised) and row, for one that counts (countsAsRecent). */
export function sideRowOf(e: SessionEntry): { dir: string; row: SideRow } {
  const end = str(e.data.ended) ?? str(e.data.started) ?? e.updated ?? e.created ?? '';
  return { dir: normDir(str(e.data.cwd)!), row: [e.id, sessionLine(e), str(e.data.session_id) ?? '', end] };
}

/** Rows newest first (then by id, highest first), RECENT_KEPT of them. */
export function keptRows(rows: SideRow[]): SideRow[] {
  return rows.sort((a, b) => (a[3] < b[3] ? 1 : a[3] > b[3] ? -1 : a[0] < b[0] ? 1 : -1)).slice(0, RECENT_KEPT);
}

/**
 * Writes the side file of the newest summaries per directory and returns what the index keeps of it, and whether
 * it was written. When it cannot be (a read-only repo, a cache folder that is not a folder), the extras name no
 * file: an index built in memory then serves without the recent-sessions pointers, and its builder does not save
 * it (an index saved without its side file would go without them until the next rebuild).
 */
export async function sessionExtras(build: { dir: string; entries: SessionEntry[] }): Promise<{ extras: SessionExtras; saved: boolean }> {
  const byDir = new Map<string, SideRow[]>();
  let count = 0;
  for (const e of build.entries) {
    if (!countsAsRecent(e)) continue;
    count++;
    const { dir, row } = sideRowOf(e);
    const list = byDir.get(dir) ?? [];
    list.push(row);
    if (list.length > RECENT_KEPT * 4) byDir.set(dir, keptRows(list));
    else byDir.set(dir, list);
  }
  const out: Record<string, SideRow[]> = {};
  for (const [k, list] of byDir) out[k] = keptRows(list);
  try {
    return { extras: writeSide(build.dir, out, count), saved: true };
  } catch {
    return { extras: { v: 1, sessions: count, dirs: Object.keys(out).length }, saved: false };
  }
}

/** The largest side file read whole (by the updater); a bigger one is rebuilt. */
const SIDE_MAX_BYTES = 256 * 1024 * 1024;

/** Every directory's rows of a side file (undefined when it is missing or foreign). */
export function readAllSideRows(file: string): Record<string, SideRow[]> | undefined {
  try {
    const buf = readSmall(file, SIDE_MAX_BYTES);
    if (!buf) return undefined;
    if (buf.length < TABLE || buf.toString('latin1', 0, 8) !== MAGIC) return undefined;
    const out: Record<string, SideRow[]> = {};
    for (let b = 0; b < BUCKETS; b++) {
      const off = buf.readUInt32LE(8 + b * 8);
      const len = buf.readUInt32LE(12 + b * 8);
      if (len > 0) Object.assign(out, JSON.parse(buf.toString('utf8', off, off + len)) as Record<string, SideRow[]>);
    }
    return out;
  } catch {
    return undefined;
  }
}

/** Writes a side file of `byDir` under a fresh name (removing old ones) and returns what the index keeps of it. */
export function writeSide(dir: string, out: Record<string, SideRow[]>, count: number): SessionExtras {
  if (count === 0) return { v: 1, sessions: 0, dirs: 0 };
  const state = promptStateDir(dir);
  const name = `recent-${crypto().randomBytes(6).toString('hex')}.bin`;
  // NOTE: writeFileAtomic puts a killed writer's temporary file in .git/git-kb/.tmp/, where the lock holder sweeps it.
  writeFileAtomic(path.join(state, name), encodeSide(out), { fsync: false });
  // Side files of earlier builds: removed once old enough that no running prompt can still be reading one.
  for (const f of fs.readdirSync(state)) {
    if (!/^recent-[0-9a-f]+\.(?:bin|json)$/.test(f) || f === name) continue;
    const p = path.join(state, f);
    try {
      if (Date.now() - fs.statSync(p).mtimeMs > 60_000) fs.rmSync(p, { force: true });
    } catch {
      /* gone already */
    }
  }
  return { v: 1, file: name, sessions: count, dirs: Object.keys(out).length };
}
