/**
 * Contract: a three-way merge of trees that writes objects and nothing else (no ref, no working file). Subtrees
 * that one side left alone are taken whole, so a merge costs what changed, not the size of the repo. Several
 * merge bases (criss-cross histories) are tried file by file; unrelated histories merge with no base at all.
 * What a file means is the caller's: its rules merge the texts of a file both sides changed, say whether a
 * conflict stays inside the file or goes beside it, and name files in notes.
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

  const walk = async (baseTrees: (string | undefined)[], oTree: string | undefined, tTree: string | undefined, prefix: string): Promise<string | undefined> => {
    const o = await reader.tree(oTree);
    const t = await reader.tree(tTree);
    const bs = await Promise.all(baseTrees.map((b) => reader.tree(b)));
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
    if (oTree && out.length === o.size && out.every((e) => same(e, o.get(e.path)))) return oTree;
    if (tTree && out.length === t.size && out.every((e) => same(e, t.get(e.path)))) return tTree;
    return writeTree(out);
  };

  result.tree = (await walk(options.bases, options.ours, options.theirs, '')) ?? writeTree([]);
  return result;
}
