/**
 * Contract: the id map, `.git/git-kb/ids.v2`: which file holds each entry id, so `get` (and every verb that
 * finds one entry by id) reads one small part of one file instead of listing every entry folder (file names
 * carry slugs, so the name cannot be guessed). It is keyed by the names part of the one freshness key (fresh.ts
 * `namesKey`: the stat data of the entry folders), which moves whenever a file is created, deleted or renamed
 * in them. A map whose key differs is not trusted; every path it gives is still checked by the caller (it must
 * be a file whose name claims the id), and a miss falls back to the scan, which writes the map anew. So a
 * missing, stale, torn or foreign map costs one scan, never a wrong answer. Writers: the scan (app/find.ts),
 * the catalog load (it lists every file anyway) and the write transaction (it patches the map after a commit).
 *
 * Format (text): `git-kb ids 2 <key>`, then the bucket count B, then B+1 byte offsets (relative to the end of
 * that line), then the buckets: lines `<id>\t<path>`, each id in bucket fnv1a(id) % B, then `-- end` (a file cut
 * short anywhere lacks it and is not trusted). A lookup reads the head, one bucket and the tail: a few KiB at
 * any size.
 */
import fs from 'node:fs';
import { fnv1a } from '../../core/text/fnv.js';
import { readAt, writeFileAtomic } from '../store/fsutil.js';
import { openRegular } from '../system/read-bounded.js';
import { entryDirs } from '../store/layout.js';
import { keyDirs, namesKey, settledNamesKey } from './fresh.js';

const MAGIC = 'git-kb ids 2 ';
const END = '-- end\n';
/** Entries per bucket, about: a lookup reads one bucket. */
const PER_BUCKET = 32;

/** The id map file of a data repo. */
export function idMapFile(dir: string): string {
  return `${dir}/.git/git-kb/ids.v2`;
}

/** The key the id map must carry to be trusted now (a few stat calls). */
export function currentNamesKey(dir: string): string {
  return namesKey(dir, keyDirs(entryDirs(dir)));
}

/**
 * The names key to record with state about to be listed from the folders (the summary, the lint state), or a
 * key that never matches while a folder changed just now (fresh.ts settledNamesKey): such state is then rebuilt
 * by the next command instead of being trusted.
 */
export function recordableNamesKey(dir: string): string {
  return settledNamesKey(dir, keyDirs(entryDirs(dir))) ?? `unsettled:${process.pid}:${Date.now()}:${Math.random()}`;
}

/** An opened id map: its key and where its buckets are. */
export interface IdMap {
  key: string;
  fd: number;
  buckets: number;
  /** B+1 offsets into the body. */
  offsets: number[];
  bodyStart: number;
}


/** Opens the id map (head and tail checked), or undefined when it is missing, torn or not one. */
export function openIdMap(dir: string): IdMap | undefined {
  const f = openRegular(idMapFile(dir));
  if (!f) return undefined;
  const { fd, size } = f;
  try {
    let head = readAt(fd, 0, Math.min(size, 16 * 1024));
    const l1 = head.indexOf(10);
    const l2 = l1 < 0 ? -1 : head.indexOf(10, l1 + 1);
    if (l2 < 0 || head.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) throw new Error('not an id map');
    const buckets = Number(head.subarray(l1 + 1, l2).toString('latin1'));
    if (!Number.isSafeInteger(buckets) || buckets < 1) throw new Error('bad bucket count');
    let l3 = head.indexOf(10, l2 + 1);
    if (l3 < 0 && head.length < size) {
      head = readAt(fd, 0, size); // a very large map: the offsets line is longer than the first read
      l3 = head.indexOf(10, l2 + 1);
    }
    if (l3 < 0) throw new Error('torn');
    const offsets = head.subarray(l2 + 1, l3).toString('latin1').split(' ').map(Number);
    const bodyStart = l3 + 1;
    if (offsets.length !== buckets + 1 || offsets.some((o, i) => !Number.isSafeInteger(o) || (i > 0 && o < offsets[i - 1]!))) throw new Error('bad offsets');
    if (bodyStart + offsets[buckets]! + END.length !== size) throw new Error('torn');
    if (readAt(fd, size - END.length, END.length).toString('latin1') !== END) throw new Error('torn');
    return { key: head.subarray(MAGIC.length, l1).toString('utf8'), fd, buckets, offsets, bodyStart };
  } catch {
    fs.closeSync(fd);
    return undefined;
  }
}

export function closeIdMap(map: IdMap): void {
  try {
    fs.closeSync(map.fd);
  } catch {
    /* already closed */
  }
}

/** The key recorded in the id map, or undefined when there is no sound map. */
export function idMapKey(dir: string): string | undefined {
  const map = openIdMap(dir);
  if (!map) return undefined;
  closeIdMap(map);
  return map.key;
}

