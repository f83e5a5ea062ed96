/**
 * Contract: walking trees and histories the way git does, at the cost of what changed: two trees are compared
 * side by side without decoding unchanged entries, history walks go newest first and stop as soon as the answer
 * is known (merge bases, the commits a remote lacks), and the objects a push must send skip every subtree a
 * parent already holds.
 */
import { compareTreeEntries, GITLINK, nextTreeEntry, rawName, rawSide, type TreeEntry } from './encoding.js';
import { gfs, iso } from './git.js';
import { ObjectReader, type CommitInfo } from './reader.js';

/** One side of a differing tree entry. */
export type Side = Omit<TreeEntry, 'path'>;

/** A path whose content changes: the new blob (and mode), or null for a deletion. */
export interface PathChange {
  path: string;
  oid: string | null;
  mode?: string;
  /** The blob the path held before (null: it did not exist). */
  old?: string | null;
}

/**
 * Walks two trees side by side in git's order and reports each entry that differs (`a` or `b` undefined when
 * the name is on one side only), never turning an unchanged entry into strings: a diff of two 10,000-entry trees
 * that differ in one file costs a byte comparison per entry.
 */
async function diffTreeEntries(reader: ObjectReader, a: string | undefined, b: string | undefined, visit: (name: string, a: Side | undefined, b: Side | undefined) => Promise<void>): Promise<void> {
  if (a === b) return;
  const ba = a ? await reader.rawTree(a) : Buffer.alloc(0);
  const bb = b ? await reader.rawTree(b) : Buffer.alloc(0);
  let ea = nextTreeEntry(ba, 0);
  let eb = nextTreeEntry(bb, 0);
  while (ea || eb) {
    const c = ea && eb ? compareTreeEntries(ba, ea, bb, eb) : ea ? -1 : 1;
    if (c === 0) {
      const same = ea!.end - ea!.start === eb!.end - eb!.start && ba.compare(bb, eb!.start, eb!.end, ea!.start, ea!.end) === 0;
      if (!same) await visit(rawName(ba, ea!), rawSide(ba, ea!), rawSide(bb, eb!));
      ea = nextTreeEntry(ba, ea!.end);
      eb = nextTreeEntry(bb, eb!.end);
    } else if (c < 0) {
      await visit(rawName(ba, ea!), rawSide(ba, ea!), undefined);
      ea = nextTreeEntry(ba, ea!.end);
    } else {
      await visit(rawName(bb, eb!), undefined, rawSide(bb, eb!));
      eb = nextTreeEntry(bb, eb!.end);
    }
  }
}

/**
 * The blob changes that turn tree `a` into tree `b` (unchanged entries and subtrees are skipped). With `links`,
 * the submodule entries (gitlinks, mode 160000) that change go there the same way, `oid` and `old` naming
 * commits; they are never among the blob changes.
 */
export async function diffTrees(reader: ObjectReader, a: string | undefined, b: string | undefined, prefix = '', out: PathChange[] = [], links?: PathChange[]): Promise<PathChange[]> {
  await diffTreeEntries(reader, a, b, async (name, ea, eb) => {
    const p = prefix ? `${prefix}/${name}` : name;
    const treeA = ea?.type === 'tree' ? ea.oid : undefined;
    const treeB = eb?.type === 'tree' ? eb.oid : undefined;
    if (treeA || treeB) await diffTrees(reader, treeA, treeB, p, out, links);
    if (ea?.type === 'blob' && eb?.type !== 'blob') out.push({ path: p, oid: null, old: ea.oid });
    if (eb?.type === 'blob') out.push({ path: p, oid: eb.oid, mode: eb.mode, old: ea?.type === 'blob' ? ea.oid : null });
    if (!links) return;
    if (ea?.type === 'commit' && eb?.type !== 'commit') links.push({ path: p, oid: null, mode: GITLINK, old: ea.oid });
    if (eb?.type === 'commit') links.push({ path: p, oid: eb.oid, mode: GITLINK, old: ea?.type === 'commit' ? ea.oid : null });
  });
  return out;
}

/** Inserts a commit into a queue kept newest first (by committer time), as git's history walks do. */
function queueByTime(queue: { oid: string; time: number }[], oid: string, time: number): void {
  let lo = 0;
  let hi = queue.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (queue[mid]!.time >= time) lo = mid + 1;
    else hi = mid;
  }
  queue.splice(lo, 0, { oid, time });
}

/**
 * The commits reachable from `head` and not from `known` (the remote's tip, which the caller has merged), newest
 * first: the walk stops as soon as only commits the remote has are left (as `git rev-list head --not known`).
 */
export async function newCommits(reader: ObjectReader, head: string, known: string | undefined): Promise<string[]> {
  const SEEN = 1;
  const OLD = 2;
  const flags = new Map<string, number>();
  const queue: { oid: string; time: number }[] = [];
  const push = async (oid: string, f: number): Promise<void> => {
    const prev = flags.get(oid) ?? 0;
    if ((prev | f) === prev && prev & SEEN) return;
    flags.set(oid, prev | f | SEEN);
    if (prev & SEEN) return; // already queued: the new flag rides along
    queueByTime(queue, oid, (await reader.commit(oid)).time);
  };
  await push(head, 0);
  if (known) await push(known, OLD);
  const out: string[] = [];
  while (queue.some((q) => !((flags.get(q.oid) ?? 0) & OLD))) {
    const { oid } = queue.shift()!;
    const f = (flags.get(oid) ?? 0) & OLD;
    if (!f) out.push(oid);
    for (const p of (await reader.commit(oid)).parents) await push(p, f);
  }
  return out;
}

/**
 * The best common ancestors of two commits, found as git does (walk both histories newest first, stop when only
 * commits already known to be common remain), so the walk costs the divergence, not the whole history.
 */
