/**
 * Contract: which working files differ from HEAD, as `git status` sees them, for the paths a caller picks: every
 * path of HEAD's tree and of `working` (the caller's listing of the work tree) that `keep` accepts, with HEAD's
 * blob and the working file's (null: absent). A working file whose stat data matches its index entry, where the
 * index holds HEAD's blob, is unchanged without reading it (git's own shortcut; a file changed in the same second
 * the index was written is read anyway).
 */
import fs from 'node:fs';
import path from 'node:path';
import { blobOid } from './encoding.js';
import { headOid } from './git.js';
import { entryFromStat, parseIndex, type IndexEntry } from './index-file.js';
import { ObjectReader } from './reader.js';
import { diffTrees } from './walk.js';

/** One path that differs between HEAD and the work tree. */
export interface WorkingChange {
  path: string;
  head: string | null;
  work: string | null;
}

function readIndex(dir: string): { entries: Map<string, IndexEntry>; mtimeS: number } {
  try {
    const file = path.join(dir, '.git', 'index');
    const st = fs.statSync(file);
    return { entries: new Map(parseIndex(fs.readFileSync(file)).map((e) => [e.path, e])), mtimeS: Math.floor(st.mtimeMs / 1000) };
  } catch {
    return { entries: new Map(), mtimeS: 0 };
  }
}

/** The paths (among HEAD's and `working`, filtered by `keep`) whose working content is not HEAD's. */
export async function workingChanges(dir: string, working: string[], keep: (p: string) => boolean): Promise<WorkingChange[]> {
  const reader = new ObjectReader(dir);
  let head: Map<string, string>;
  try {
    const tree = await reader.treeOf(await headOid(dir));
    head = new Map((await diffTrees(reader, tree, undefined)).filter((c) => c.old && keep(c.path)).map((c) => [c.path, c.old!]));
  } finally {
    reader.close();
  }
  const index = readIndex(dir);
  const out: WorkingChange[] = [];
  const seen = new Set<string>();
  for (const p of working) {
    if (!keep(p) || seen.has(p)) continue;
    seen.add(p);
    const abs = path.join(dir, p);
    const st = fs.lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const h = head.get(p) ?? null;
    const idx = index.entries.get(p);
    if (h && idx && idx.oid === h) {
      const now = entryFromStat(p, h, st);
      const same = now.size === idx.size && now.mtimeS === idx.mtimeS && now.mtimeNs === idx.mtimeNs && now.ctimeS === idx.ctimeS && now.ctimeNs === idx.ctimeNs && now.ino === idx.ino;
      if (same && now.mtimeS < index.mtimeS) continue;
    }
    const w = blobOid(fs.readFileSync(abs));
    if (w !== h) out.push({ path: p, head: h, work: w });
  }
  for (const [p, h] of head) {
    if (seen.has(p)) continue;
    if (!fs.lstatSync(path.join(dir, p), { throwIfNoEntry: false })) out.push({ path: p, head: h, work: null });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
