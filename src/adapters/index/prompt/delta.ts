/**
 * Contract: the prompt index's delta, `<data>/.git/git-kb/prompt/delta.v1` (spec/hooks.md, "Updates"): the
 * entries changed since the index file was built, written by update.ts and read with the index by every reader
 * (openPromptIndex), so a change costs a small write instead of a rebuild. It names the index it applies to (its
 * mark: built time, generation and counts); under another index, torn or foreign, it is not read. Applied, it
 * gives the index's header its own key, generation, directories, hot files, activity lists and session extras,
 * and the reader an overlay (format.ts Overlay): the index's own documents, less those it replaced or removed,
 * then its own. Safe to delete: the next prompt finds the index stale and updates it again.
 */
import type { DecayStamp } from '../../../core/decay.js';
import { promptStateDir } from '../fresh.js';
import { readSmall } from '../../system/read-bounded.js';
import { openIndexFile, type ActivityItem, type FileKind, type IndexExtras, type IndexHeader, type IndexReader, type OverlayDoc } from './format.js';

const MAGIC = 'git-kb prompt delta 1';

/** A delta as stored. */
export interface DeltaFile {
  magic: string;
  /** The mark of the index file it applies to (baseMark). */
  base: string;
  key: string;
  generation: string;
  dirs: string[];
  /**
   * Its documents, newest change first: [id, title, [keyword, field bits, weight][], decay stamp (0 or absent:
   * none), and for a page with sections its parts (sizes, [keyword, mask][]: format.ts IndexDoc)].
   */
  docs: [string, string, [string, number, number][], (DecayStamp | 0)?, [number[], [string, number][]]?][];
  /** Document numbers of the index file that its changes replaced or removed. */
  drop: number[];
  /** Every file changed since the index file was built: [path, stat signature or null when gone, kind, id]. */
  files: [string, string | null, FileKind, string][];
  hot: [string, string][];
  activity: Record<string, ActivityItem[]>;
  sessions?: IndexExtras['sessions'];
}

/** The delta file of a data repo. */
export function deltaFile(dir: string): string {
  return `${promptStateDir(dir)}/delta.v1`;
}

/** What names an index file for its delta. */
export function baseMark(h: IndexHeader): string {
  return `${h.built}|${h.generation}|${h.n}|${h.fileCount}`;
}

/** The largest delta file read (a delta is folded into a rebuild long before); a bigger one is ignored. */
const DELTA_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The delta stored for index file `base`, or undefined when there is none that applies to it (or what is there is
 * not a regular file of at most DELTA_MAX_BYTES: a FIFO is never waited on).
 */
export function readDelta(dir: string, base: IndexReader): DeltaFile | undefined {
  let d: DeltaFile;
  try {
    d = JSON.parse(readSmall(deltaFile(dir), DELTA_MAX_BYTES)?.toString('utf8') ?? '') as DeltaFile;
  } catch {
    return undefined;
  }
  const pairs = (a: unknown): boolean => Array.isArray(a) && a.every((x) => Array.isArray(x) && typeof x[0] === 'string');
  const ok =
    d && d.magic === MAGIC && d.base === baseMark(base.header) && typeof d.key === 'string' && typeof d.generation === 'string' && Array.isArray(d.dirs) && Array.isArray(d.drop) &&
    pairs(d.files) && pairs(d.hot) && pairs(d.docs) && d.docs.every((x) => typeof x[1] === 'string' && Array.isArray(x[2])) && !!d.activity && typeof d.activity === 'object';
  // NOTE: a document's keywords are not walked here (up to DELTA_MAX_TERMS, on every prompt): applyDelta's
  // destructuring throws on a malformed one, and openPromptIndex then serves the index file alone.
  return ok ? d : undefined;
}

/** A delta to store, named for index file `base`. */
export function deltaFor(base: IndexReader, d: Omit<DeltaFile, 'magic' | 'base'>): DeltaFile {
  return { magic: MAGIC, base: baseMark(base.header), ...d };
}

/** Index file `base` with delta `d` applied (see the module contract). */
export function applyDelta(base: IndexReader, d: DeltaFile): IndexReader {
  const own = base.header.n;
  const drops = [...new Set(d.drop.filter((i) => Number.isInteger(i) && i >= 0 && i < own))].sort((a, b) => a - b);
  const docs: OverlayDoc[] = d.docs.map(([id, title, terms, decay, parts]) => ({ id, title, terms: new Map(terms.map(([t, f, w]) => [t, [f, w]])), ...(Array.isArray(decay) ? { decay } : {}), ...(Array.isArray(parts) ? { parts: { sizes: parts[0], masks: new Map(parts[1]) } } : {}) }));
  const header: IndexHeader = {
    ...base.header,
    key: d.key,
    generation: d.generation,
    dirs: d.dirs,
    hot: d.hot,
    activity: d.activity,
    extras: { ...base.header.extras, ...(d.sessions ? { sessions: d.sessions } : {}) },
    n: docs.length + own,
    live: docs.length + own - drops.length,
  };
  return { header, read: (off, len) => base.read(off, len), close: () => base.close(), overlay: { docs, drops, files: new Map(d.files.map(([p, sig]) => [p, sig])) } };
}

/** Opens the prompt index of `dir` with its delta applied, or undefined when there is no index (see format.ts). */
export function openPromptIndex(dir: string, file: string): IndexReader | undefined {
  const base = openIndexFile(file);
  if (!base) return undefined;
  const d = readDelta(dir, base);
  try {
    return d ? applyDelta(base, d) : base;
  } catch {
    return base; // a delta that does not apply (corrupt within its shape): the index file alone, stale, is updated
  }
}
