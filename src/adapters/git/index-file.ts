/**
 * Contract: reads and writes git's index file (format versions 2 and 3, the ones git writes by default), so a
 * commit made without the index can leave `git status` clean in one read and one atomic write, however many
 * paths changed. Optional extensions (the tree cache, the untracked cache) are dropped; git rebuilds them.
 * A required extension (split or sparse index) is refused rather than guessed at.
 */
import fs from 'node:fs';
import { writeFileAtomic } from '../store/fsutil.js';
import { checksumValid, checksummedParts, compareBytesAt, GITLINK, withChecksum } from './encoding.js';

/** One index entry at stage 0 (git-kb never writes conflict stages). */
export interface IndexEntry {
  path: string;
  oid: string;
  mode: number;
  ctimeS: number;
  ctimeNs: number;
  mtimeS: number;
  mtimeNs: number;
  dev: number;
  ino: number;
  uid: number;
  gid: number;
  size: number;
  flags: number;
  extFlags?: number;
  /** The entry's bytes as read, reused verbatim when it is written back unchanged. */
  raw?: Buffer;
}

/** The entry count of an index of a version this module writes back (2 or 3); throws on anything else. */
function readHeader(buf: Buffer): number {
  if (buf.length < 32 || buf.toString('latin1', 0, 4) !== 'DIRC') throw new Error('not a git index (no DIRC header)');
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) throw new Error(`git index version ${version} is not supported (2 or 3 are)`);
  return buf.readUInt32BE(8);
}

/** Walks the extensions after the entries: an upper-case first letter marks an optional one, which git rebuilds when missing. */
function checkExtensions(buf: Buffer, off: number): void {
  while (off + 8 <= buf.length - 20) {
    const sig = buf.toString('latin1', off, off + 4);
    if (!/^[A-Z]/.test(sig)) throw new Error(`git index has the required extension "${sig}", which git-kb cannot rewrite`);
    off += 8 + buf.readUInt32BE(off + 4);
  }
}

/** The 12-byte header of an index file. */
function writeHeader(version: number, count: number): Buffer {
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(version, 4);
  header.writeUInt32BE(count, 8);
  return header;
}

/** Parses an index buffer; throws on a format this module does not write back safely. */
export function parseIndex(buf: Buffer): IndexEntry[] {
  const count = readHeader(buf);
  if (!checksumValid(buf)) throw new Error('git index checksum mismatch');
  const entries: IndexEntry[] = [];
  let off = 12;
  for (let i = 0; i < count; i++) {
    const start = off;
    const flags = buf.readUInt16BE(off + 60);
    let p = off + 62;
    let extFlags: number | undefined;
    if (flags & 0x4000) {
      extFlags = buf.readUInt16BE(p);
      p += 2;
    }
    const end = buf.indexOf(0, p);
    entries.push({
      ctimeS: buf.readUInt32BE(off),
      ctimeNs: buf.readUInt32BE(off + 4),
      mtimeS: buf.readUInt32BE(off + 8),
      mtimeNs: buf.readUInt32BE(off + 12),
      dev: buf.readUInt32BE(off + 16),
      ino: buf.readUInt32BE(off + 20),
      mode: buf.readUInt32BE(off + 24),
      uid: buf.readUInt32BE(off + 28),
      gid: buf.readUInt32BE(off + 32),
      size: buf.readUInt32BE(off + 36),
      oid: buf.toString('hex', off + 40, off + 60),
      flags,
      extFlags,
      path: buf.toString('utf8', p, end),
      raw: buf.subarray(start, start + ((end - start + 8) & ~7)),
    });
    const len = end - start;
    off = start + ((len + 8) & ~7);
  }
  checkExtensions(buf, off);
  return entries;
}

