/**
 * Contract: when the prompt index may be served (spec/hooks.md, "Freshness"). The index records a key made of
 * the git state (HEAD, the branch ref, packed-refs, the index file), the stat data of the entry directories
 * and their parents, hosts.yaml and the catalog cache that every catalog-reading git-kb command refreshes. A
 * prompt recomputes the key with about twenty stat calls, then checks the kernel files, the most recently
 * modified files and one rotating window of WINDOW_SIZE files; any difference means "rebuild". Nothing here
 * parses YAML or walks the entry folders.
 */
import fs from 'node:fs';
import { readSmall } from '../system/read-bounded.js';
import { readWindow, type IndexReader } from './prompt/format.js';

/** The directory of the prompt hook's derived state inside a data repo. */
export function promptStateDir(dir: string): string {
  return `${dir}/.git/git-kb/prompt`;
}

/** The index file of a data repo. */
export function indexFile(dir: string): string {
  return `${promptStateDir(dir)}/index.v1`;
}

/** The lock a background builder of the index holds while it runs (load.ts takes it, build.ts releases it). */
export function buildLockFile(dir: string): string {
  return `${promptStateDir(dir)}/build.lock`;
}

/**
 * The catalog cache of catalog.ts. NOTE: it is rewritten by any git-kb command that loads the catalog and
 * finds a changed file, so its stat data carries "a full check saw a change" into the key.
 */
export function catalogCacheFile(dir: string): string {
  return `${dir}/.git/git-kb/catalog.v8`;
}

/**
 * A file's stat signature `mtimeMs:ctimeMs:size:ino` (the stat data the catalog compares: an edit of the same size
 * with its mtime put back still moves the ctime), or `-` when it is missing or not a regular file (as the
 * catalog, which lists regular files only).
 */
export function statSig(abs: string): string {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    return '!'; // ENOTDIR, EACCES...: not a readable file
  }
  return st?.isFile() ? sigOf(st) : '-';
}

/** The stat signature of file data already at hand (as listed by the catalog). */
export function sigOf(f: { mtimeMs: number; ctimeMs: number; size: number; ino: number }): string {
  return `${f.mtimeMs}:${f.ctimeMs}:${f.size}:${f.ino}`;
}

/** hosts.yaml's part of the key, labelled (a bare `-` would match any missing file's part; `hosts=` is the folder's). */
export function hostsSig(dir: string): string {
  return `hosts.yaml=${statSig(`${dir}/hosts.yaml`)}`;
}

function dirSig(abs: string): string {
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs, { throwIfNoEntry: false });
  } catch {
    return '!';
  }
  return st ? `${st.mtimeMs}:${st.ino}` : '-';
}

/** A small state file's text trimmed (HEAD, the window cursor), or '-' when it is missing or not a small regular file. */
function readState(abs: string): string {
  return readSmall(abs, 4096)?.toString('utf8').trim() ?? '-';
}

/**
 * The part of the key that a rebuild reads before it lists the files: git state, hosts.yaml and every
 * directory in `dirs` (relative to the data repo; "." is the repo itself).
 */
export function repoKey(dir: string, dirs: string[]): string {
  // NOTE: plain concatenation, not path.join: it runs for every path of every prompt, and path.join's
  // normalisation cost more than the stat calls themselves. `dir` is absolute and the parts are our own.
  const git = `${dir}/.git/`;
  const head = readState(`${git}HEAD`);
  const parts = [head];
  const ref = /^ref:\s*(refs\/\S+)$/.exec(head)?.[1];
  if (ref && !ref.includes('..')) parts.push(statSig(git + ref));
  parts.push(statSig(`${git}packed-refs`), statSig(`${git}index`), hostsSig(dir), namesKey(dir, dirs));
  return parts.join('|');
}

/**
 * The part of the key that says which names the entry folders hold: the stat data of every directory in `dirs`.
 * A file created, deleted or renamed in a folder moves that folder's mtime; an edit in place does not (so this
 * part alone proves the set of entry files, never their contents). The id map (ids.ts) is keyed by it.
 */
export function namesKey(dir: string, dirs: string[]): string {
  const parts: string[] = [];
  for (const d of dirs) parts.push(`${d}=${dirSig(`${dir}/${d}`)}`);
  return parts.join('|');
}

/** How long a folder's mtime must lie in the past before a names key taken now may be recorded (ms). */
export const SETTLED_MS = 100;

