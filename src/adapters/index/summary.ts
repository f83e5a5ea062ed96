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
 * the catalog, which rewrites the summary; except when at most PATCH_MAX files are new or changed (hand edits in
 * place; or, once the names moved, files made, deleted or renamed by hand or by a pull, seen by listing the
 * folders against the recorded paths): then only those files are read, and the summary is made again from the facts it keeps of every file
 * (what the summary is computed from: a servable entry's listed fields, its size, kernel, host, learning fields and
 * link targets, and each file's own problem count), by the same computation as from the catalog. A body edit in
 * place (patchedHeader says which) is not written into the summary but beside it, as a patch (`summary.v1.patch`:
 * the aggregates now, and the changed files' stat data and facts), read with the summary it names; so are files
 * made since, whole, when the aggregates follow from them alone (addedHeader says when; their rows are merged
 * into the stored ones as they are read). Safe to delete.
 *
 * Layout: a stat table (stat-table.ts) whose header holds the aggregates and whose tail holds the rows, newest
 * first, then one fact line per file of the table, in its order.
 */
import fs from 'node:fs';
import { loadCatalog, newerFirst, newestFirst, readItem, type CatalogItem, type EntryMeta } from './catalog.js';
import { currentNamesKey, recordableNamesKey } from './ids.js';
import { patternKeyOf, recurrenceCount } from '../../core/format/learning.js';
import { readAt, writeFileAtomic } from '../store/fsutil.js';
import { putStat, readStatTable, unchanged, writeStatTable, type StatTable } from './stat-table.js';
import { compareListing, fileStat, inRepoDir, sameStat, type StatData } from '../store/layout.js';
import { idFromPath } from '../../core/format/schema.js';

const MAGIC = 'git-kb summary 8';
const PATCH_MAGIC = 'git-kb summary patch 4';

/** Past this many changed files (under the same names) the catalog is loaded instead of the files read one by one. */
const PATCH_MAX = 256;

/** The catalog's sums that the memory report applies budgets to (app/memory.ts). */
export interface MemoryStats {
  kernelChars: number;
  kernelEntries: number;
  /** Body characters of each host's facts. */
  hostChars: [key: string, chars: number][];
  /** The biggest entry body, session summaries aside (`type` for its budget; absent in a summary written before). */
  biggest?: { id: string; title: string; type?: string; bodyLength: number };
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
  /** The type as written, when it is not a type git-kb knows (`type` is then `factual_reference`; Entry.typeWritten). */
  type_written?: string;
}

/** An entry whose front matter `type` is not a known type (served as factual_reference): list warns about them. */
export interface UnknownType {
  id: string;
  path: string;
  type_written: string;
  host?: string;
}

interface Header {
  namesKey: string;
  /** This summary's own mark (a patch names the summary it applies to by it). */
  made: string;
  /** The ids more than one file claims (a body edit of such a file is not patched: which one serves is the catalog's question). */
  dupIds: string[];
  /** Link targets no entry has, with how many links point there (each is a problem until an entry of that id comes). */
  dangling: [id: string, links: number][];
  /** Ids served by a file whose name says another id (id-mismatch; usually none). */
  oddIds: string[];
  /** Ids in file names that do not serve that id (an unservable file, or an odd one; usually none). */
  notServing: string[];
  /** The files that do not read as an entry (no front matter, malformed YAML, no id...), by path: list says how many it skipped. */
  unreadable: string[];
  /** The servable entries whose type is not a known type, by path: [path, id, type as written]. */
  unknownTypes: [path: string, id: string, written: string, host: string | null][];
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
  entry?: Pick<EntryMeta, 'id' | 'title' | 'type' | 'typeWritten' | 'tags' | 'path' | 'created' | 'updated' | 'host' | 'kernel' | 'bodyLength' | 'data'> & { links: { to: string }[] };
}

function factOf(item: CatalogItem): Fact {
  const e = item.entry;
  if (!e) return { problems: item.problems.length };
  const data: Record<string, unknown> = {};
  if (e.data.pattern_key !== undefined) data.pattern_key = e.data.pattern_key;
  if (e.data.recurrences !== undefined) data.recurrences = e.data.recurrences;
  return {
    problems: item.problems.length,
    entry: { id: e.id, title: e.title, type: e.type, ...(e.typeWritten !== undefined ? { typeWritten: e.typeWritten } : {}), tags: e.tags, path: e.path, created: e.created, updated: e.updated, host: e.host, kernel: e.kernel, bodyLength: e.bodyLength, data, links: e.links.map((l) => ({ to: l.to })) },
  };
}

/**
 * A fact as one line (its path is the table's): `[problems]`, or `[problems, id, title, type, tags, created,
 * updated, host, kernel, bodyLength, pattern_key, recurrences, [link targets], type as written]` with null for an
 * absent field.
 */
function factLine(f: Fact): string {
  const e = f.entry;
  if (!e) return `[${f.problems}]\n`;
  const d = e.data;
  return `${JSON.stringify([f.problems, e.id, e.title, e.type, e.tags, e.created ?? null, e.updated ?? null, e.host ?? null, e.kernel ? 1 : 0, e.bodyLength, d.pattern_key ?? null, d.recurrences ?? null, e.links.map((l) => l.to), e.typeWritten ?? null])}\n`;
}

type FactArray = [number, string, string, EntryMeta['type'], string[], string | null, string | null, string | null, 0 | 1, number, unknown, unknown, string[], string | null];

function parseFact(line: string, path: string): Fact {
  const a = JSON.parse(line) as [number] | FactArray;
  if (!Array.isArray(a) || typeof a[0] !== 'number' || (a.length !== 1 && a.length !== 14)) throw new Error('summary: not a fact line');
  if (a.length === 1) return { problems: a[0] };
  const [problems, id, title, type, tags, created, updated, host, kernel, bodyLength, patternKey, recurrences, links, written] = a;
  const data: Record<string, unknown> = {};
  if (patternKey !== null) data.pattern_key = patternKey;
  if (recurrences !== null) data.recurrences = recurrences;
  return {
    problems,
    entry: { id, title, type, ...(written !== null ? { typeWritten: written } : {}), tags, path, ...(created !== null ? { created } : {}), ...(updated !== null ? { updated } : {}), ...(host !== null ? { host } : {}), kernel: kernel === 1, bodyLength, data, links: links.map((to) => ({ to })) },
  };
}

export interface Summary {
  entries: number;
  byType: Record<string, number>;
  problems: number;
  memory: MemoryStats;
  /** The files that do not read as an entry, by path (list and status skip them; lint says why). */
  unreadable: string[];
  /** The servable entries whose type is not a known type, by path (list warns about them; lint says where). */
  unknownTypes: UnknownType[];
  /** The servable entries newest first, parsed one by one as they are taken. */
  rows(): AsyncIterable<SummaryRow>;
}

/** Whether entry `e` is the biggest body rather than `big`: longer, or as long with the smaller id. */
function outgrows(e: { id: string; bodyLength: number }, big: { id: string; bodyLength: number } | undefined): boolean {
  return !big || e.bodyLength > big.bodyLength || (e.bodyLength === big.bodyLength && e.id < big.id);
}

/** The sums of the memory report over `entries` (servable entries, one per id). */
export function memoryStats(entries: Iterable<Pick<EntryMeta, 'id' | 'title' | 'type' | 'host' | 'kernel' | 'bodyLength' | 'data'>>): MemoryStats {
  let kernelChars = 0;
  let kernelEntries = 0;
  const hosts = new Map<string, number>();
  let biggest: { id: string; title: string; type: string; bodyLength: number } | undefined;
  const patterned: MemoryStats['patterned'] = [];
  for (const e of entries) {
    if (e.kernel) {
      kernelEntries++;
      kernelChars += e.bodyLength;
    }
    if (e.host) hosts.set(e.host, (hosts.get(e.host) ?? 0) + e.bodyLength);
    if (e.type !== 'session_summary' && outgrows(e, biggest)) biggest = e;
    if (!e.kernel && patternKeyOf(e)) patterned.push({ id: e.id, title: e.title, count: recurrenceCount(e) });
  }
  return { kernelChars, kernelEntries, hostChars: [...hosts], ...(biggest ? { biggest: { id: biggest.id, title: biggest.title, type: biggest.type, bodyLength: biggest.bodyLength } } : {}), patterned };
}

/** The summary file of a data repo. */
export function summaryFile(dir: string): string {
  return `${dir}/.git/git-kb/summary.v1`;
}

function rowOf(e: NonNullable<Fact['entry']>): SummaryRow {
  return { id: e.id, title: e.title, type: e.type, tags: e.tags, path: e.path, ...(e.created !== undefined ? { created: e.created } : {}), ...(e.updated !== undefined ? { updated: e.updated } : {}), ...(e.host !== undefined ? { host: e.host } : {}), ...(e.typeWritten !== undefined ? { type_written: e.typeWritten } : {}) };
}

/**
 * The summary of the files' facts (in path order, as the catalog keeps its items): the one computation, from a
 * loaded catalog and from stored facts alike. Servable entries one per id (an id claimed twice: the first file by
 * path); problems: each file's own, one per link to an id no entry has, one per file of an id claimed twice.
 */
function summarize(facts: Fact[], paths: readonly string[]): { summary: Summary; rows: SummaryRow[] } & Pick<Header, 'dupIds' | 'dangling' | 'oddIds' | 'notServing' | 'unreadable' | 'unknownTypes'> {
  const byId = new Map<string, NonNullable<Fact['entry']>>();
  const claims = new Map<string, number>();
  const oddIds = new Set<string>();
  const notServing = new Set<string>();
  const unreadable: string[] = [];
  let problems = 0;
  facts.forEach((f, k) => {
    problems += f.problems;
    const p = paths[k]!;
    if (!f.entry) unreadable.push(p);
    const named = idFromPath(p);
    if (f.entry?.id !== named) {
      if (named) notServing.add(named);
      if (f.entry) oddIds.add(f.entry.id);
    }
    if (!f.entry) return;
    claims.set(f.entry.id, (claims.get(f.entry.id) ?? 0) + 1);
    if (!byId.has(f.entry.id)) byId.set(f.entry.id, f.entry);
  });
  const dangling = new Map<string, number>();
  for (const f of facts) {
    for (const l of f.entry?.links ?? []) {
      if (byId.has(l.to)) continue;
      problems++;
      dangling.set(l.to, (dangling.get(l.to) ?? 0) + 1);
    }
  }
  const dupIds: string[] = [];
  for (const [id, n] of claims) {
    if (n < 2) continue;
    problems += n;
    dupIds.push(id);
  }
  const byType: Record<string, number> = {};
  for (const e of byId.values()) byType[e.type] = (byType[e.type] ?? 0) + 1;
  const rows = newestFirst(byId.values()).map(rowOf);
  const unknownTypes: Header['unknownTypes'] = [];
  for (const e of byId.values()) if (e.typeWritten !== undefined) unknownTypes.push([e.path, e.id, e.typeWritten, e.host ?? null]);
  unknownTypes.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const summary: Summary = {
    entries: byId.size,
    byType,
    problems,
    memory: memoryStats(byId.values()),
    unreadable,
    unknownTypes: unknownTypesOf(unknownTypes),
    async *rows() {
      yield* rows;
    },
  };
  return { summary, rows, dupIds, dangling: [...dangling], oddIds: [...oddIds], notServing: [...notServing], unreadable, unknownTypes };
}

function unknownTypesOf(stored: Header['unknownTypes']): UnknownType[] {
  return stored.map(([path, id, written, host]) => ({ id, path, type_written: written, ...(host !== null ? { host } : {}) }));
}

/** Writes the summary `made` of the files `table` lists (with that stat data), their fact lines, listed under `namesKey`. Never throws. */
function writeSummary(dir: string, table: Parameters<typeof writeStatTable>[3], factLines: string[], made: ReturnType<typeof summarize>, namesKey: string): void {
  try {
    const rows = Buffer.from(made.rows.map((e) => `${JSON.stringify([e.id, e.title, e.type, e.tags, e.path, e.created ?? null, e.updated ?? null, e.host ?? null, e.type_written ?? null])}\n`).join(''), 'utf8');
    const { summary } = made;
    const mark = `${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}`;
    const header: Header = { namesKey, made: mark, dupIds: made.dupIds, dangling: made.dangling, oddIds: made.oddIds, notServing: made.notServing, unreadable: made.unreadable, unknownTypes: made.unknownTypes, entries: summary.entries, byType: summary.byType, problems: summary.problems, memory: summary.memory, rowsBytes: rows.length };
    writeStatTable(summaryFile(dir), MAGIC, header, table, [rows, Buffer.from(factLines.join(''), 'utf8')]);
    fs.rmSync(patchFile(dir), { force: true }); // it named the summary just replaced
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
    const { items } = await loadCatalog(dir);
    yield* summarize(items.map(factOf), items.map((i) => i.path)).rows;
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
      const a = JSON.parse(pending.slice(0, nl)) as [string, string, string, string[], string, string | null, string | null, string | null, string | null];
      pending = pending.slice(nl + 1);
      yield { id: a[0], title: a[1], type: a[2], tags: a[3], path: a[4], ...(a[5] !== null ? { created: a[5] } : {}), ...(a[6] !== null ? { updated: a[6] } : {}), ...(a[7] !== null ? { host: a[7] } : {}), ...(a[8] !== null ? { type_written: a[8] } : {}) };
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The stored rows with `added` (in list order) merged in. */
async function* mergedRows(stored: AsyncIterable<SummaryRow>, added: SummaryRow[]): AsyncGenerator<SummaryRow> {
  let i = 0;
  for await (const r of stored) {
    while (i < added.length && newerFirst(added[i]!, r) < 0) yield added[i++]!;
    yield r;
  }
  while (i < added.length) yield added[i++]!;
}

/**
 * The stored summary served with `header`'s aggregates (its own, or its patch's); its rows read from the file as
 * they are taken, with the rows of the patch's added files merged in.
 */
function served(dir: string, table: StatTable<Header>, header: Header, added: Added[] = []): Summary {
  const stored = (): AsyncGenerator<SummaryRow> => rowsFrom(dir, { ino: table.ino, size: table.size }, table.tailAt, table.tailAt + table.header.rowsBytes);
  const rows = newestFirst(added.map((a) => rowOf(a.fact.entry!)));
  return {
    entries: header.entries,
    byType: header.byType,
    problems: header.problems,
    memory: header.memory,
    unreadable: header.unreadable,
    unknownTypes: unknownTypesOf(header.unknownTypes),
    rows: () => (rows.length === 0 ? stored() : mergedRows(stored(), rows)),
  };
}

/** The fact lines' bytes of stored summary `table`, from the very file it was read from, or undefined. */
function factBytes(dir: string, table: StatTable<Header>): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(summaryFile(dir), 'r');
    const st = fs.fstatSync(fd);
    if (st.ino !== table.ino || st.size !== table.size) return undefined;
    return readAt(fd, table.tailAt + table.header.rowsBytes, table.tailBytes - table.header.rowsBytes);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The fact lines of a stored summary, one per file of its table (each with its newline), or undefined when they do not read as such. */
function readFactLines(dir: string, table: StatTable<Header>): string[] | undefined {
  const lines = factBytes(dir, table)?.toString('utf8').split('\n');
  if (!lines || lines.pop() !== '' || lines.length !== table.paths.length) return undefined;
  return lines.map((l) => `${l}\n`);
}

/** The patch file of a data repo's summary (see the module contract). */
function patchFile(dir: string): string {
  return `${summaryFile(dir)}.patch`;
}

/**
 * A patch as stored: the summary it applies to (its mark), under which names key, the aggregates now, each
 * patched file of the table, and the files made since (each a servable entry of a new id: addedHeader).
 */
interface PatchFile {
  magic: string;
  base: string;
  namesKey: string;
  header: Header;
  /** The aggregates of the table's files alone (with the patched ones), before the added files. */
  before: Header;
  /** [file index in the table, mtimeMs, ctimeMs, size, inode, fact line]. */
  files: [number, number, number, number, number, string][];
  /** [path, mtimeMs, ctimeMs, size, inode, fact line] of each file not in the table. */
  added: [string, number, number, number, number, string][];
}

/** A file the summary's table does not hold, as a patch keeps it. */
interface Added {
  path: string;
  st: StatData;
  fact: Fact;
  line: string;
}

/** A patch read for a table: the aggregates now and before the added files, the fact line of each patched file, and the added files. */
interface Patch {
  header: Header;
  before: Header;
  files: Map<number, PatchFile['files'][number]>;
  added: Added[];
}

/**
 * The patch of summary `table` under `namesKey` (null: under any, for a caller that uses its files' facts only),
 * its stat data put into `table.stats`; undefined (and the table left as it is) when there is none, or it is torn,
 * foreign or for another summary.
 */
function readPatch(dir: string, table: StatTable<Header>, namesKey: string | null): Patch | undefined {
  let p: PatchFile;
  try {
    p = JSON.parse(fs.readFileSync(patchFile(dir), 'utf8')) as PatchFile;
  } catch {
    return undefined;
  }
  const n = table.paths.length;
  const ok = (f: unknown): boolean => Array.isArray(f) && f.length === 6 && Number.isSafeInteger(f[0]) && f[0] >= 0 && f[0] < n && f.slice(1, 5).every((x) => typeof x === 'number') && typeof f[5] === 'string';
  const okAdded = (f: unknown): boolean => Array.isArray(f) && f.length === 6 && typeof f[0] === 'string' && f.slice(1, 5).every((x) => typeof x === 'number') && typeof f[5] === 'string';
  if (!p || p.magic !== PATCH_MAGIC || p.base !== table.header.made || (namesKey !== null && p.namesKey !== namesKey) || p.header?.rowsBytes !== table.header.rowsBytes || !p.before || !Array.isArray(p.files) || !p.files.every(ok) || !Array.isArray(p.added) || !p.added.every(okAdded)) return undefined;
  let added: Added[];
  try {
    added = p.added.map(([path, mtimeMs, ctimeMs, size, ino, line]) => ({ path, st: { mtimeMs, ctimeMs, size, ino }, fact: parseFact(line, path), line }));
  } catch {
    return undefined;
  }
  if (added.some((a) => !a.fact.entry)) return undefined;
  const files = new Map<number, PatchFile['files'][number]>();
  for (const f of p.files) {
    putStat(table.stats, f[0], { mtimeMs: f[1], ctimeMs: f[2], size: f[3], ino: f[4] });
    files.set(f[0], f);
  }
  return { header: p.header, before: p.before, files, added };
}

/** The stored fact lines of files `wanted` (ascending) of `table`, its patch's where it has one; undefined when they do not read. */
function storedFactLines(dir: string, table: StatTable<Header>, patch: Patch | undefined, wanted: number[]): Map<number, string> | undefined {
  const out = new Map<number, string>();
  const fromBase = wanted.filter((i) => {
    const f = patch?.files.get(i);
    if (f) out.set(i, f[5]);
    return !f;
  });
  if (fromBase.length === 0) return out;
  const bytes = factBytes(dir, table);
  if (!bytes) return undefined;
  let at = 0;
  let line = 0;
  for (const i of fromBase) {
    for (; line < i; line++) {
      at = bytes.indexOf(10, at) + 1;
      if (at === 0) return undefined;
    }
    const end = bytes.indexOf(10, at);
    if (end < 0) return undefined;
    out.set(i, bytes.toString('utf8', at, end + 1));
  }
  return out;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The aggregates after files changed from facts `was` to facts `now` (same order), when that is a body edit the
 * aggregates follow without the other files: each file was and is a servable entry of an id no other file
 * claims, with the same listed fields, kernel, learning fields and link targets; then the problem count, the
 * kernel's and the host's characters and the biggest body move by what changed. Undefined otherwise (and when
 * the biggest body shrank: the next biggest is the other files' question).
 */
function patchedHeader(header: Header, was: Fact[], now: Fact[]): Header | undefined {
  const h: Header = structuredClone(header);
  for (let k = 0; k < was.length; k++) {
    const o = was[k]!.entry;
    const e = now[k]!.entry;
    if (!o || !e || h.dupIds.includes(e.id)) return undefined;
    const { bodyLength: ob, ...oRest } = o;
    const { bodyLength: eb, ...eRest } = e;
    if (!sameJson(oRest, eRest)) return undefined;
    h.problems += now[k]!.problems - was[k]!.problems;
    const d = eb - ob;
    if (e.kernel) h.memory.kernelChars += d;
    if (e.host) {
      const at = h.memory.hostChars.find(([key]) => key === e.host);
      if (!at) return undefined;
      at[1] += d;
    }
    if (e.type === 'session_summary') continue;
    const big = h.memory.biggest;
    if (big?.id === e.id) {
      if (d < 0) return undefined;
      big.bodyLength = eb;
    } else if (outgrows({ id: e.id, bodyLength: eb }, big)) h.memory.biggest = { id: e.id, title: e.title, type: e.type, bodyLength: eb };
  }
  return h;
}

/**
 * The aggregates after files `added` were made beside the table's files `paths` (whose aggregates are `before`;
 * with none added, the names are the table's own again), when that follows without the other files: each added
 * file is a servable entry with no problem of its own, named by its id, of an id no file of the table names or
 * serves; it has no pattern key unless it is kernel, and a host of one already counted (the report's order of
 * those is the files'). Links: an added entry of an id the table's links point to settles those (`dangling`); an
 * added entry's link is to an entry when an added file or a table file named by that id serves it, else
 * dangling. Undefined otherwise, and when a link's target is an id a table file is named by but does not serve
 * (the catalog then tells).
 */
function addedHeader(before: Header, paths: readonly string[], added: Added[]): Header | undefined {
  if (added.length === 0) return before; // the names moved and came back (a hidden file made and removed, say)
  const named = new Set<string>();
  for (const p of paths) {
    const id = idFromPath(p);
    if (id) named.add(id);
  }
  const odd = new Set(before.oddIds);
  const notServing = new Set(before.notServing);
  const ids = new Set<string>();
  for (const a of added) {
    const e = a.fact.entry;
    if (!e || a.fact.problems !== 0 || idFromPath(a.path) !== e.id) return undefined;
    if (named.has(e.id) || odd.has(e.id) || ids.has(e.id)) return undefined;
    if (!e.kernel && patternKeyOf(e)) return undefined;
    if (e.host && !before.memory.hostChars.some(([key]) => key === e.host)) return undefined;
    ids.add(e.id);
  }
  const h: Header = structuredClone(before);
  const dangling = new Map(h.dangling);
  for (const a of added) {
    const e = a.fact.entry!;
    h.entries++;
    h.byType[e.type] = (h.byType[e.type] ?? 0) + 1;
    h.problems -= dangling.get(e.id) ?? 0;
    dangling.delete(e.id);
    if (e.kernel) {
      h.memory.kernelEntries++;
      h.memory.kernelChars += e.bodyLength;
    }
    if (e.host) h.memory.hostChars.find(([key]) => key === e.host)![1] += e.bodyLength;
    if (e.type !== 'session_summary' && outgrows(e, h.memory.biggest)) h.memory.biggest = { id: e.id, title: e.title, type: e.type, bodyLength: e.bodyLength };
  }
  for (const a of added) {
    for (const l of a.fact.entry!.links) {
      if (ids.has(l.to) || odd.has(l.to) || (named.has(l.to) && !notServing.has(l.to))) continue;
      if (notServing.has(l.to)) return undefined;
      h.problems++;
      dangling.set(l.to, (dangling.get(l.to) ?? 0) + 1);
    }
  }
  h.dangling = [...dangling];
  return h;
}

/**
 * What `list` and `status` read (see the module contract): the stored summary when it is provably current (the
 * names key taken now matches, and every recorded file has the recorded stat data, its patch's where patched);
 * when the names match and at most PATCH_MAX files changed, those files are read anew, and a body edit is written
 * as a patch beside the summary (patchedHeader), anything else as the summary made again from the stored facts;
 * when the names moved, the folders are listed, and at most PATCH_MAX files new or changed are read anew and the
 * summary made again from the stored facts of the others; else one made from the catalog (loaded, so brought up
 * to date). Each is stored for the next command.
 */
export async function currentSummary(dir: string): Promise<Summary> {
  const namesKey = currentNamesKey(dir);
  const table = readStatTable<Header>(summaryFile(dir), MAGIC, (h) => typeof h?.namesKey === 'string' && Number.isSafeInteger(h.rowsBytes) && typeof h.made === 'string' && Array.isArray(h.dupIds) && Array.isArray(h.dangling) && Array.isArray(h.oddIds) && Array.isArray(h.notServing) && Array.isArray(h.unreadable) && Array.isArray(h.unknownTypes));
  // The names are the table's, or those its patch was written under: the table's and the patch's added files.
  let patch = table ? readPatch(dir, table, namesKey) : undefined;
  const sameNames = table && (patch !== undefined || table.header.namesKey === namesKey);
  let relist = !sameNames; // the folders are listed: the names moved, or a file a patch added changed
  if (table && sameNames) {
    const header = patch?.header ?? table.header;
    const added = patch?.added ?? [];
    const changed: number[] = [];
    let addedChanged = false;
    inRepoDir(dir, (at) => {
      for (let i = 0; i < table.paths.length && changed.length <= PATCH_MAX; i++) if (!unchanged(at, table, i)) changed.push(i);
      addedChanged = added.some((a) => {
        const st = fileStat(at + a.path);
        return !st || !sameStat(st, a.st);
      });
    });
    if (changed.length === 0 && !addedChanged) return served(dir, table, header, added);
    relist = added.length > 0;
    if (changed.length <= PATCH_MAX && !relist) {
      const recordKey = recordableNamesKey(dir); // before the files are read: see writeIdMap
      const now = await readFacts(dir, table.paths, changed);
      if (now) {
        const was = storedFactLines(dir, table, patch, changed);
        const files = new Map(patch?.files);
        for (const c of now) files.set(c.k, [c.k, c.st.mtimeMs, c.st.ctimeMs, c.st.size, c.st.ino, c.line]);
        const patched = was && files.size <= PATCH_MAX ? patchedHeader(header, changed.map((i) => parseFact(was.get(i)!, table.paths[i]!)), now.map((c) => c.fact)) : undefined;
        if (patched) {
          writePatch(dir, { magic: PATCH_MAGIC, base: table.header.made, namesKey: recordKey, header: patched, before: patched, files: [...files.values()], added: [] });
          return served(dir, table, patched);
        }
        const made = remade(dir, table, patch, table.paths, null, now, recordKey);
        if (made) return made;
      }
    }
  }
  if (table && relist) {
    // The names moved (a file made, deleted or renamed by hand, a pull), or a file a patch added changed: the
    // folders are listed, and when at most PATCH_MAX listed files are new or changed, only those are read. Files
    // made, and nothing else, go into a patch when the aggregates follow (addedHeader).
    const recordKey = recordableNamesKey(dir); // before the folders are listed: see writeIdMap
    const { listed, was, gone } = compareListing(dir, table.paths);
    patch ??= readPatch(dir, table, null); // one written under other names: its files' facts still serve
    const fresh: number[] = [];
    inRepoDir(dir, (at) => {
      for (let k = 0; k < listed.length && fresh.length <= PATCH_MAX; k++) if (was[k]! < 0 || !unchanged(at, table, was[k]!)) fresh.push(k);
    });
    const now = fresh.length <= PATCH_MAX ? await readFacts(dir, listed, fresh) : undefined;
    if (now && !gone.includes(1) && now.every((c) => was[c.k]! < 0)) {
      const added = now.map((c) => ({ path: listed[c.k]!, st: c.st, fact: c.fact, line: c.line }));
      const before = patch?.before ?? table.header;
      const header = addedHeader(before, table.paths, added);
      if (header) {
        writePatch(dir, { magic: PATCH_MAGIC, base: table.header.made, namesKey: recordKey, header, before, files: [...(patch?.files.values() ?? [])], added: added.map((a) => [a.path, a.st.mtimeMs, a.st.ctimeMs, a.st.size, a.st.ino, a.line]) });
        return served(dir, table, header, added);
      }
    }
    const made = now && remade(dir, table, patch, listed, was, now, recordKey);
    if (made) return made;
  }
  const recordKey = recordableNamesKey(dir); // before the catalog lists the folders: see writeIdMap
  const catalog = await loadCatalog(dir);
  const facts = catalog.items.map(factOf);
  const made = summarize(facts, catalog.items.map((i) => i.path));
  writeSummary(dir, catalog.items, facts.map(factLine), made, recordKey);
  return made.summary;
}

/** A file read anew: its position among the paths, its stat data (taken before the read), fact and fact line. */
interface ReadFact {
  k: number;
  st: StatData;
  fact: Fact;
  line: string;
}

/** Files `wanted` of `paths` read anew, or undefined when one is gone (the catalog then tells). */
async function readFacts(dir: string, paths: readonly string[], wanted: number[]): Promise<ReadFact[] | undefined> {
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const { parseEntry } = await import('../../core/format/entry.js');
  const out: ReadFact[] = [];
  for (const k of wanted) {
    const st = fileStat(base + paths[k]!); // before the read: a later change is read again
    if (!st) return undefined;
    const line = factLine(factOf(readItem(dir, { path: paths[k]!, id: '', ...st }, parseEntry)));
    out.push({ k, st, fact: parseFact(line, paths[k]!), line }); // as a stored one reads: compared with one below
  }
  return out;
}

/**
 * The summary made again from the facts stored in `table` (its patch's where patched) and the files read anew
 * (`now`), over the files `paths`: each at its index `was[k]` in the table (null: the table's own paths), or new.
 * Written under `recordKey`; undefined when the stored facts do not read.
 */
function remade(dir: string, table: StatTable<Header>, patch: Patch | undefined, paths: readonly string[], was: Int32Array | null, now: ReadFact[], recordKey: string): Summary | undefined {
  const stored = readFactLines(dir, table);
  if (!stored) return undefined;
  for (const f of patch?.files.values() ?? []) stored[f[0]] = f[5];
  const lines = was ? Array.from(was, (i) => (i < 0 ? '' : stored[i]!)) : stored;
  const stats = new Float64Array(paths.length * 4);
  if (was) was.forEach((i, k) => i >= 0 && stats.set(table.stats.subarray(i * 4, i * 4 + 4), k * 4));
  else stats.set(table.stats);
  for (const c of now) {
    putStat(stats, c.k, c.st);
    lines[c.k] = c.line;
  }
  const made = summarize(lines.map((l, k) => parseFact(l, paths[k]!)), paths);
  writeSummary(dir, { paths, stats }, lines, made, recordKey);
  return made.summary;
}

/** Writes a summary's patch. Never throws (derived state: without it, the next command reads the files again). */
function writePatch(dir: string, patch: PatchFile): void {
  try {
    writeFileAtomic(patchFile(dir), JSON.stringify(patch), { fsync: false });
  } catch {
    /* see above */
  }
}
