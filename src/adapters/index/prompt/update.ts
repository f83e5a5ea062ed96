/**
 * Contract: the prompt index brought up to date from what changed (spec/hooks.md, "Updates"), instead of rebuilt
 * from every file. The files the index and its delta record (path, stat signature, kind, id: format.ts
 * IndexFile) are compared with a listing of the entry folders and the stat data now; only new and changed files
 * are read, and the result is written as the delta (delta.ts). Loaded only to update (load.ts imports it on
 * demand). `updatePromptIndex` returns undefined, and the caller rebuilds, whenever an update could differ from
 * a rebuild in what it serves: hosts.yaml or a kernel file changed; a kernel entry, an entry about a host or a
 * file whose id another file claims is among the changes; a summary the recent-sessions side file keeps is gone
 * from its directory's list; or the delta would pass DELTA_MAX_FILES files or DELTA_MAX_TERMS keywords. The key
 * is read before the folders are listed, as a build reads it (build.ts).
 */
import { readItem, type CatalogItem } from '../catalog.js';
import { buildLockFile, catalogCacheFile, hostsSig, indexFile, keyDirs, promptStateDir, repoKey, sigOf, statSig } from '../fresh.js';
import { writeFileAtomic } from '../../store/fsutil.js';
import { compareListing, entryDirs, inRepoDir, regularStatInto } from '../../store/layout.js';
import fs from 'node:fs';
import { pageParts } from '../../../core/format/sections.js';
import { keywords } from '../../../core/text/prompt-text.js';
import { docOf, fieldsOf, generationOf, indexDecay, indexDecaySettings, kindOf, newerFirst, newestKey, readBodyOf, rebuildPromptIndex, type BuildResult } from './build.js';
import { applyDelta, deltaFile, deltaFor, readDelta, type DeltaFile } from './delta.js';
import { keptRows, readAllSideRows, RECENT_KEPT, sideRowOf, writeSide, type SideRow } from './extras-sessions.js';
import { docTitle, HOT_SIZE, openIndexFile, readAllFiles, type ActivityItem, type FileKind, type IndexReader } from './format.js';

/** Files a delta may hold: a prompt checks each of them (one stat call each). */
export const DELTA_MAX_FILES = 128;
/** Keywords a delta's documents may hold: a prompt parses them all. */
export const DELTA_MAX_TERMS = 40_000;

type Rec = DeltaFile['files'][number];

/** The id of each document of the index file, by number (its document table, read whole). */
function docIds(reader: IndexReader): Map<string, number> {
  const h = reader.header;
  const offs = reader.read(h.sections.docs[0], (h.n + 1) * 4);
  const text = reader.read(h.sections.docText[0], h.sections.docText[1]);
  const out = new Map<string, number>();
  for (let i = 0; i < h.n; i++) {
    const t = text.toString('utf8', offs.readUInt32LE(i * 4), offs.readUInt32LE(i * 4 + 4));
    out.set(t.slice(0, t.indexOf('\t')), i);
  }
  return out;
}

const newestFirst = (a: ActivityItem, b: ActivityItem): number => newerFirst(a[2], a[0], b[2], b[0]);

/** Brings the prompt index of `dir` up to date: as a delta where it can be (unless `update` is false), else rebuilt. */
export async function refreshIndex(dir: string, options: { update?: boolean } = {}): Promise<BuildResult> {
  return (options.update !== false ? await updatePromptIndex(dir) : undefined) ?? rebuildPromptIndex(dir);
}

/** The body of the detached builder load.ts starts (dist/hooks/prompt-build.js): refresh, then release the lock. */
export async function runBackgroundBuild(dir: string): Promise<void> {
  try {
    await refreshIndex(dir);
  } finally {
    fs.rmSync(buildLockFile(dir), { force: true });
  }
}

/** Brings the prompt index of `dir` up to date as a delta; undefined when it must be rebuilt (see the contract). */
export async function updatePromptIndex(dir: string): Promise<BuildResult | undefined> {
  const started = Date.now();
  const base = openIndexFile(indexFile(dir));
  if (!base) return undefined;
  let result: BuildResult | undefined;
  try {
    result = await update(dir, base, started);
  } catch {
    // unreadable or unwritable state: the caller rebuilds (and meets the same error there, if any)
  } finally {
    if (!result) base.close();
  }
  return result;
}

