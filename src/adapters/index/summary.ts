/**
 * Contract: the catalog summary, `.git/git-kb/summary.v1`: what `list` and `status` need, without the catalog of
 * parsed front matter. `currentSummary` serves it, or, when it is not current, loads the catalog and writes it
 * anew from that (under the names key taken before the catalog listed the files). It holds: the
 * aggregates `status` prints (entries by type, the problem count, the sums the memory report is made of), the
 * servable entries newest first as one JSON line each (`list` parses only the lines it shows), and every
 * catalogued file's path and stat data. It is served only while it is provably current, by the one freshness
 * mechanism of the catalog: the names part of the freshness key (fresh.ts `namesKey`) says the entry folders hold
 * the same names, and every file's stat data (mtime, ctime, size, inode) is the one recorded, so an uncommitted
 * edit in place is seen too. Anything else (missing, torn, foreign, stale) returns undefined and the caller loads
 * the catalog, which rewrites the summary. Safe to delete.
 *
 * Layout: a stat table (stat-table.ts) whose header holds the aggregates and whose tail holds the rows.
 */
import fs from 'node:fs';
import { catalogProblems, loadCatalog, newestFirst, type Catalog, type EntryMeta } from './catalog.js';
import { currentNamesKey, recordableNamesKey } from './ids.js';
import { patternKeyOf, recurrenceCount } from '../../core/format/learning.js';
import { readAt } from '../store/fsutil.js';
import { readStatTable, unchanged, writeStatTable } from './stat-table.js';

const MAGIC = 'git-kb summary 2';

/** The catalog's sums that the memory report applies budgets to (app/memory.ts). */
export interface MemoryStats {
  kernelChars: number;
  kernelEntries: number;
  /** Body characters of each host's facts. */
  hostChars: [key: string, chars: number][];
  /** The biggest entry body, session summaries aside. */
  biggest?: { id: string; title: string; bodyLength: number };
  /** Entries with a pattern key that are not kernel, with how often their lesson was seen. */
  patterned: { id: string; title: string; count: number }[];
}

/** One row of `list`: an entry's listed fields. */
export interface SummaryRow {
  id: string;
  title: string;
  type: string;
  tags: string[];
  path: string;
  created?: string;
  updated?: string;
  host?: string;
}

interface Header {
  namesKey: string;
  entries: number;
  byType: Record<string, number>;
  problems: number;
  memory: MemoryStats;
}

export interface Summary {
  entries: number;
  byType: Record<string, number>;
  problems: number;
  memory: MemoryStats;
  /** The servable entries newest first, parsed one by one as they are taken. */
  rows(): AsyncIterable<SummaryRow>;
}

/** The sums of the memory report over `entries` (servable entries, one per id). */
export function memoryStats(entries: Iterable<EntryMeta>): MemoryStats {
  let kernelChars = 0;
  let kernelEntries = 0;
  const hosts = new Map<string, number>();
  let biggest: EntryMeta | undefined;
  const patterned: MemoryStats['patterned'] = [];
  for (const e of entries) {
    if (e.kernel) {
      kernelEntries++;
      kernelChars += e.bodyLength;
    }
    if (e.host) hosts.set(e.host, (hosts.get(e.host) ?? 0) + e.bodyLength);
    if (e.type !== 'session_summary' && (!biggest || e.bodyLength > biggest.bodyLength || (e.bodyLength === biggest.bodyLength && e.id < biggest.id))) biggest = e;
    if (!e.kernel && patternKeyOf(e)) patterned.push({ id: e.id, title: e.title, count: recurrenceCount(e) });
  }
  return { kernelChars, kernelEntries, hostChars: [...hosts], ...(biggest ? { biggest: { id: biggest.id, title: biggest.title, bodyLength: biggest.bodyLength } } : {}), patterned };
}

/** The summary file of a data repo. */
export function summaryFile(dir: string): string {
  return `${dir}/.git/git-kb/summary.v1`;
}

function rowOf(e: EntryMeta): SummaryRow {
  return { id: e.id, title: e.title, type: e.type, tags: e.tags, path: e.path, ...(e.created !== undefined ? { created: e.created } : {}), ...(e.updated !== undefined ? { updated: e.updated } : {}), ...(e.host !== undefined ? { host: e.host } : {}) };
}

