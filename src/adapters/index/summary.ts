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
 * the catalog, which rewrites the summary; except when the names are the same and a few files changed (hand edits
 * in place): then only those files are read, and the summary is made again from the facts it keeps of every file
 * (what the summary is computed from: a servable entry's listed fields, its size, kernel, host, learning fields and
 * link targets, and each file's own problem count), by the same computation as from the catalog. Safe to delete.
 *
 * Layout: a stat table (stat-table.ts) whose header holds the aggregates and whose tail holds the rows, newest
 * first, then one fact line per file of the table, in its order.
 */
import fs from 'node:fs';
import { loadCatalog, newestFirst, readItem, type CatalogItem, type EntryMeta } from './catalog.js';
import { currentNamesKey, recordableNamesKey } from './ids.js';
import { patternKeyOf, recurrenceCount } from '../../core/format/learning.js';
import { readAt } from '../store/fsutil.js';
import { putStat, readStatTable, unchanged, writeStatTable, type StatTable } from './stat-table.js';
import { fileStat } from '../store/layout.js';

const MAGIC = 'git-kb summary 3';

/** Past this many changed files (under the same names) the catalog is loaded instead of the files read one by one. */
const PATCH_MAX = 256;

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
  /** The rows' bytes at the start of the tail; the fact lines follow. */
  rowsBytes: number;
}

/**
 * What the summary is computed from, of one file: its own problem count, and for a servable entry the fields the
 * rows, the aggregates and the link check read (`data` holds only the learning fields memoryStats reads).
 */
interface Fact {
  problems: number;
  entry?: Pick<EntryMeta, 'id' | 'title' | 'type' | 'tags' | 'path' | 'created' | 'updated' | 'host' | 'kernel' | 'bodyLength' | 'data'> & { links: { to: string }[] };
}

function factOf(item: CatalogItem): Fact {
  const e = item.entry;
  if (!e) return { problems: item.problems.length };
  const data: Record<string, unknown> = {};
  if (e.data.pattern_key !== undefined) data.pattern_key = e.data.pattern_key;
  if (e.data.recurrences !== undefined) data.recurrences = e.data.recurrences;
  return {
    problems: item.problems.length,
    entry: { id: e.id, title: e.title, type: e.type, tags: e.tags, path: e.path, created: e.created, updated: e.updated, host: e.host, kernel: e.kernel, bodyLength: e.bodyLength, data, links: e.links.map((l) => ({ to: l.to })) },
  };
}

/**
 * A fact as one line (its path is the table's): `[problems]`, or `[problems, id, title, type, tags, created,
 * updated, host, kernel, bodyLength, pattern_key, recurrences, [link targets]]` with null for an absent field.
 */
function factLine(f: Fact): string {
  const e = f.entry;
  if (!e) return `[${f.problems}]\n`;
  const d = e.data;
  return `${JSON.stringify([f.problems, e.id, e.title, e.type, e.tags, e.created ?? null, e.updated ?? null, e.host ?? null, e.kernel ? 1 : 0, e.bodyLength, d.pattern_key ?? null, d.recurrences ?? null, e.links.map((l) => l.to)])}\n`;
}

type FactArray = [number, string, string, EntryMeta['type'], string[], string | null, string | null, string | null, 0 | 1, number, unknown, unknown, string[]];

