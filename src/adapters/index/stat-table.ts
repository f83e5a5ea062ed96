/**
 * Contract: the one encoding of "these files, with this stat data" that derived state proves itself current by
 * (the catalog summary, the lint state): a first line `<magic> <JSON>` (the caller's header plus section sizes),
 * the paths joined by `\n`, padding to 8 bytes, 4 float64 per path (mtimeMs, ctimeMs, size, inode), the caller's
 * tail bytes, then `-- end`. A file cut short, padded or foreign reads as undefined. `unchanged` is the one
 * comparison of a file on disk against its recorded stat data.
 */
import fs from 'node:fs';
import { readAt, writeFileAtomic } from '../store/fsutil.js';
import { entryStatInto, type StatData } from '../store/layout.js';
import { linePath, needsEscape, pathLine } from '../../core/text/path-line.js';

const END = '-- end\n';

export interface FileStat extends StatData {
  path: string;
}

interface Sizes<H> {
  h: H;
  count: number;
  pathsBytes: number;
  tailBytes: number;
  /** Set when the paths are escaped (pathLine): only then are they unescaped, so an older table reads as written. */
  escaped?: true;
}

export interface StatTable<H> {
  header: H;
  paths: string[];
  stats: Float64Array;
  /** Where the stat records start in the file (record `i` at `statsAt + 32 i`). */
  statsAt: number;
  /** Where the tail starts in the file, its length, and the file's identity (to read the tail later). */
  tailAt: number;
  tailBytes: number;
  ino: number;
  size: number;
}

function pad8(n: number): number {
  return (8 - (n % 8)) % 8;
}


/** The files of a table as columns: their paths, and 4 float64 of stat data per path (as `stats` is read). */
export interface StatColumns {
  paths: readonly string[];
  stats: Float64Array;
}

/** Puts stat data `st` as record `i` of stat columns (the layout `recordedStat` reads). */
export function putStat(stats: Float64Array, i: number, st: StatData): void {
  stats[i * 4] = st.mtimeMs;
  stats[i * 4 + 1] = st.ctimeMs;
  stats[i * 4 + 2] = st.size;
  stats[i * 4 + 3] = st.ino;
}

/** Writes the table atomically (throws on failure; callers treat it as derived state). */
export function writeStatTable(file: string, magic: string, header: unknown, files: FileStat[] | StatColumns, tail: Buffer | Buffer[] = []): void {
  let columns: StatColumns;
  if (Array.isArray(files)) {
    const stats = new Float64Array(files.length * 4);
    files.forEach((f, n) => putStat(stats, n, f));
    columns = { paths: files.map((f) => f.path), stats };
  } else columns = files;
  const { stats } = columns;
  const count = columns.paths.length;
  if (stats.length !== count * 4) throw new Error(`stat table: ${count} paths but ${stats.length / 4} stat records`);
  // NOTE: the paths are escaped only when one needs it (pathLine): a table of 50,000 plain paths is one join.
  const escaped = columns.paths.some(needsEscape);
  const paths = Buffer.from((escaped ? columns.paths.map(pathLine) : columns.paths).join('\n'), 'utf8');
  const tails = Array.isArray(tail) ? tail : [tail];
  const sizes: Sizes<unknown> = { h: header, count, pathsBytes: paths.length, tailBytes: tails.reduce((n, t) => n + t.length, 0), ...(escaped ? { escaped: true as const } : {}) };
  const head = Buffer.from(`${magic} ${JSON.stringify(sizes)}\n`, 'utf8');
  const gap = Buffer.alloc(pad8(head.length + paths.length));
  writeFileAtomic(file, [head, paths, gap, Buffer.from(stats.buffer, stats.byteOffset, stats.byteLength), ...tails, Buffer.from(END)], { fsync: false });
}

/** The first line of a table (its sizes and the caller's header) and where it ends, or undefined. */
function headOf<H>(read: (at: number, len: number) => Buffer, size: number, magic: string): { s: Sizes<H>; nl: number } | undefined {
  let head = read(0, Math.min(size, 64 * 1024));
  let nl = head.indexOf(10);
  if (nl < 0 && head.length < size) {
    head = read(0, size);
    nl = head.indexOf(10);
  }
  if (nl < 0 || head.subarray(0, magic.length + 1).toString('latin1') !== `${magic} `) return undefined;
  const s = JSON.parse(head.subarray(magic.length + 1, nl).toString('utf8')) as Sizes<H>;
  if (!s || !Number.isSafeInteger(s.count) || !Number.isSafeInteger(s.pathsBytes) || !Number.isSafeInteger(s.tailBytes)) return undefined;
  return { s, nl };
}