export async function mergeBases(dir: string, a: string, b: string, reader: ObjectReader): Promise<string[]> {
  if (a === b) return [a];
  const P1 = 1;
  const P2 = 2;
  const STALE = 4;
  const RESULT = 8;
  const flags = new Map<string, number>();
  const queue: { oid: string; time: number }[] = [];
  const push = async (oid: string): Promise<void> => queueByTime(queue, oid, (await reader.commit(oid)).time);
  flags.set(a, P1);
  flags.set(b, P2);
  await push(a);
  await push(b);
  const results: string[] = [];
  while (queue.some((q) => !((flags.get(q.oid) ?? 0) & STALE))) {
    const { oid } = queue.shift()!;
    let f = (flags.get(oid) ?? 0) & (P1 | P2 | STALE);
    if ((f & (P1 | P2)) === (P1 | P2)) {
      if (!((flags.get(oid) ?? 0) & RESULT)) {
        flags.set(oid, (flags.get(oid) ?? 0) | RESULT);
        results.push(oid);
      }
      f |= STALE;
    }
    for (const p of (await reader.commit(oid)).parents) {
      const pf = flags.get(p) ?? 0;
      if ((pf & f) === f) continue;
      flags.set(p, pf | f);
      await push(p);
    }
  }
  const best = results.filter((r) => !((flags.get(r) ?? 0) & STALE) || results.length === 1);
  const list = best.length ? best : results;
  if (list.length <= 1) return list;
  // Several candidates (criss-cross merges): let isomorphic-git drop those that are ancestors of others.
  return (await iso()).findMergeBase({ fs: gfs, dir, oids: [a, b] });
}

/**
 * The objects the remote lacks for `commits`: each commit, and every tree and blob of its tree that no parent
 * holds at the same path (a subtree equal to a parent's is skipped whole, so the cost follows the change).
 * NOTE: a tree walked against one parent adds only what differs from that parent, so a walk is remembered by the
 * tree and its parents, not by the tree alone: a delete and a restore bring back an earlier commit's tree with
 * another parent, and what that earlier commit added must still be sent (a tree walked against no parent has all
 * of it sent, and is never walked again).
 */
export async function objectsToSend(reader: ObjectReader, commits: string[]): Promise<string[]> {
  const out = new Set<string>();
  const walked = new Set<string>();
  /** True when `tree` against `parents` was walked already (or all of it was); remembers this walk otherwise. */
  const seen = (tree: string, parents: (string | undefined)[]): boolean => {
    if (walked.has(tree)) return true;
    const key = parents.some((p) => p !== undefined) ? `${tree} ${parents.join(' ')}` : tree;
    if (walked.has(key)) return true;
    walked.add(key);
    out.add(tree);
    return false;
  };
  // One parent: only the entries that differ from it, found without parsing the unchanged ones.
  const walkOne = async (tree: string, parent: string | undefined): Promise<void> => {
    if (tree === parent || seen(tree, [parent])) return;
    await diffTreeEntries(reader, parent, tree, async (_name, a, b) => {
      if (!b || b.type === 'commit') return;
      if (b.type === 'blob') out.add(b.oid);
      else await walkOne(b.oid, a?.type === 'tree' ? a.oid : undefined);
    });
  };
  const walk = async (tree: string, parents: string[]): Promise<void> => {
    if (parents.length <= 1) return walkOne(tree, parents[0]);
    if (parents.includes(tree) || seen(tree, parents)) return;
    const entries = await reader.tree(tree);
    const parentTrees = await Promise.all(parents.map((p) => reader.tree(p)));
    for (const e of entries.values()) {
      if (e.type === 'commit') continue; // submodule: not ours to send
      const same = parentTrees.map((pt) => pt.get(e.path)).filter((x): x is TreeEntry => x !== undefined && x.type === e.type);
      if (e.type === 'blob') {
        if (!same.some((x) => x.oid === e.oid)) out.add(e.oid);
      } else await walk(e.oid, same.map((x) => x.oid));
    }
  };
  for (const c of commits) {
    out.add(c);
    const info = await reader.commit(c);
    const parentTrees = await Promise.all(info.parents.map(async (p) => (await reader.commit(p)).tree));
    await walk(info.tree, parentTrees);
  }
  return [...out];
}

/** Commits a history walk reads before its reader is replaced: the caches would otherwise hold every object read. */
const READER_SPAN = 500;

/**
 * Walks the commits reachable from `start` newest first by committer time, as `git log` orders them, each once.
 * `step` gets each commit with the reader of the moment and the commit the walk reached it from, and returns the
 * parents to go on to (`commit.parents` for all of them), or 'stop' to end the walk.
 */
export async function walkNewestFirst(dir: string, start: string, step: (reader: ObjectReader, oid: string, commit: CommitInfo, from: string | undefined) => Promise<string[] | 'stop'>): Promise<void> {
  let reader = new ObjectReader(dir);
  try {
    const from = new Map<string, string>();
    const seen = new Set<string>([start]);
    const queue: { oid: string; time: number }[] = [{ oid: start, time: (await reader.commit(start)).time }];
    let walked = 0;
    while (queue.length > 0) {
      const { oid } = queue.shift()!;
      if (++walked % READER_SPAN === 0) {
        reader.close();
        reader = new ObjectReader(dir);
      }
      const next = await step(reader, oid, await reader.commit(oid), from.get(oid));
      if (next === 'stop') return;
      for (const p of next) {
        if (seen.has(p)) continue;
        seen.add(p);
        from.set(p, oid);
        queueByTime(queue, p, (await reader.commit(p)).time);
      }
    }
  } finally {
    reader.close();
  }
}