async function update(dir: string, base: IndexReader, started: number): Promise<BuildResult | undefined> {
  const h = base.header;
  const root = `${dir}/`;
  if (!h.avg || !h.key.split('|').includes(hostsSig(dir))) return undefined;
  if (h.kernel.some((k) => statSig(root + k.path) !== k.sig)) return undefined;
  // Other decay settings in kb.json: every stamp may differ, a rebuild's to make.
  const decay = indexDecaySettings(dir);
  if (h.decay?.settings !== indexDecay(decay).settings) return undefined;
  const prev = readDelta(dir, base);
  const dirs = keyDirs(entryDirs(dir));
  const key = `${repoKey(dir, dirs)}|catalog=${statSig(catalogCacheFile(dir))}`; // before the listing: see build.ts

  // The files as recorded: the index file's, with the delta's changes over them.
  const prevFiles = new Map<string, Rec>((prev?.files ?? []).map((f) => [f[0], f]));
  const rec: Rec[] = [];
  for (const f of readAllFiles(base)) {
    const p = prevFiles.get(f[0]);
    if (!p) rec.push(f);
    else if (p[1] !== null) rec.push(p);
  }
  // the delta's new files (not in the index file), put in path order among the others
  const inFile = new Set(prevFiles.size > 0 ? rec.map((f) => f[0]) : []);
  const added = new Set([...prevFiles.values()].filter((f) => f[1] !== null && !inFile.has(f[0])).map((f) => f[0]));
  if (added.size > 0) {
    rec.push(...[...added].map((p) => prevFiles.get(p)!));
    rec.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }

  // What differs now: files new or changed (with their signature now), and files gone.
  const { listed, was, gone: goneFlags } = compareListing(dir, rec.map((f) => f[0]));
  const changed: { path: string; sig: string; old?: Rec }[] = [];
  const scratch = new Float64Array(4);
  inRepoDir(dir, (at) =>
    listed.forEach((p, k) => {
      const i = was[k]!;
      // NOTE: the stat signature as statSig writes it, from the raw stat call (no Stats object per file).
      if (!regularStatInto(at + p, scratch)) {
        if (i >= 0) goneFlags[i] = 1; // not a regular file (any more): as a build, which indexes regular files only
        return;
      }
      const sig = sigOf({ mtimeMs: scratch[0]!, ctimeMs: scratch[1]!, size: scratch[2]!, ino: scratch[3]! });
      if (i < 0) changed.push({ path: p, sig });
      else if (rec[i]![1] !== sig) changed.push({ path: p, sig, old: rec[i]! });
    }),
  );
  const gone = rec.filter((_, i) => goneFlags[i] === 1);
  const touched = new Set([...changed.map((c) => c.path), ...gone.map((g) => g[0])]);
  if (touched.size > DELTA_MAX_FILES) return undefined;

  const olds = [...changed.flatMap((c) => (c.old ? [c.old] : [])), ...gone];
  if (olds.some((f) => f[2] === 'k' || f[2] === 'h' || f[2] === 'd')) return undefined;
  // An id that another file claims too: which one serves is the catalog's rule, a rebuild's to apply.
  const claimedElsewhere = (id: string): boolean => rec.some((f) => f[3] === id && !touched.has(f[0]));
  const dups = rec.filter((f) => f[2] === 'd');
  if (olds.some((f) => f[3] && dups.some((d) => d[3] === f[3]))) return undefined;

  // The new and changed files, read.
  const parse = changed.length > 0 ? (await import('../../../core/format/entry.js')).parseEntry : undefined;
  const now: { path: string; sig: string; item: CatalogItem; kind: FileKind; id: string }[] = [];
  for (const c of changed) {
    const [mtimeMs, ctimeMs, size, ino] = c.sig.split(':').map(Number) as [number, number, number, number];
    const item = readItem(dir, { path: c.path, id: '', mtimeMs, ctimeMs, size, ino }, parse!);
    const e = item.entry;
    if (e && (now.some((x) => x.id === e.id) || claimedElsewhere(e.id))) return undefined;
    const [kind, id] = kindOf(e, new Map(e ? [[e.id, e]] : []));
    if (kind === 'k' || kind === 'h') return undefined;
    now.push({ path: c.path, sig: c.sig, item, kind, id });
  }

  // Documents: the delta's own for files not touched again, then the changed ones (newest change first).
  const fromBase = olds.filter((f) => f[2] === 'p' && !prevFiles.has(f[0]));
  const ids = fromBase.length > 0 ? docIds(base) : new Map<string, number>();
  const drop = new Set(prev?.drop ?? []);
  for (const f of fromBase) {
    const i = ids.get(f[3]);
    if (i !== undefined) drop.add(i);
  }
  const docs: DeltaFile['docs'] = [];
  const pointable = now.filter((x) => x.kind === 'p').map((x) => ({ path: x.path, e: x.item.entry! }));
  pointable.sort((a, b) => newerFirst(newestKey(a.e), a.e.id, newestKey(b.e), b.e.id));
  for (const { path, e } of pointable) {
    const body = readBodyOf(dir, path);
    const d = docOf(e, fieldsOf(e, body), base.header.avg!, decay, pageParts(e.title, body, keywords));
    const terms = [...d.terms].map(([t, f]): [string, number, number] => [t, f, d.weights!.get(t)!]);
    docs.push([e.id, docTitle(e.title), terms, d.decay ?? 0, d.parts && [d.parts.sizes, [...d.parts.masks]]]);
  }
  const leftIds = new Set(olds.filter((f) => f[2] === 'p').map((f) => f[3]));
  for (const d of prev?.docs ?? []) if (!leftIds.has(d[0])) docs.push(d);
  if (docs.reduce((n, d) => n + d[2].length, 0) > DELTA_MAX_TERMS) return undefined;

  // Activity lists: the changed entries out, their new versions in.
  const activity: Record<string, ActivityItem[]> = {};
  for (const [a, list] of Object.entries(prev?.activity ?? h.activity)) {
    const kept = list.filter((x) => !leftIds.has(x[0]));
    if (kept.length) activity[a] = kept;
  }
  for (const x of now) {
    if (x.kind !== 'p') continue;
    const e = x.item.entry!;
    for (const a of e.appliesTo) (activity[a] ??= []).push([e.id, e.title, newestKey(e)]);
  }
  for (const list of Object.values(activity)) list.sort(newestFirst);

  // The files the delta records.
  const files = new Map(prevFiles);
  for (const x of now) files.set(x.path, [x.path, x.sig, x.kind, x.id]);
  for (const g of gone) {
    if (added.has(g[0])) files.delete(g[0]);
    else files.set(g[0], [g[0], null, '-', '']);
  }
  if (files.size > DELTA_MAX_FILES) return undefined;

  // The recent-sessions side file, when a summary it counts changed (written last: nothing declines after it).
  let sessions = prev?.sessions ?? h.extras.sessions;
  const oldS = olds.filter((f) => f[2] === 'S');
  const newS = now.filter((x) => x.kind === 'S').map((x) => sideRowOf(x.item.entry!));
  if (oldS.length + newS.length > 0) {
    let rows: Record<string, SideRow[]> = {};
    if (sessions?.file) {
      const read = readAllSideRows(`${promptStateDir(dir)}/${sessions.file}`);
      if (!read || Object.values(read).some((list) => list.some((r) => r.length !== 4))) return undefined;
      rows = read;
    } else if ((sessions?.sessions ?? 0) > 0) return undefined;
    // A full list losing a row: the next older summary of that directory is not known here, unless the row
    // comes back as the same summary, no older (a Stop hook rewriting its session's summary).
    const full = new Set(Object.keys(rows).filter((d) => rows[d]!.length >= RECENT_KEPT));
    for (const f of oldS) {
      for (const [d, list] of Object.entries(rows)) {
        const at = list.findIndex((r) => r[0] === f[3]);
        if (at < 0) continue;
        const back = newS.find((n) => n.row[0] === f[3]);
        if (full.has(d) && !(back && back.dir === d && back.row[3] >= list[at]![3])) return undefined;
        list.splice(at, 1);
      }
    }
    for (const { dir: d, row } of newS) rows[d] = keptRows([...(rows[d] ?? []), row]);
    for (const d of Object.keys(rows)) if (rows[d]!.length === 0) delete rows[d];
    sessions = writeSide(dir, rows, (sessions?.sessions ?? 0) - oldS.length + newS.length);
  }

  // Hot files and the generation.
  const mtime = (sig: string): number => Number(sig.split(':')[0]);
  const fresh = now.map((x): [string, string] => [x.path, x.sig]).sort((a, b) => mtime(b[1]) - mtime(a[1]));
  const hot = [...fresh, ...(prev?.hot ?? h.hot).filter(([p]) => !touched.has(p))].slice(0, HOT_SIZE);
  // The generation as a build computes it (build.ts), from every file but the session summaries, in path order.
  let generation = prev?.generation ?? h.generation;
  if ([...touched].some((p) => !p.startsWith('sessions/'))) {
    const sigs = new Map(rec.filter((_, i) => goneFlags[i] !== 1).map((f) => [f[0], f[1]!]));
    for (const x of now) sigs.set(x.path, x.sig);
    generation = generationOf(dir, [...sigs.keys()].sort().map((p): [string, string] => [p, sigs.get(p)!]));
  }

  const delta = deltaFor(base, { key, generation, dirs, docs, drop: [...drop].sort((a, b) => a - b), files: [...files.values()], hot, activity, ...(sessions ? { sessions } : {}) });
  let saved = false;
  try {
    writeFileAtomic(deltaFile(dir), JSON.stringify(delta), { fsync: false });
    saved = true;
  } catch {
    /* read-only data repo: serve from memory */
  }
  const reader = applyDelta(base, delta);
  return { reader, saved, entries: reader.header.live ?? reader.header.n, ms: Date.now() - started, updated: true };
}