/**
 * The names key to record with derived state listed from the folders now, or undefined while it is not safe to:
 * a folder changed less than SETTLED_MS ago could change again within the same timestamp tick without its mtime
 * moving (git's "racy" case), so a key recorded now might match a later, different set of names.
 */
export function settledNamesKey(dir: string, dirs: string[], now = Date.now()): string | undefined {
  for (const d of dirs) {
    const st = fs.statSync(`${dir}/${d}`, { throwIfNoEntry: false });
    if (st && now - st.mtimeMs < SETTLED_MS) return undefined;
  }
  return namesKey(dir, dirs);
}

/** The whole freshness key: repoKey plus the catalog cache's stat data. */
export function freshnessKey(dir: string, dirs: string[]): string {
  return `${repoKey(dir, dirs)}|catalog=${statSig(catalogCacheFile(dir))}`;
}

/** The directories whose stat data goes in the key, given the entry directories of the repo. */
export function keyDirs(entryDirs: string[]): string[] {
  const out = new Set<string>(['.', 'entries', 'hosts', 'sessions']);
  for (const d of entryDirs) {
    const parts = d.split('/');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('/'));
  }
  return [...out].sort();
}

/** The outcome of a freshness check. */
export interface Freshness {
  fresh: boolean;
  /** What differed, for the debug log. */
  reason?: string;
  /** The rotating window checked (its number), when the check got that far. */
  window?: number;
}

/**
 * Writes small state in place (no truncate to zero, no rename): on ext4 both of those force a flush that
 * costs milliseconds, which the prompt path cannot afford. A torn write reads as garbage and is ignored.
 */
export function writeInPlace(file: string, text: string): void {
  const fd = fs.openSync(file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644);
  try {
    const n = fs.writeSync(fd, text, 0);
    fs.ftruncateSync(fd, n);
  } finally {
    fs.closeSync(fd);
  }
}

function nextWindow(dir: string, count: number): number {
  const file = `${promptStateDir(dir)}/cursor`;
  let n = Number.parseInt(readState(file), 10);
  if (!Number.isFinite(n) || n < 0) n = 0;
  try {
    writeInPlace(file, String((n + 1) % 1_000_000_000).padStart(10, '0'));
  } catch {
    /* a read-only repo still works: the window just does not move */
  }
  return n % count;
}

/**
 * True when an index that is no longer fresh may still answer a prompt while its rebuild runs in the background:
 * hosts.yaml is the one it was built under (so no host forbidden since is pointed to) and every kernel file is the
 * one it holds (so no old kernel body or rule is injected). Its pointers may then miss an entry added since, or
 * name one deleted since, until the rebuild lands (spec/hooks.md, "Rebuilds").
 */
export function servableWhileStale(dir: string, reader: IndexReader): boolean {
  const h = reader.header;
  // NOTE: the key holds hosts.yaml's stat signature as one of its '|'-separated parts (repoKey).
  if (!h.key.split('|').includes(hostsSig(dir))) return false;
  const base = `${dir}/`;
  return h.kernel.every((k) => statSig(base + k.path) === k.sig);
}

/** Checks an opened index against the data repo (see the module contract). */
export function checkFreshness(dir: string, reader: IndexReader): Freshness {
  const h = reader.header;
  if (freshnessKey(dir, h.dirs) !== h.key) return { fresh: false, reason: 'key' };
  const base = `${dir}/`;
  for (const k of h.kernel) if (statSig(base + k.path) !== k.sig) return { fresh: false, reason: `kernel ${k.path}` };
  for (const [p, sig] of h.hot) if (statSig(base + p) !== sig) return { fresh: false, reason: `hot ${p}` };
  // A delta's files, every one of them on every prompt (delta.ts keeps them few); the windows then skip them.
  const changed = reader.overlay?.files;
  for (const [p, sig] of changed ?? []) if (statSig(base + p) !== (sig ?? '-')) return { fresh: false, reason: `changed ${p}` };
  if (h.windows.length === 0) return { fresh: true };
  const w = nextWindow(dir, h.windows.length);
  for (const [p, sig] of readWindow(reader, w)) if (!changed?.has(p) && statSig(base + p) !== sig) return { fresh: false, reason: `window ${w}: ${p}`, window: w };
  return { fresh: true, window: w };
}