/** The table read through `read` (a file of `size` bytes and inode `ino`), or undefined; throws on read errors. */
function parseTable<H>(read: (at: number, len: number) => Buffer, size: number, ino: number, magic: string, accept: (h: H) => boolean): StatTable<H> | undefined {
  const got = headOf<H>(read, size, magic);
  if (!got || !accept(got.s.h)) return undefined;
  const { s, nl } = got;
  const pathsAt = nl + 1;
  const statsAt = pathsAt + s.pathsBytes + pad8(pathsAt + s.pathsBytes);
  const tailAt = statsAt + s.count * 32;
  if (tailAt + s.tailBytes + END.length !== size || read(size - END.length, END.length).toString('latin1') !== END) return undefined;
  const body = read(pathsAt, tailAt - pathsAt);
  const lines = s.count === 0 ? [] : body.subarray(0, s.pathsBytes).toString('utf8').split('\n');
  const paths = s.escaped === true ? lines.map(linePath) : lines;
  if (paths.length !== s.count) return undefined;
  const raw = body.subarray(statsAt - pathsAt);
  const stats = raw.byteOffset % 8 === 0 ? new Float64Array(raw.buffer, raw.byteOffset, s.count * 4) : new Float64Array(Uint8Array.from(raw).buffer);
  return { header: s.h, paths, stats, statsAt, tailAt, tailBytes: s.tailBytes, ino, size };
}

/** `use` of the file open for reading, closed after; undefined when it cannot be opened or `use` throws. */
function withFile<T>(file: string, use: (fd: number) => T | undefined): T | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    return use(fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Reads a table (head, paths and stat data; the tail is left on disk), or undefined. `accept` can refuse early. */
export function readStatTable<H>(file: string, magic: string, accept: (h: H) => boolean = () => true): StatTable<H> | undefined {
  return withFile(file, (fd) => readStatTableFd(fd, magic, accept));
}

/** The caller's header of a table, from its first line only (no paths, no stat data), or undefined. */
export function readStatTableHeader<H>(file: string, magic: string): H | undefined {
  return withFile(file, (fd) => headOf<H>((at, len) => readAt(fd, at, len), fs.fstatSync(fd).size, magic)?.s.h);
}

/** Reads a table from an open file (the caller reads the tail and closes it), or undefined. */
export function readStatTableFd<H>(fd: number, magic: string, accept: (h: H) => boolean = () => true): StatTable<H> | undefined {
  try {
    const { size, ino } = fs.fstatSync(fd);
    return parseTable((at, len) => readAt(fd, at, len), size, ino, magic, accept);
  } catch {
    return undefined;
  }
}

/** The stat data recorded for file `i` of the table. */
export function recordedStat(table: StatTable<unknown>, i: number): StatData {
  const s = table.stats;
  return { mtimeMs: s[i * 4]!, ctimeMs: s[i * 4 + 1]!, size: s[i * 4 + 2]!, ino: s[i * 4 + 3]! };
}

/**
 * Writes stat data `st` as record `i` of the table in the open file `fd` it was read from, in place (32 bytes at
 * a fixed offset; the rest of the file is untouched), and into `table.stats`. NOTE: for a caller whose recorded
 * facts of that file still hold for its new stat data; a process killed between two records leaves the old stat
 * data in the others, which only makes the next reader read those files again.
 */
export function patchStat(fd: number, table: StatTable<unknown>, i: number, st: StatData): void {
  putStat(table.stats, i, st);
  const rec = new Float64Array(4);
  putStat(rec, 0, st);
  fs.writeSync(fd, new Uint8Array(rec.buffer), 0, 32, table.statsAt + i * 32);
}

/** Where `unchanged` reads a file's stat data now (no record allocated per file of the sweep). */
const now = new Float64Array(4);

/**
 * True when file `i` of the table is on disk with its recorded stat data. NOTE: one stat per call, with plain
 * concatenation (`base` ends with '/'): the price of seeing an uncommitted edit in place; nothing cheaper proves
 * a file unchanged.
 */
export function unchanged(base: string, table: StatTable<unknown>, i: number): boolean {
  if (!entryStatInto(base + table.paths[i]!, now)) return false;
  const s = table.stats;
  return now[0] === s[i * 4] && now[1] === s[i * 4 + 1] && now[2] === s[i * 4 + 2] && now[3] === s[i * 4 + 3];
}
