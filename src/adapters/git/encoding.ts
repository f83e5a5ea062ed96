/**
 * Contract: git's object formats, encoded and decoded in this one place: an object's id and its stored form
 * (`<type> <size>\0<body>`), the SHA-1 trailer of git's binary files, and tree bodies, whose entries (`<mode> <name>\0<20-byte id>`) are in git's order,
 * names compared bytewise with a tree's name taken as if followed by "/". Pure: buffers in, buffers out.
 */
import { crypto } from '../system/builtins.js';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

/** An object's type and body. */
export interface GitObject {
  type: ObjectType;
  data: Buffer;
}

/** The header git puts before an object's body when it hashes or stores it. */
export function objectHeader(type: ObjectType, length: number): Buffer {
  return Buffer.from(`${type} ${length}\0`);
}

/** The id git gives an object. */
export function objectId(type: ObjectType, ...body: Buffer[]): string {
  let length = 0;
  for (const b of body) length += b.length;
  const hash = crypto().createHash('sha1').update(objectHeader(type, length));
  for (const b of body) hash.update(b);
  return hash.digest('hex');
}

/** A file body followed by its SHA-1, as git ends packs, pack indexes and the index. */
export function withChecksum(...body: Buffer[]): Buffer {
  return Buffer.concat(checksummedParts(...body));
}

/** The parts of a file body followed by their SHA-1, uncopied: for a writer that takes parts (writev). */
export function checksummedParts(...body: Buffer[]): Buffer[] {
  const hash = crypto().createHash('sha1');
  for (const b of body) hash.update(b);
  return [...body, hash.digest()];
}

/** True when a file ends with the SHA-1 of what precedes it. */
export function checksumValid(buf: Buffer): boolean {
  return crypto().createHash('sha1').update(buf.subarray(0, buf.length - 20)).digest().equals(buf.subarray(buf.length - 20));
}

/** The blob id git would give `content`. */
export function blobOid(content: Buffer): string {
  return objectId('blob', content);
}

/** One entry of a tree, as isomorphic-git describes it (trees have mode 040000). */
export interface TreeEntry {
  mode: string;
  path: string;
  oid: string;
  type: 'blob' | 'tree' | 'commit';
}

/** One entry of a raw tree body by byte offsets, nothing decoded: the cheap form for walks and edits. */
export interface RawTreeEntry {
  start: number;
  nameStart: number;
  nameEnd: number;
  end: number;
  tree: boolean;
}

/** The entry of a tree body that starts at byte `i`, or undefined at the end. */
export function nextTreeEntry(body: Buffer, i: number): RawTreeEntry | undefined {
  if (i >= body.length) return undefined;
  const sp = body.indexOf(0x20, i);
  const nul = body.indexOf(0, sp);
  // Mode "40000" (5 bytes starting with '4') marks a tree.
  return { start: i, nameStart: sp + 1, nameEnd: nul, end: nul + 21, tree: sp - i === 5 && body[i] === 0x34 };
}

/**
 * The order of `len` bytes of `a` from `ai` against as many of `b` from `bi` (negative, 0, positive).
 * NOTE: a byte loop, not Buffer#compare: names in one folder differ within their first bytes, and the native call
 * with its offset checks costs more than the loop (it runs once per entry of a folder or the index on every write).
 */
export function compareBytesAt(a: Uint8Array, ai: number, b: Uint8Array, bi: number, len: number): number {
  for (let i = 0; i < len; i++) {
    const d = a[ai + i]! - b[bi + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** git's tree order between two raw entries (of the same or different bodies). */
export function compareTreeEntries(a: Buffer, ea: RawTreeEntry, b: Buffer, eb: RawTreeEntry): number {
  const la = ea.nameEnd - ea.nameStart;
  const lb = eb.nameEnd - eb.nameStart;
  const len = Math.min(la, lb);
  const c = compareBytesAt(a, ea.nameStart, b, eb.nameStart, len);
  if (c !== 0) return c;
  const ca = la > len ? a[ea.nameStart + len]! : ea.tree ? 0x2f : 0;
  const cb = lb > len ? b[eb.nameStart + len]! : eb.tree ? 0x2f : 0;
  return ca - cb;
}

/** A name's sort key in git's tree order: its UTF-8 bytes read as latin1 (so string order is byte order). */
export function treeSortKey(name: string, isTree: boolean): string {
  return Buffer.from(isTree ? `${name}/` : name).toString('latin1');
}

/** A raw entry's name. */
export function rawName(body: Buffer, e: RawTreeEntry): string {
  return body.toString('utf8', e.nameStart, e.nameEnd);
}

/** The mode of a submodule entry (a gitlink: the tree names a commit of another repository). */
export const GITLINK = '160000';

/** A raw entry's mode (trees as 040000), id and kind. */
export function rawSide(body: Buffer, e: RawTreeEntry): Omit<TreeEntry, 'path'> {
  const mode = body.toString('latin1', e.start, e.nameStart - 1);
  const type = e.tree ? 'tree' : mode === GITLINK ? 'commit' : 'blob';
  return { mode: e.tree ? '040000' : mode.padStart(6, '0'), oid: body.toString('hex', e.nameEnd + 1, e.end), type };
}

/**
 * The file entries (modes 100644, 100755 and 120000) of a raw tree whose names start with `prefix`, found by
 * searching the bytes for the name rather than walking every entry: a history walk reads one large entries/ tree
 * per commit and wants one name of it.
 */
export function* rawFilesNamed(body: Buffer, prefix: string): Generator<{ name: string; mode: string; oid: string }> {
  const needle = Buffer.from(` ${prefix}`);
  for (let at = body.indexOf(needle); at !== -1; at = body.indexOf(needle, at + 1)) {
    const nul = body.indexOf(0, at);
    if (nul === -1 || nul + 21 > body.length) return;
    // The mode before the name, at an entry's start (the body's, or right after the previous entry's 20-byte id).
    const start = body.lastIndexOf(0x31, at - 1); // the '1' every file mode starts with
    const mode = start < 0 ? '' : body.toString('latin1', start, at);
    if (!/^(?:100644|100755|120000)$/.test(mode)) continue;
    yield { name: body.toString('utf8', at + 1, nul), mode, oid: body.toString('hex', nul + 1, nul + 21) };
  }
}

/** A tree body's entries by name. */
export function parseTree(body: Buffer): Map<string, TreeEntry> {
  const map = new Map<string, TreeEntry>();
  for (let e = nextTreeEntry(body, 0); e; e = nextTreeEntry(body, e.end)) {
    const name = rawName(body, e);
    map.set(name, { ...rawSide(body, e), path: name });
  }
  return map;
}

/** The bytes of one tree entry (mode 040000 is written as git writes it, 40000). */
export function encodeTreeEntry(mode: string, name: string, oid: string): Buffer {
  return Buffer.concat([Buffer.from(`${mode === '040000' ? '40000' : mode} ${name}\0`), Buffer.from(oid, 'hex')]);
}

/** A tree body holding `entries`, put in git's order. */
export function encodeTree(entries: TreeEntry[]): Buffer {
  const keyed = entries.map((e) => ({ e, key: treeSortKey(e.path, e.type === 'tree') }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return Buffer.concat(keyed.map(({ e }) => encodeTreeEntry(e.mode, e.path, e.oid)));
}