/** The summary of a loaded catalog (in memory). */
export function summaryOf(catalog: Catalog): Summary {
  const entries = [...catalog.byId.values()];
  const byType: Record<string, number> = {};
  for (const e of entries) byType[e.type] = (byType[e.type] ?? 0) + 1;
  const rows = (): SummaryRow[] => newestFirst(entries).map(rowOf);
  return {
    entries: entries.length,
    byType,
    problems: catalogProblems(catalog).length,
    memory: memoryStats(entries),
    async *rows() {
      yield* rows();
    },
  };
}

/** Writes `summary` of `catalog`, whose listing was made under the names key `namesKey`. Never throws. */
function writeSummary(catalog: Catalog, summary: Summary, rowList: SummaryRow[], namesKey: string): void {
  try {
    const rows = Buffer.from(
      rowList.map((e) => `${JSON.stringify([e.id, e.title, e.type, e.tags, e.path, e.created ?? null, e.updated ?? null, e.host ?? null])}\n`).join(''),
      'utf8',
    );
    const header: Header = { namesKey, entries: summary.entries, byType: summary.byType, problems: summary.problems, memory: summary.memory };
    writeStatTable(summaryFile(catalog.dir), MAGIC, header, catalog.items, rows);
  } catch {
    /* derived state: the next list or status loads the catalog */
  }
}

/**
 * The rows from byte `from` to `to` of the summary file, read in chunks as they are taken, from the very file the
 * summary was checked from (same inode and size); if it was replaced since (another command rewrote it), from the
 * catalog instead.
 */
async function* rowsFrom(dir: string, same: { ino: number; size: number }, from: number, to: number): AsyncGenerator<SummaryRow> {
  let fd: number | undefined;
  try {
    fd = fs.openSync(summaryFile(dir), 'r');
    const st = fs.fstatSync(fd);
    if (st.ino !== same.ino || st.size !== same.size) throw new Error('replaced');
  } catch {
    if (fd !== undefined) fs.closeSync(fd);
    yield* summaryOf(await loadCatalog(dir)).rows();
    return;
  }
  try {
    let pending = '';
    for (let at = from; at < to || pending; ) {
      const nl = pending.indexOf('\n');
      if (nl < 0) {
        if (at >= to) break;
        const chunk = readAt(fd, at, Math.min(64 * 1024, to - at));
        if (chunk.length === 0) break;
        // NOTE: cut at the chunk's last newline so a multi-byte character is never split.
        const cut = at + chunk.length < to ? chunk.lastIndexOf(10) + 1 : chunk.length;
        if (cut === 0) {
          pending += chunk.toString('utf8'); // one row longer than a chunk
          at += chunk.length;
          continue;
        }
        pending += chunk.subarray(0, cut).toString('utf8');
        at += cut;
        continue;
      }
      const a = JSON.parse(pending.slice(0, nl)) as [string, string, string, string[], string, string | null, string | null, string | null];
      pending = pending.slice(nl + 1);
      yield { id: a[0], title: a[1], type: a[2], tags: a[3], path: a[4], ...(a[5] !== null ? { created: a[5] } : {}), ...(a[6] !== null ? { updated: a[6] } : {}), ...(a[7] !== null ? { host: a[7] } : {}) };
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The summary when it is provably current (see the module contract): the names key given by the caller (taken
 * now) matches, and every recorded file has the recorded stat data. Otherwise undefined. Reads the head, the
 * paths and the stat data; the rows only as they are taken.
 */
function loadSummary(dir: string, namesKey: string): Summary | undefined {
  const table = readStatTable<Header>(summaryFile(dir), MAGIC, (h) => h?.namesKey === namesKey);
  if (!table) return undefined;
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  for (let i = 0; i < table.paths.length; i++) if (!unchanged(base, table, i)) return undefined;
  const { header } = table;
  return {
    entries: header.entries,
    byType: header.byType,
    problems: header.problems,
    memory: header.memory,
    rows: () => rowsFrom(dir, { ino: table.ino, size: table.size }, table.tailAt, table.tailAt + table.tailBytes),
  };
}

/**
 * What `list` and `status` read: the stored summary when it is current, else one made from the catalog (loaded,
 * so brought up to date) and stored for the next command.
 */
export async function currentSummary(dir: string): Promise<Summary> {
  const stored = loadSummary(dir, currentNamesKey(dir));
  if (stored) return stored;
  const namesKey = recordableNamesKey(dir); // before the catalog lists the folders: see writeIdMap
  const catalog = await loadCatalog(dir);
  const summary = summaryOf(catalog);
  writeSummary(catalog, summary, newestFirst(catalog.byId.values()).map(rowOf), namesKey);
  return summary;
}
