/**
 * Contract: the id map, `.git/git-kb/ids.v1`: which file holds each entry id, so `get` (and every verb that
 * finds one entry by id) reads one file instead of listing every entry folder (file names carry slugs, so the
 * name cannot be guessed). It is keyed by the names part of the one freshness key (fresh.ts `namesKey`: the
 * stat data of the entry folders), which moves whenever a file is created, deleted or renamed in them. A map
 * whose key differs is not trusted; every path it gives is still checked by the caller (it must be a file whose
 * name claims the id), and a miss falls back to the scan, which writes the map anew. So a missing, stale, torn
 * or foreign map costs one scan, never a wrong answer. Writers: the scan (app/find.ts), the catalog load (it
 * lists every file anyway) and the write transaction (it patches the map in place after a commit).
 *
 * Format (text): a first line `git-kb ids 1 <key>`, then one line `<id>\t<path>` per entry file, in no order,
 * then `-- end`: a file cut short anywhere lacks it and is not trusted. A lookup is a byte search for
 * `\n<id>\t` in the file as read, so loading costs one read, not a parse.
 */
import fs from 'node:fs';
import { writeFileAtomic } from '../store/fsutil.js';
import { entryDirs } from '../store/layout.js';
import { keyDirs, namesKey } from './fresh.js';

const MAGIC = 'git-kb ids 1 ';
const END = '-- end\n';

/** The id map file of a data repo. */
export function idMapFile(dir: string): string {
  return `${dir}/.git/git-kb/ids.v1`;
}

/** The key the id map must carry to be trusted now (a few stat calls). */
export function currentNamesKey(dir: string): string {
  return namesKey(dir, keyDirs(entryDirs(dir)));
}

export interface IdMap {
  key: string;
  buf: Buffer;
}

/** The id map as stored, or undefined when it is missing or not one. */
export function readIdMap(dir: string): IdMap | undefined {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(idMapFile(dir));
  } catch {
    return undefined;
  }
  const nl = buf.indexOf(10);
  if (nl < 0 || buf.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) return undefined;
  if (buf.length < nl + 1 + END.length || buf.subarray(buf.length - END.length - 1).toString('latin1') !== `\n${END}`) return undefined; // cut short
  return { key: buf.subarray(MAGIC.length, nl).toString('utf8'), buf };
}

/** The key recorded in the id map (reads its first line only), or undefined. */
export function idMapKey(dir: string): string | undefined {
  let fd: number;
  try {
    fd = fs.openSync(idMapFile(dir), 'r');
  } catch {
    return undefined;
  }
  try {
    const head = Buffer.alloc(64 * 1024);
    const n = fs.readSync(fd, head, 0, head.length, 0);
    const nl = head.subarray(0, n).indexOf(10);
    if (nl < 0 || head.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) return undefined;
    const size = fs.fstatSync(fd).size;
    const tail = Buffer.alloc(END.length + 1);
    if (size < nl + 1 + tail.length || fs.readSync(fd, tail, 0, tail.length, size - tail.length) !== tail.length || tail.toString('latin1') !== `\n${END}`) return undefined;
    return head.subarray(MAGIC.length, nl).toString('utf8');
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The paths the map gives for `id` (two or more: the id is claimed twice). */
export function pathsInMap(map: IdMap, id: string): string[] {
  const out: string[] = [];
  const needle = `\n${id}\t`;
  for (let at = map.buf.indexOf(needle); at >= 0; at = map.buf.indexOf(needle, at + 1)) {
    const start = at + needle.length;
    const end = map.buf.indexOf(10, start);
    if (end < 0) break; // a torn last line
    out.push(map.buf.subarray(start, end).toString('utf8'));
  }
  return out;
}

function line(id: string, p: string): string {
  return `${id}\t${p}\n`;
}

function usable(id: string, p: string): boolean {
  return id !== '' && !/[\t\n]/.test(p) && !/[\t\n]/.test(id);
}

/**
 * Writes the map of `files` under `key`, which the caller computed BEFORE listing them: a change made while
 * they were listed then leaves a key that no longer matches, and the next lookup scans again. Never throws (a
 * read-only repo just scans every time).
 */
export function writeIdMap(dir: string, key: string, files: Iterable<{ id: string; path: string }>): void {
  const parts = [`${MAGIC}${key}\n`];
  for (const f of files) if (usable(f.id, f.path)) parts.push(line(f.id, f.path));
  parts.push(END);
  try {
    writeFileAtomic(idMapFile(dir), parts.join(''), { fsync: false });
  } catch {
    /* derived state: the next lookup scans */
  }
}

/**
 * Brings the map along with a commit the caller just wrote under the write lock: `keyBefore` is the names key
 * taken before its files were written; only a map that carried exactly that key is patched (any other is left
 * to mismatch and be rebuilt by the next scan). `changes` are the entry files written (`deleted` false) or
 * removed; the map gets the key of the folders as they are now.
 */
export function patchIdMap(dir: string, keyBefore: string, changes: { id: string; path: string; deleted: boolean }[]): void {
  try {
    const map = readIdMap(dir);
    if (!map || map.key !== keyBefore) return;
    const keyAfter = currentNamesKey(dir);
    let body = `\n${map.buf.subarray(map.buf.indexOf(10) + 1, map.buf.length - END.length).toString('utf8')}`;
    for (const c of changes) {
      if (!usable(c.id, c.path)) continue;
      const l = line(c.id, c.path);
      const has = body.includes(`\n${l}`);
      if (c.deleted && has) body = body.replace(`\n${l}`, '\n');
      else if (!c.deleted && !has) body += l;
    }
    writeFileAtomic(idMapFile(dir), `${MAGIC}${keyAfter}${body}${END}`, { fsync: false });
  } catch {
    /* derived state: the next lookup scans */
  }
}
