/**
 * Contract: the objects of one commit of file changes on top of a parent: the new blobs (one packfile when there
 * are many), every tree on the way from a changed path to the root, and the commit object. Unchanged entries are
 * copied as raw bytes, so adding one file to a folder of 10,000 costs a scan and a copy, not 10,000 objects.
 * Writes objects only: moving the branch and the index is the caller's step (src/adapters/write/transaction.ts).
 */
import { compareTreeEntries, encodeTreeEntry, nextTreeEntry, type RawTreeEntry } from './encoding.js';
import { writeCommit } from './git.js';
import { writeLooseObject, writePackedBlobs } from './objects.js';
import { BIG_TREE, keptTree, writeBigTree } from './big-tree.js';
import type { Author } from './author.js';
import type { ObjectReader } from './reader.js';

/** One file change: new content, or null to delete the path. */
export interface FileChange {
  path: string;
  content: Buffer | string | null;
}

/** A path and the blob it holds after the commit (null: deleted). */
export interface BlobChange {
  path: string;
  oid: string | null;
}

/** Past this many new blobs in one commit, they go into one packfile instead of one loose file each. */
const PACK_THRESHOLD = 64;

interface TreeChange {
  name: string;
  isTree: boolean;
  oid: string | null;
  /** The change as a raw entry (a zero id when it deletes), to order it against the tree's raw entries. */
  raw: Buffer;
  entry: RawTreeEntry;
}

const NO_OID = '0'.repeat(40);

function treeChange(name: string, isTree: boolean, oid: string | null): TreeChange {
  const raw = encodeTreeEntry(isTree ? '040000' : '100644', name, oid ?? NO_OID);
  return { name, isTree, oid, raw, entry: nextTreeEntry(raw, 0)! };
}

/**
 * Rebuilds a tree with the given changes (paths relative to it, null deletes); undefined when it ends empty.
 * NOTE: the old tree's entries are compared as raw bytes and copied in runs, never decoded: the folder of entries
 * holds one entry per note, and this runs on every write.
 */
async function applyToTree(dir: string, reader: ObjectReader, treeOid: string | undefined, changes: Map<string, string | null>): Promise<string | undefined> {
  // A big tree the last commit kept is read from there: no inflate of megabytes (big-tree.ts).
  const kept = treeOid ? keptTree(dir, treeOid) : undefined;
  const body = kept ? kept.body : treeOid ? await reader.rawTree(treeOid) : Buffer.alloc(0);
  const pending: TreeChange[] = [];
  const sub = new Map<string, Map<string, string | null>>();
  for (const [p, oid] of changes) {
    const slash = p.indexOf('/');
    if (slash === -1) pending.push(treeChange(p, false, oid));
    else {
      const head = p.slice(0, slash);
      if (!sub.has(head)) sub.set(head, new Map());
      sub.get(head)!.set(p.slice(slash + 1), oid);
    }
  }
  for (const [name, subChanges] of sub) {
    const probe = treeChange(name, true, null);
    let oldOid: string | undefined;
    for (let e = nextTreeEntry(body, 0); e; e = nextTreeEntry(body, e.end)) {
      const c = compareTreeEntries(body, e, probe.raw, probe.entry);
      if (c === 0) oldOid = body.toString('hex', e.end - 20, e.end);
      if (c >= 0) break;
    }
    pending.push(treeChange(name, true, (await applyToTree(dir, reader, oldOid, subChanges)) ?? null));
  }
  pending.sort((a, b) => compareTreeEntries(a.raw, a.entry, b.raw, b.entry));
  // A name that changes between file and folder has another place in the order; its old entry is dropped.
  const names = new Set(pending.map((c) => Buffer.from(c.name).toString('latin1')));
  const nameLengths = new Set(pending.map((c) => c.entry.nameEnd - c.entry.nameStart));
  const parts: Buffer[] = [];
  let runStart = -1;
  let runEnd = -1;
  const flush = (): void => {
    if (runStart !== -1) parts.push(body.subarray(runStart, runEnd));
    runStart = -1;
  };
  const emit = (c: TreeChange): void => {
    if (c.oid) parts.push(c.raw);
  };
  let j = 0;
  for (let e = nextTreeEntry(body, 0); e; e = nextTreeEntry(body, e.end)) {
    let c = 1;
    while (j < pending.length && (c = compareTreeEntries(pending[j]!.raw, pending[j]!.entry, body, e)) < 0) {
      flush();
      emit(pending[j++]!);
    }
    if (j < pending.length && c === 0) {
      flush();
      emit(pending[j++]!);
    } else if (nameLengths.has(e.nameEnd - e.nameStart) && names.has(body.toString('latin1', e.nameStart, e.nameEnd))) {
      flush();
    } else {
      if (runStart === -1) runStart = e.start;
      runEnd = e.end;
    }
  }
  flush();
  while (j < pending.length) emit(pending[j++]!);
  if (parts.length === 0) return undefined;
  let length = 0;
  for (const p of parts) length += p.length;
  if (length < BIG_TREE) return writeLooseObject(dir, 'tree', ...parts);
  return writeBigTree(dir, Buffer.concat(parts, length), treeOid ? { oid: treeOid, kept } : undefined);
}

/**
 * Writes the blobs, trees and commit object of `changes` on top of `parent` (none: a root commit). Returns the
 * commit id and each path's new blob, for the ref and the index.
 */
export async function writeCommitObjects(options: {
  dir: string;
  reader: ObjectReader;
  parent: string | undefined;
  changes: FileChange[];
  message: string;
  author: Author;
  now?: Date;
}): Promise<{ commit: string; blobs: BlobChange[] }> {
  const { dir, reader, parent, changes } = options;
  const baseTree = await reader.treeOf(parent);
  const blobOids = new Map<string, string | null>();
  const written = changes.filter((c) => c.content !== null);
  const buffers = written.map((c) => (Buffer.isBuffer(c.content) ? c.content : Buffer.from(c.content as string)));
  const oids = written.length > PACK_THRESHOLD ? writePackedBlobs(dir, buffers) : buffers.map((b) => writeLooseObject(dir, 'blob', b));
  written.forEach((c, i) => blobOids.set(c.path, oids[i]!));
  for (const c of changes) if (c.content === null) blobOids.set(c.path, null);
  const tree = (await applyToTree(dir, reader, baseTree, blobOids)) ?? writeLooseObject(dir, 'tree', Buffer.alloc(0));
  const commit = await writeCommit({ dir, tree, parents: parent ? [parent] : [], message: options.message, author: options.author, now: options.now });
  return { commit, blobs: [...blobOids].map(([path, oid]) => ({ path, oid })) };
}
