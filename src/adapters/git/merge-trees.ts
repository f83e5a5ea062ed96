/**
 * Contract: a three-way merge of trees that writes objects and nothing else (no ref, no working file). Subtrees
 * that one side left alone are taken whole, so a merge costs what changed, not the size of the repo. Several
 * merge bases (criss-cross histories) are tried file by file; unrelated histories merge with no base at all.
 * What a file means is the caller's: its rules merge the texts of a file both sides changed, say whether a
 * conflict stays inside the file or goes beside it, name files in notes, and say which files are the same
 * thing under two names (a rename on one side then merges with an edit on the other, into one file).
 */
import { encodeTree, type TreeEntry } from './encoding.js';
import { writeLooseObject } from './objects.js';
import type { ObjectReader } from './reader.js';

/** The caller's decisions about the files of the trees it merges. */
export interface MergeRules {
  /** Merges the texts of a file both sides changed (`base` undefined: no common version). */
  mergeText(path: string, base: string | undefined, ours: string, theirs: string): { text: string; conflict: boolean };
  /** True when a conflict in this file is kept inside its text; otherwise ours stays and theirs goes beside it. */
  inline(path: string): boolean;
  /** How notes name a file (default: its path). */
  nameOf?(path: string): string;
  /** True when the other side deleting this file deserves a note (default: always). */
  noteDeletion?(path: string): boolean;
  /**
   * What a file is, whatever its name (an entry's id): a side that removed a file and added one of the same
   * identity in that folder renamed it, and the other side's changes follow it to the new name.
   */
  identity?(path: string): string | undefined;
}

/** A conflict this merge produced. */
export interface MergeConflict {
  path: string;
  /** "inline": both versions in the file; "file": theirs stored beside ours in `sibling`; "type": a file and a folder. */
  kind: 'inline' | 'file' | 'type';
  sibling?: string;
}

export interface TreeMerge {
  tree: string;
  conflicts: MergeConflict[];
  notes: string[];
  /** Files both sides changed that merged cleanly. */
  merged: string[];
}

function same(a: TreeEntry | undefined, b: TreeEntry | undefined): boolean {
  if (!a || !b) return a === b;
  return a.oid === b.oid && a.mode === b.mode;
}

/**
 * Three-way merge of trees. `bases` are the trees of the merge bases (empty for unrelated histories); `theirs`
 * is labelled `label` in notes. Returns the merged tree with the conflicts and notes.
 */