/** The paths the map gives for `id` (two or more: the id is claimed twice). */
export function pathsInMap(map: IdMap, id: string): string[] {
  const b = fnv1a(id) % map.buckets;
  const from = map.offsets[b]!;
  const bucket = readAt(map.fd, map.bodyStart + from, map.offsets[b + 1]! - from).toString('utf8');
  const out: string[] = [];
  for (const line of bucket.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0 && line.slice(0, tab) === id) out.push(line.slice(tab + 1));
  }
  return out;
}

function usable(id: string, p: string): boolean {
  return id !== '' && !/[\t\n]/.test(p) && !/[\t\n ]/.test(id);
}

function encode(key: string, entries: Iterable<[id: string, path: string]>): string {
  const list = [...entries];
  const buckets = Math.max(1, Math.ceil(list.length / PER_BUCKET));
  const parts: string[][] = Array.from({ length: buckets }, () => []);
  for (const [id, p] of list) parts[fnv1a(id) % buckets]!.push(`${id}\t${p}\n`);
  const offsets = [0];
  const bodies: string[] = [];
  for (const part of parts) {
    const text = part.join('');
    bodies.push(text);
    offsets.push(offsets.at(-1)! + Buffer.byteLength(text, 'utf8'));
  }
  return `${MAGIC}${key}\n${buckets}\n${offsets.join(' ')}\n${bodies.join('')}${END}`;
}

/**
 * Writes the map of `files` under `key`, which the caller computed BEFORE listing them: a change made while
 * they were listed then leaves a key that no longer matches, and the next lookup scans again. Never throws (a
 * read-only repo just scans every time).
 */
export function writeIdMap(dir: string, key: string, files: Iterable<{ id: string; path: string }>): void {
  const entries: [string, string][] = [];
  for (const f of files) if (usable(f.id, f.path)) entries.push([f.id, f.path]);
  try {
    writeFileAtomic(idMapFile(dir), encode(key, entries), { fsync: false });
  } catch {
    /* derived state: the next lookup scans */
  }
}

/** Above this many changes a patch re-encodes the whole map instead of splicing bucket by bucket. */
const SPLICE_MAX = 64;

/**
 * Brings the map along with a commit the caller just wrote under the write lock: `keyBefore` is the names key
 * taken before its files were written; only a map that carried exactly that key is patched (any other is left
 * to mismatch and be rebuilt by the next scan). `changes` are the entry files written (`deleted` false) or
 * removed; the map gets the key of the folders as they are now. A few changes are spliced into their buckets
 * (one copy of the file, no parse of the rest); many are re-encoded.
 */
export function patchIdMap(dir: string, keyBefore: string, changes: { id: string; path: string; deleted: boolean }[]): void {
  try {
    const map = openIdMap(dir);
    if (!map) return;
    let body: Buffer;
    try {
      if (map.key !== keyBefore) return;
      body = readAt(map.fd, map.bodyStart, map.offsets[map.buckets]!);
    } finally {
      closeIdMap(map);
    }
    const keyAfter = currentNamesKey(dir);
    const usableChanges = changes.filter((c) => usable(c.id, c.path));
    if (usableChanges.length > SPLICE_MAX) {
      const lines = new Set(body.toString('utf8').split('\n').filter(Boolean));
      for (const c of usableChanges) {
        if (c.deleted) lines.delete(`${c.id}\t${c.path}`);
        else lines.add(`${c.id}\t${c.path}`);
      }
      const entries = [...lines].map((l): [string, string] => [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)]);
      writeFileAtomic(idMapFile(dir), encode(keyAfter, entries), { fsync: false });
      return;
    }
    // The buckets as they are, with the changed ones replaced: written as parts, the body never copied.
    const texts = new Map<number, Buffer>();
    const bucketText = (b: number): Buffer => texts.get(b) ?? body.subarray(map.offsets[b]!, map.offsets[b + 1]!);
    for (const c of usableChanges) {
      const b = fnv1a(c.id) % map.buckets;
      const lines = bucketText(b).toString('utf8').split('\n').filter(Boolean);
      const line = `${c.id}\t${c.path}`;
      const has = lines.includes(line);
      if (c.deleted === !has) continue; // already as wanted
      const next = c.deleted ? lines.filter((l) => l !== line) : [...lines, line];
      texts.set(b, Buffer.from(next.map((l) => `${l}\n`).join(''), 'utf8'));
    }
    const offsets = [0];
    const parts: Buffer[] = [];
    let from = 0; // start of the run of unchanged buckets not yet in parts
    for (const b of [...texts.keys()].sort((x, y) => x - y)) {
      parts.push(body.subarray(from, map.offsets[b]!), texts.get(b)!);
      from = map.offsets[b + 1]!;
    }
    parts.push(body.subarray(from));
    for (let b = 0; b < map.buckets; b++) offsets.push(offsets[b]! + bucketText(b).length);
    const head = Buffer.from(`${MAGIC}${keyAfter}\n${map.buckets}\n${offsets.join(' ')}\n`, 'utf8');
    writeFileAtomic(idMapFile(dir), [head, ...parts, Buffer.from(END)], { fsync: false });
  } catch {
    /* derived state: the next lookup scans */
  }
}