/** Orders paths as git does (by UTF-8 bytes); plain string order agrees unless a surrogate pair is involved. */
export function compareBytes(a: string, b: string): number {
  if (/[\ud800-\udfff]/.test(a) || /[\ud800-\udfff]/.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Serialises index entries (sorted here) as an index file with its checksum. */
export function serializeIndex(entries: IndexEntry[]): Buffer {
  const sorted = [...entries].sort((a, b) => compareBytes(a.path, b.path));
  const extended = sorted.some((e) => e.extFlags !== undefined);
  const parts: Buffer[] = [];
  parts.push(writeHeader(extended ? 3 : 2, sorted.length));
  for (const e of sorted) parts.push(e.raw ?? serializeEntry(e));
  const body = Buffer.concat(parts);
  return withChecksum(body);
}

/** The bytes of one index entry (padded to a multiple of eight). */
function serializeEntry(e: IndexEntry): Buffer {
  const name = Buffer.from(e.path);
  const fixed = 62 + (e.extFlags !== undefined ? 2 : 0);
  const len = (fixed + name.length + 8) & ~7;
  const b = Buffer.alloc(len);
  const u32 = [e.ctimeS, e.ctimeNs, e.mtimeS, e.mtimeNs, e.dev, e.ino, e.mode, e.uid, e.gid, e.size];
  u32.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  b.write(e.oid, 40, 'hex');
  let flags = (e.flags & 0xf000) | Math.min(name.length, 0xfff);
  if (e.extFlags !== undefined) flags |= 0x4000;
  else flags &= ~0x4000;
  b.writeUInt16BE(flags, 60);
  if (e.extFlags !== undefined) b.writeUInt16BE(e.extFlags, 62);
  name.copy(b, fixed);
  return b;
}

/** An index entry for a working file that holds the blob `oid`, with its stat data as git records it. */
export function entryFromStat(filePath: string, oid: string, st: fs.BigIntStats): IndexEntry {
  const mode = (Number(st.mode) & 0o111) !== 0 ? 0o100755 : 0o100644;
  return {
    path: filePath,
    oid,
    mode,
    ctimeS: Number(st.ctimeNs / 1_000_000_000n) >>> 0,
    ctimeNs: Number(st.ctimeNs % 1_000_000_000n),
    mtimeS: Number(st.mtimeNs / 1_000_000_000n) >>> 0,
    mtimeNs: Number(st.mtimeNs % 1_000_000_000n),
    dev: Number(st.dev) >>> 0,
    ino: Number(st.ino) >>> 0,
    uid: Number(st.uid) >>> 0,
    gid: Number(st.gid) >>> 0,
    size: Number(st.size) >>> 0,
    flags: 0,
  };
}

/** The order of a path's bytes against the path at `start` to `end` of an index buffer. */
function compareNames(name: Buffer, buf: Buffer, start: number, end: number): number {
  const len = Math.min(name.length, end - start);
  return compareBytesAt(name, 0, buf, start, len) || name.length - (end - start);
}

/**
 * An index entry with no stat data: its blob and mode (a git mode string, "100644" when not given). git then
 * compares the working file's content: a missing file shows as deleted, one that differs as modified, nothing staged.
 */
function entryWithoutStat(filePath: string, oid: string, mode = '100644'): IndexEntry {
  return { path: filePath, oid, mode: parseInt(mode, 8), ctimeS: 0, ctimeNs: 0, mtimeS: 0, mtimeNs: 0, dev: 0, ino: 0, uid: 0, gid: 0, size: 0, flags: 0 };
}

/**
 * A change of one index entry: the path is set to blob `oid` (null: removed). Its stat data is read from the
 * working file, which the caller says holds that blob, unless `differs` says it does not (a hand edit left in
 * place) or the file is missing: then the entry has none, so git looks at the content and shows the difference.
 */
export interface IndexChange {
  path: string;
  oid: string | null;
  /** The git mode ("100644", "100755", "120000", "160000" for a gitlink) for an entry with no stat data; "100644" when not given. */
  mode?: string;
  differs?: boolean;
}

/**
 * Applies changes to the index of the repo at `dir` (IndexChange). A submodule's entry (mode '160000': a gitlink,
 * the commit it names) has no stat data, as `git update-index --cacheinfo` writes it: git compares none for a
 * gitlink, only whether the folder is there. Unchanged entries are copied as runs of raw bytes in one merge walk.
 * Written atomically.
 */
export function updateIndexFile(dir: string, changes: IndexChange[]): void {
  const indexFile = `${dir}/.git/index`;
  let buf: Buffer | undefined;
  try {
    buf = fs.readFileSync(indexFile);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  // NOTE: the old entries are compared as raw bytes and copied in runs, never decoded (one per note, every write).
  const pending = [...new Map(changes.map((c) => [c.path, c])).values()].map((c) => ({ c, name: Buffer.from(c.path) })).sort((a, b) => Buffer.compare(a.name, b.name));
  let extended = false;
  const parts: Buffer[] = [];
  let count = 0;
  let runStart = -1;
  let runEnd = -1;
  const flush = (): void => {
    if (runStart !== -1) parts.push(buf!.subarray(runStart, runEnd));
    runStart = -1;
  };
  const emit = (c: IndexChange): void => {
    if (c.oid === null) return;
    const st = c.differs || c.mode === GITLINK ? undefined : fs.statSync(`${dir}/${c.path}`, { bigint: true, throwIfNoEntry: false });
    parts.push(serializeEntry(st ? entryFromStat(c.path, c.oid, st) : entryWithoutStat(c.path, c.oid, c.mode)));
    count++;
  };
  let j = 0;
  let off = 12;
  const total = buf ? readHeader(buf) : 0;
  for (let i = 0; i < total; i++) {
    const b = buf!;
    const ext = (b[off + 60]! & 0x40) !== 0;
    const p = off + 62 + (ext ? 2 : 0);
    const end = b.indexOf(0, p);
    const len = (end - off + 8) & ~7;
    let c = 1;
    while (j < pending.length && (c = compareNames(pending[j]!.name, b, p, end)) < 0) {
      flush();
      emit(pending[j++]!.c);
    }
    if (j < pending.length && c === 0) {
      flush();
      emit(pending[j++]!.c);
    } else {
      extended ||= ext;
      if (runStart === -1) runStart = off;
      runEnd = off + len;
      count++;
    }
    off += len;
  }
  if (buf) checkExtensions(buf, off);
  flush();
  while (j < pending.length) emit(pending[j++]!.c);
  const version = extended ? 3 : 2;
  // NOTE: written as its parts (runs of the old index) with their checksum: no 6 MB copy at 50,000 entries.
  writeFileAtomic(indexFile, checksummedParts(writeHeader(version, count), ...parts), { fsync: false });
}