export async function mergeTrees(options: { dir: string; reader: ObjectReader; bases: string[]; ours: string; theirs: string; label: string; rules: MergeRules }): Promise<TreeMerge> {
  const { dir, reader, rules, label } = options;
  const nameOf = (p: string): string => rules.nameOf?.(p) ?? p;
  const result: TreeMerge = { tree: '', conflicts: [], notes: [], merged: [] };
  const writeTree = (entries: TreeEntry[]): string => writeLooseObject(dir, 'tree', encodeTree(entries));

  const mergeBlob = async (p: string, baseEntries: (TreeEntry | undefined)[], o: TreeEntry, t: TreeEntry): Promise<{ entry: TreeEntry; extra?: TreeEntry }> => {
    const ot = (await reader.blob(o.oid)).toString('utf8');
    const tt = (await reader.blob(t.oid)).toString('utf8');
    const baseTexts: (string | undefined)[] = [];
    for (const b of baseEntries) baseTexts.push(b && b.type === 'blob' ? (await reader.blob(b.oid)).toString('utf8') : undefined);
    const candidates = baseTexts.length ? baseTexts : [undefined];
    // Each side equal to some base (criss-cross): both kept a different resolution; keep both.
    const oIsBase = baseEntries.some((b) => same(b, o));
    const tIsBase = baseEntries.some((b) => same(b, t));
    let best: { text: string; conflict: boolean } | undefined;
    for (const base of oIsBase && tIsBase ? [undefined] : candidates) {
      const m = rules.mergeText(p, base, ot, tt);
      if (!best || (best.conflict && !m.conflict)) best = m;
      if (!m.conflict) break;
    }
    const m = best!;
    const oid = m.text === ot ? o.oid : m.text === tt ? t.oid : writeLooseObject(dir, 'blob', Buffer.from(m.text));
    const entry: TreeEntry = { ...o, oid };
    if (!m.conflict) {
      result.merged.push(p);
      return { entry };
    }
    if (rules.inline(p)) {
      result.conflicts.push({ path: p, kind: 'inline' });
      return { entry };
    }
    // Not kept inline: ours stays in place and theirs goes beside it, so neither file's format breaks.
    const name = `${p.split('/').pop()!}.conflict-${t.oid.slice(0, 8)}`;
    result.conflicts.push({ path: p, kind: 'file', sibling: p.includes('/') ? `${p.slice(0, p.lastIndexOf('/'))}/${name}` : name });
    return { entry, extra: { ...t, path: name } };
  };

  /**
   * Renames on `side` in one folder: a base file it no longer has, and a file it added with the same identity.
   * The other side and the bases get the new name (copies of their maps), so the walk merges them under it.
   */
  const followRenames = (prefix: string, side: Map<string, TreeEntry>, other: Map<string, TreeEntry>, bases: Map<string, TreeEntry>[], where: string): { other: Map<string, TreeEntry>; bases: Map<string, TreeEntry>[] } => {
    const identity = rules.identity;
    if (!identity || bases.length === 0) return { other, bases };
    const full = (n: string): string => (prefix ? `${prefix}/${n}` : n);
    const added = new Map<string, string>();
    for (const [n, e] of side) if (e.type === 'blob' && !bases.some((b) => b.has(n))) {
      const id = identity(full(n));
      if (id) added.set(id, n);
    }
    if (added.size === 0) return { other, bases };
    let copied = false;
    for (const b of [...bases]) {
      for (const [n, e] of b) {
        if (e.type !== 'blob' || side.has(n)) continue;
        const id = identity(full(n));
        const to = id ? added.get(id) : undefined;
        if (!to) continue;
        if (!copied) {
          other = new Map(other);
          bases = bases.map((m) => new Map(m));
          copied = true;
        }
        for (const m of [other, ...bases]) {
          const moved = m.get(n);
          if (moved && !m.has(to)) {
            m.delete(n);
            m.set(to, { ...moved, path: to });
          }
        }
        added.delete(id!);
        result.notes.push(`${nameOf(full(to))}: renamed from ${full(n)} to ${full(to)} ${where}; the changes on the other side follow it`);
      }
    }
    return { other, bases };
  };

  const walk = async (baseTrees: (string | undefined)[], oTree: string | undefined, tTree: string | undefined, prefix: string): Promise<string | undefined> => {
    const o0 = await reader.tree(oTree);
    const t0 = await reader.tree(tTree);
    let t = t0;
    let bs = await Promise.all(baseTrees.map((b) => reader.tree(b)));
    // Renames: ours first (theirs and the bases follow), then theirs (ours and the bases follow).
    ({ other: t, bases: bs } = followRenames(prefix, o0, t, bs, 'here'));
    const r = followRenames(prefix, t, o0, bs, `on ${label}`);
    const o = r.other;
    bs = r.bases;
    const out: TreeEntry[] = [];
    const names = new Set([...o.keys(), ...t.keys()]);
    for (const b of bs) for (const k of b.keys()) names.add(k);
    for (const name of [...names].sort()) {
      const p = prefix ? `${prefix}/${name}` : name;
      const oe = o.get(name);
      const te = t.get(name);
      const be = bs.map((b) => b.get(name));
      if (same(oe, te)) {
        if (oe) out.push(oe);
        continue;
      }
      const oBase = be.some((b) => same(b, oe));
      const tBase = be.some((b) => same(b, te));
      if (bs.length && oBase && !tBase) {
        if (te) out.push(te);
        else if (oe && oe.type === 'blob' && (rules.noteDeletion?.(p) ?? true)) result.notes.push(`${p}: deleted on ${label}`);
        continue;
      }
      if (bs.length && tBase && !oBase) {
        if (oe) out.push(oe);
        continue;
      }
      // Both sides changed this name.
      if (oe?.type === 'tree' && te?.type === 'tree') {
        const sub = await walk(be.map((b) => (b?.type === 'tree' ? b.oid : undefined)), oe.oid, te.oid, p);
        if (sub) out.push({ mode: '040000', path: name, oid: sub, type: 'tree' });
        continue;
      }
      if ((!oe || !te) && bs.length === 0) {
        out.push((oe ?? te)!); // unrelated histories: a file only one side has
        continue;
      }
      if (!oe || !te) {
        // Changed on one side, deleted on the other: the change wins, nothing edited is lost.
        out.push((oe ?? te)!);
        result.notes.push(oe ? `${nameOf(p)}: deleted on ${label} but edited here; kept the edit` : `${nameOf(p)}: deleted here but edited on ${label}; kept the edit`);
        continue;
      }
      if (oe.type === 'blob' && te.type === 'blob') {
        const { entry, extra } = await mergeBlob(p, be, oe, te);
        out.push(entry);
        if (extra) out.push(extra);
        continue;
      }
      // A file on one side and a folder (or submodule) on the other: keep ours, put theirs beside it.
      out.push(oe);
      const name2 = `${name}.conflict-${te.oid.slice(0, 8)}`;
      out.push({ ...te, path: name2 });
      result.conflicts.push({ path: p, kind: 'type', sibling: prefix ? `${prefix}/${name2}` : name2 });
    }
    if (out.length === 0) return undefined;
    // Unchanged from one side: reuse its tree object instead of writing an identical one.
    if (oTree && out.length === o0.size && out.every((e) => same(e, o0.get(e.path)))) return oTree;
    if (tTree && out.length === t0.size && out.every((e) => same(e, t0.get(e.path)))) return tTree;
    return writeTree(out);
  };

  result.tree = (await walk(options.bases, options.ours, options.theirs, '')) ?? writeTree([]);
  return result;
}