function parseFact(line: string, path: string): Fact {
  const a = JSON.parse(line) as [number] | FactArray;
  if (!Array.isArray(a) || typeof a[0] !== 'number' || (a.length !== 1 && a.length !== 13)) throw new Error('summary: not a fact line');
  if (a.length === 1) return { problems: a[0] };
  const [problems, id, title, type, tags, created, updated, host, kernel, bodyLength, patternKey, recurrences, links] = a;
  const data: Record<string, unknown> = {};
  if (patternKey !== null) data.pattern_key = patternKey;
  if (recurrences !== null) data.recurrences = recurrences;
  return {
    problems,
    entry: { id, title, type, tags, path, ...(created !== null ? { created } : {}), ...(updated !== null ? { updated } : {}), ...(host !== null ? { host } : {}), kernel: kernel === 1, bodyLength, data, links: links.map((to) => ({ to })) },
  };
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
export function memoryStats(entries: Iterable<Pick<EntryMeta, 'id' | 'title' | 'type' | 'host' | 'kernel' | 'bodyLength' | 'data'>>): MemoryStats {
  let kernelChars = 0;
  let kernelEntries = 0;
  const hosts = new Map<string, number>();
  let biggest: { id: string; title: string; bodyLength: number } | undefined;
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

function rowOf(e: NonNullable<Fact['entry']>): SummaryRow {
  return { id: e.id, title: e.title, type: e.type, tags: e.tags, path: e.path, ...(e.created !== undefined ? { created: e.created } : {}), ...(e.updated !== undefined ? { updated: e.updated } : {}), ...(e.host !== undefined ? { host: e.host } : {}) };
}

/**
 * The summary of the files' facts (in path order, as the catalog keeps its items): the one computation, from a
 * loaded catalog and from stored facts alike. Servable entries one per id (an id claimed twice: the first file by
 * path); problems: each file's own, one per link to an id no entry has, one per file of an id claimed twice.
 */
function summarize(facts: Fact[]): { summary: Summary; rows: SummaryRow[] } {
  const byId = new Map<string, NonNullable<Fact['entry']>>();
  const claims = new Map<string, number>();
  let problems = 0;
  for (const f of facts) {
    problems += f.problems;
    if (!f.entry) continue;
    claims.set(f.entry.id, (claims.get(f.entry.id) ?? 0) + 1);
    if (!byId.has(f.entry.id)) byId.set(f.entry.id, f.entry);
  }
  for (const f of facts) for (const l of f.entry?.links ?? []) if (!byId.has(l.to)) problems++;
  for (const n of claims.values()) if (n > 1) problems += n;
  const byType: Record<string, number> = {};
  for (const e of byId.values()) byType[e.type] = (byType[e.type] ?? 0) + 1;
  const rows = newestFirst(byId.values()).map(rowOf);
  const summary: Summary = {
    entries: byId.size,
    byType,
    problems,
    memory: memoryStats(byId.values()),
    async *rows() {
      yield* rows;
    },
  };
  return { summary, rows };
}

/** Writes the summary `made` of the files `table` lists (with that stat data), their fact lines, listed under `namesKey`. Never throws. */
function writeSummary(dir: string, table: Parameters<typeof writeStatTable>[3], factLines: string[], made: ReturnType<typeof summarize>, namesKey: string): void {
  try {
    const rows = Buffer.from(made.rows.map((e) => `${JSON.stringify([e.id, e.title, e.type, e.tags, e.path, e.created ?? null, e.updated ?? null, e.host ?? null])}\n`).join(''), 'utf8');
    const { summary } = made;
    const header: Header = { namesKey, entries: summary.entries, byType: summary.byType, problems: summary.problems, memory: summary.memory, rowsBytes: rows.length };
    writeStatTable(summaryFile(dir), MAGIC, header, table, [rows, Buffer.from(factLines.join(''), 'utf8')]);
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
    yield* summarize((await loadCatalog(dir)).items.map(factOf)).rows;
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

/** The stored summary served as it is (its rows read from the file as they are taken). */
function served(dir: string, table: StatTable<Header>): Summary {
  const { header } = table;
  return {
    entries: header.entries,
    byType: header.byType,
    problems: header.problems,
    memory: header.memory,
    rows: () => rowsFrom(dir, { ino: table.ino, size: table.size }, table.tailAt, table.tailAt + header.rowsBytes),
  };
}

/** The facts of a stored summary and their lines, one per file of its table, or undefined when they do not read as such. */
function readFacts(dir: string, table: StatTable<Header>): { facts: Fact[]; lines: string[] } | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(summaryFile(dir), 'r');
    const st = fs.fstatSync(fd);
    if (st.ino !== table.ino || st.size !== table.size) return undefined;
    const at = table.tailAt + table.header.rowsBytes;
    const lines = readAt(fd, at, table.tailBytes - table.header.rowsBytes).toString('utf8').split('\n');
    if (lines.pop() !== '' || lines.length !== table.paths.length) return undefined;
    return { facts: lines.map((l, i) => parseFact(l, table.paths[i]!)), lines: lines.map((l) => `${l}\n`) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * What `list` and `status` read (see the module contract): the stored summary when it is provably current (the
 * names key taken now matches, and every recorded file has the recorded stat data); when the names match and at
 * most PATCH_MAX files changed, the summary made again from the stored facts with those files read anew; else one
 * made from the catalog (loaded, so brought up to date). Both are stored for the next command.
 */
export async function currentSummary(dir: string): Promise<Summary> {
  const namesKey = currentNamesKey(dir);
  const table = readStatTable<Header>(summaryFile(dir), MAGIC, (h) => h?.namesKey === namesKey && Number.isSafeInteger(h.rowsBytes));
  if (table) {
    const base = dir.endsWith('/') ? dir : `${dir}/`;
    const changed: number[] = [];
    for (let i = 0; i < table.paths.length && changed.length <= PATCH_MAX; i++) if (!unchanged(base, table, i)) changed.push(i);
    if (changed.length === 0) return served(dir, table);
    const stored = changed.length <= PATCH_MAX ? readFacts(dir, table) : undefined;
    if (stored) {
      const recordKey = recordableNamesKey(dir); // before the files are read: see writeIdMap
      const { facts, lines } = stored;
      const { parseEntry } = await import('../../core/format/entry.js');
      const stats = Float64Array.from(table.stats);
      let gone = false;
      for (const i of changed) {
        const st = fileStat(base + table.paths[i]!); // before the read: a later change is read again
        if (!st) {
          gone = true; // deleted while the names key stood still: the catalog tells
          break;
        }
        putStat(stats, i, st);
        facts[i] = factOf(readItem(dir, { path: table.paths[i]!, id: '', ...st }, parseEntry));
        lines[i] = factLine(facts[i]!);
      }
      if (!gone) {
        const made = summarize(facts);
        writeSummary(dir, { paths: table.paths, stats }, lines, made, recordKey);
        return made.summary;
      }
    }
  }
  const recordKey = recordableNamesKey(dir); // before the catalog lists the folders: see writeIdMap
  const catalog = await loadCatalog(dir);
  const facts = catalog.items.map(factOf);
  const made = summarize(facts);
  writeSummary(dir, catalog.items, facts.map(factLine), made, recordKey);
  return made.summary;
}
