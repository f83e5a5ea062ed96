/**
 * Contract: the data repo on disk (spec/entry-format.md, "Layout"): where entry files live, how they are
 * listed, and where derived state goes (`.git/git-kb/`, never the tracked tree). Paths handed
 * out are relative to the data repo with forward slashes, and no path outside the repo is ever accepted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { initCommand } from '../system/init-hint.js';
import { KB_JSON_MAX, MAX_INPUT_BYTES, readRegularFile, readSmall } from '../system/read-bounded.js';
import { idFromFrontMatter, idFromPath } from '../../core/format/schema.js';
import { nodeBinding } from '../system/node-binding.js';

/** The top-level folders that hold entries. */
export const ENTRY_ROOTS = ['entries', 'hosts', 'sessions'] as const;

/** The stat data derived state records of a file: what tells whether it changed since. */
export interface StatData {
  mtimeMs: number;
  /** Status-change time: moves on every write even when a tool puts the mtime back (cp -p, tar, rsync -t). */
  ctimeMs: number;
  size: number;
  ino: number;
}

/** The stat data alone, of a file's Stats or of any record carrying it (an EntryFile). */
export function statData(st: StatData): StatData {
  return { mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, size: st.size, ino: st.ino };
}

type RawStat = (file: string) => Float64Array | undefined;

/** Node's own stat binding (adapters/system/node-binding.ts) when it answers exactly as `fs.statSync` (probed once), else null. */
let rawStat: RawStat | null | undefined;

// Where Node's stat binding puts each number (lib/internal/fs/utils.js, getStatsFromBinding).
const RAW = { mode: 1, ino: 7, size: 8, mtimeS: 12, mtimeNs: 13, ctimeS: 14, ctimeNs: 15 };
const msOf = (a: Float64Array, s: number): number => a[s]! * 1e3 + a[s + 1]! / 1e6;

function probeRawStat(): RawStat | null {
  try {
    const binding = nodeBinding<{ stat?: (...a: unknown[]) => unknown }>('fs');
    const stat = binding?.stat;
    if (process.platform === 'win32' || typeof stat !== 'function') return null;
    const raw: RawStat = (file) => stat.call(binding, file, false, undefined, false) as Float64Array | undefined;
    const probe = process.execPath;
    const a = raw(probe);
    const st = fs.statSync(probe);
    const same = a instanceof Float64Array && a[RAW.mode] === st.mode && a[RAW.ino] === st.ino && a[RAW.size] === st.size && msOf(a, RAW.mtimeS) === st.mtimeMs && msOf(a, RAW.ctimeS) === st.ctimeMs;
    return same && raw(path.join(path.dirname(probe), `.git-kb-no-such-file-${process.pid}`)) === undefined ? raw : null;
  } catch {
    return null;
  }
}

/**
 * True for the error of a path that cannot be there: a part of it is a file (ENOTDIR). Node 24's `fs.statSync` with
 * `throwIfNoEntry: false` answers undefined for it and Node 20's throws; fileStat answers the same on both.
 */
function notThere(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'ENOTDIR';
}

/**
 * Writes the stat data of `file` (links followed) into `out` (mtimeMs, ctimeMs, size, ino, the order of a stat
 * table's records) and returns true when it is a regular file; false otherwise (a missing path, or one below a
 * file). Throws as `fs.statSync` does on other errors (EACCES, ELOOP, ...).
 * NOTE: every command stats every entry file to prove its caches current, and Node 20's `fs.statSync` builds a
 * Stats object with four Dates for each: at 50,000 files that is a third of the sweep and most of its garbage.
 * Node's own binding gives the same numbers in a shared array; it is used only after a probe shows it agrees with
 * `fs.statSync`, and any error is left to `fs.statSync` to report.
 */
export function fileStatInto(file: string, out: Float64Array): boolean {
  if (rawStat === undefined) rawStat = probeRawStat();
  if (rawStat) {
    let a: Float64Array | undefined | null = null;
    try {
      a = rawStat(file);
    } catch (err) {
      if (notThere(err)) return false;
      // fs.statSync below reports it
    }
    if (a !== null) {
      if (!a || (a[RAW.mode]! & 0o170000) !== 0o100000) return false;
      out[0] = msOf(a, RAW.mtimeS);
      out[1] = msOf(a, RAW.ctimeS);
      out[2] = a[RAW.size]!;
      out[3] = a[RAW.ino]!;
      return true;
    }
  }
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(file, { throwIfNoEntry: false });
  } catch (err) {
    if (notThere(err)) return false;
    throw err;
  }
  if (!st?.isFile()) return false;
  out[0] = st.mtimeMs;
  out[1] = st.ctimeMs;
  out[2] = st.size;
  out[3] = st.ino;
  return true;
}

const scratch = new Float64Array(4);

/**
 * Runs `sweep` with the working directory at the data repo `dir`, giving it '' as the prefix of repo-relative
 * paths, and puts the working directory back after; where that cannot be done (a worker thread, a working
 * directory that is gone) it gives `dir/` instead. For loops that stat every entry file: the kernel walks each
 * component of a path, and `entries/x.md` has two where `/home/u/.local/share/git-kb/entries/x.md` has seven (at
 * 50,000 files, a sixth of the sweep). NOTE: synchronous sweeps only; nothing else may run while it lasts.
 */
export function inRepoDir<T>(dir: string, sweep: (prefix: string) => T): T {
  let back: string | undefined;
  try {
    back = process.cwd();
    process.chdir(dir);
  } catch {
    back = undefined;
  }
  if (back === undefined) return sweep(dir.endsWith('/') ? dir : `${dir}/`);
  try {
    return sweep('');
  } finally {
    process.chdir(back);
  }
}

/** The stat data of entry file `file` (links followed; the name's own for one there but unreadable), else undefined (see entryStatInto). */
export function fileStat(file: string): StatData | undefined {
  return entryStatInto(file, scratch) ? { mtimeMs: scratch[0]!, ctimeMs: scratch[1]!, size: scratch[2]!, ino: scratch[3]! } : undefined;
}

/**
 * fileStatInto for a name listed in an entry folder: a name that is there but no regular file when followed (a
 * link to /dev/zero or to nothing, a link loop, a FIFO) gets the stat data of the name itself (lstat: a link
 * retargeted is a new link, with its own inode and times), so it is listed, read (readEntryText refuses it, naming
 * why) and counted as the problem lint reports by every listing (listEntryFiles, the stat tables), never dropped
 * unseen; a folder, or a link to one, is passed over (as lint's walk does). Only such names cost more calls.
 */
export function entryStatInto(file: string, out: Float64Array): boolean {
  try {
    if (fileStatInto(file, out)) return true;
  } catch {
    // a link loop (ELOOP), no permission on the target (EACCES): there but unreadable, as below
  }
  const own = oddEntryStat(file);
  if (!own) return false;
  out[0] = own.mtimeMs;
  out[1] = own.ctimeMs;
  out[2] = own.size;
  out[3] = own.ino;
  return true;
}

/** fileStatInto that never throws: false for a link loop or a target it may not stat, as for anything not a regular file. */
export function regularStatInto(file: string, out: Float64Array): boolean {
  try {
    return fileStatInto(file, out);
  } catch {
    return false;
  }
}

/**
 * The lstat data of `file` when it is there but no regular file and no folder when followed (see entryStatInto),
 * else undefined. Throws as lstat does on an error other than a missing path (a folder that cannot be searched).
 */
function oddEntryStat(file: string): fs.Stats | undefined {
  let followed: fs.Stats | undefined;
  try {
    followed = fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    followed = undefined; // ELOOP, EACCES on the target
  }
  if (followed?.isDirectory() || followed?.isFile()) return undefined;
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false }); // a dangling link, a loop, a FIFO, a device
  } catch (err) {
    if (notThere(err)) return undefined;
    throw err;
  }
}

/** True when two records of stat data are the same (the file did not change between them). */
export function sameStat(a: StatData, b: StatData): boolean {
  return a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.size === b.size && a.ino === b.ino;
}

/** One entry file as found on disk, with the stat data that tells whether it changed. */
export interface EntryFile extends StatData {
  path: string;
  /** The id the file claims: its name's, else its front matter's (claimedId); '' when none. */
  id: string;
}

/** The directory for derived state (caches, ledgers, the lock) of a data repo. */
export function stateDir(dir: string): string {
  return path.join(dir, '.git', 'git-kb');
}

/** Resolves a repo-relative path, refusing anything that would leave the data repo or enter `.git`. */
export function safeJoin(dir: string, rel: string): string {
  const norm = rel.replace(/\\/g, '/');
  const abs = path.resolve(dir, norm);
  const relBack = path.relative(dir, abs);
  if (!relBack || relBack.startsWith('..') || path.isAbsolute(relBack) || relBack.split(path.sep)[0] === '.git' || norm.includes('\0')) {
    throw new KbError('USAGE', `path "${rel}" is outside the data repo ${dir}`, { unwritable: rel });
  }
  return abs;
}

/**
 * Resolves a repo-relative path to write, refusing one that a symbolic link on the way (entries/, hosts/<key>, any
 * folder between the repo and the file) would lead elsewhere: a write lands inside the data repo or nowhere.
 */
export function writablePath(dir: string, rel: string): string {
  const abs = safeJoin(dir, rel);
  const parts = path.relative(dir, abs).split(path.sep).slice(0, -1);
  let at = path.resolve(dir);
  for (const part of parts) {
    at = path.join(at, part);
    const st = fs.lstatSync(at, { throwIfNoEntry: false });
    if (!st) break;
    if (st.isSymbolicLink()) {
      throw new KbError('USAGE', `refusing to write ${rel}: ${path.relative(dir, at)} is a symbolic link (to ${fs.readlinkSync(at)}); a data repo's folders must be real folders inside it`, { file: rel, unwritable: rel });
    }
  }
  return abs;
}

/** What `read` lists of a folder, or nothing when the folder is missing or not a folder. */
function listedOrNone<T>(read: () => T[]): T[] {
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw err;
  }
}

const readDirents = (abs: string): fs.Dirent[] => listedOrNone(() => fs.readdirSync(abs, { withFileTypes: true }));
/** The names in folder `abs` (none when it is missing or not a folder). */
const readNames = (abs: string): string[] => listedOrNone(() => fs.readdirSync(abs));

/** True when `abs` is a symbolic link (false when it is anything else or missing). */
export const isLink = (abs: string): boolean => fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink() === true;

/**
 * The directories that hold entry files: entries/, hosts/<key>/, sessions/<yyyy>/<mm>/. Only real folders: one
 * that is a symbolic link (a synced `entries -> ~/.ssh`) is never walked, so no name of what it points to is
 * listed or printed; linkedEntryFolders names it for lint.
 */
export function entryDirs(dir: string): string[] {
  const out = isLink(path.join(dir, 'entries')) ? [] : ['entries'];
  if (!isLink(path.join(dir, 'hosts'))) for (const h of readDirents(path.join(dir, 'hosts'))) if (h.isDirectory()) out.push(`hosts/${h.name}`);
  if (isLink(path.join(dir, 'sessions'))) return out;
  for (const y of readDirents(path.join(dir, 'sessions'))) {
    if (!y.isDirectory()) continue;
    for (const m of readDirents(path.join(dir, 'sessions', y.name))) if (m.isDirectory()) out.push(`sessions/${y.name}/${m.name}`);
  }
  return out;
}

/** The entry folders that are symbolic links (entryDirs passes them over): `entries`, `hosts`, `sessions`, or one inside them. */
export function linkedEntryFolders(dir: string): string[] {
  const out: string[] = [];
  for (const top of ['entries', 'hosts', 'sessions']) {
    if (isLink(path.join(dir, top))) out.push(top);
    else if (top !== 'entries') {
      for (const d of readDirents(path.join(dir, top))) {
        if (d.isSymbolicLink()) out.push(`${top}/${d.name}`);
        else if (top === 'sessions' && d.isDirectory()) for (const m of readDirents(path.join(dir, top, d.name))) if (m.isSymbolicLink()) out.push(`${top}/${d.name}/${m.name}`);
      }
    }
  }
  return out;
}

/** True when `rel` is where listEntryFiles would list an entry file (an entry folder, a `.md` name, not hidden). */
export function isEntryFilePath(rel: string): boolean {
  return /^(entries\/[^/]+|hosts\/[^/]+\/[^/]+|sessions\/[^/]+\/[^/]+\/[^/]+)$/.test(rel) && rel.endsWith('.md') && !rel.slice(rel.lastIndexOf('/') + 1).startsWith('.');
}

/** The names in each entry folder, sorted, without stat calls (a missing folder has none). */
export function entryFolderNames(dir: string): { folder: string; names: string[] }[] {
  const out: { folder: string; names: string[] }[] = [];
  for (const folder of entryDirs(dir)) {
    try {
      out.push({ folder, names: fs.readdirSync(path.join(dir, folder)).sort() });
    } catch {
      // vanished between the listing and now
    }
  }
  return out;
}

/** The path of every `.md` file in the entry folders (not hidden), with no stat call and no id: what a listing by name needs. */
export function listEntryPaths(dir: string): string[] {
  const out: string[] = [];
  // NOTE: plain concatenation, not path.join, in this loop: it runs once per entry on every listing.
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  for (const d of entryDirs(dir)) for (const name of readNames(base + d)) if (name.endsWith('.md') && !name.startsWith('.')) out.push(`${d}/${name}`);
  return out;
}

/** True when each string of `a` sorts strictly after the one before it (JavaScript's order: UTF-16 code units). */
function ascending(a: readonly string[]): boolean {
  for (let i = 1; i < a.length; i++) if (!(a[i - 1]! < a[i]!)) return false;
  return true;
}

/** The entry files listed now against recorded paths (see compareListing). */
export interface Relisting {
  /** Every entry file's path, in path order (a recorded path's own string where it is one). */
  listed: string[];
  /** For each listed path, its index among the recorded paths, or -1 for a path not recorded. */
  was: Int32Array;
  /** 1 for each recorded path that is not listed now. */
  gone: Uint8Array;
}

/**
 * The entry files listed now against `recorded` (paths as listEntryPaths gives them).
 * NOTE: libuv lists a folder's names in byte order and recorded paths are usually an earlier listing's, so the
 * two are walked side by side: no set of 50,000 paths is built and probed. When either is out of JavaScript's
 * order (a name outside the BMP sorts otherwise in UTF-16; a host key that sorts otherwise with its slash), they
 * are compared through a Map instead.
 */
export function compareListing(dir: string, recorded: readonly string[]): Relisting {
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  const folders = entryDirs(dir).map((d) => ({ prefix: `${d}/`, names: readNames(base + d).filter((n) => n.endsWith('.md') && !n.startsWith('.')), was: [] as number[] }));
  const gone = new Uint8Array(recorded.length).fill(1);
  const listed: string[] = [];
  const was: number[] = [];
  if (!ascending(recorded) || !folders.every((f) => ascending(f.names))) {
    const at = new Map(recorded.map((p, i) => [p, i]));
    for (const { prefix, names } of folders) {
      for (const name of names) {
        const p = prefix + name;
        const i = at.get(p) ?? -1;
        listed.push(i < 0 ? p : recorded[i]!);
        was.push(i);
        if (i >= 0) gone[i] = 0;
      }
    }
    return inPathOrder(listed, was, gone);
  }
  // The folders in the order of their paths, each with the run of recorded paths that start with its prefix.
  let r = 0;
  for (const f of [...folders].sort((x, y) => (x.prefix < y.prefix ? -1 : 1))) {
    const { prefix, names } = f;
    while (r < recorded.length && recorded[r]! < prefix) r++;
    for (const name of names) {
      let i = -1;
      for (; r < recorded.length && recorded[r]!.startsWith(prefix); r++) {
        const p = recorded[r]!;
        if (p.length === prefix.length + name.length && p.endsWith(name)) {
          i = r++;
          break;
        }
        if (!(p.slice(prefix.length) < name)) break; // a name not recorded
      }
      f.was.push(i);
      if (i >= 0) gone[i] = 0;
    }
  }
  for (const { prefix, names, was: w } of folders) {
    names.forEach((name, j) => {
      listed.push(w[j]! < 0 ? prefix + name : recorded[w[j]!]!);
      was.push(w[j]!);
    });
  }
  return inPathOrder(listed, was, gone);
}

/** A relisting with its paths in path order (as the catalog orders its items): folders list otherwise (`hosts/db/` before `hosts/db-replica/`). */
function inPathOrder(listed: string[], was: number[], gone: Uint8Array): Relisting {
  if (ascending(listed)) return { listed, was: Int32Array.from(was), gone };
  const order = listed.map((_, k) => k).sort((a, b) => (listed[a]! < listed[b]! ? -1 : 1));
  return { listed: order.map((k) => listed[k]!), was: Int32Array.from(order, (k) => was[k]!), gone };
}

/**
 * The id an entry file claims: the one its name carries, else the `id` of its front matter (a copy named
 * otherwise, `entries/copy.md`, claims the id it holds, so two files with one id are found whatever their names;
 * spec/entry-format.md, "Ids"). Only files whose name carries no id are read (normally none); undefined when
 * neither gives one.
 */
export function claimedId(dir: string, rel: string): string | undefined {
  const named = idFromPath(rel);
  if (named) return named;
  try {
    return idFromFrontMatter(readRegularFile(path.join(dir, rel), rel, MAX_INPUT_BYTES).toString('utf8'));
  } catch {
    return undefined; // gone, not a regular file, too big: lint says so
  }
}

/** Lists every `.md` file in the entry folders with its stat data. `withStat: false` skips the stat calls. */
export function listEntryFiles(dir: string, options: { withStat?: boolean } = {}): EntryFile[] {
  const files: EntryFile[] = [];
  const base = dir.endsWith('/') ? dir : `${dir}/`;
  for (const rel of listEntryPaths(dir)) {
    const id = claimedId(dir, rel) ?? '';
    if (options.withStat === false) {
      files.push({ path: rel, id, mtimeMs: 0, ctimeMs: 0, size: 0, ino: 0 });
      continue;
    }
    if (entryStatInto(base + rel, scratch)) files.push({ path: rel, id, mtimeMs: scratch[0]!, ctimeMs: scratch[1]!, size: scratch[2]!, ino: scratch[3]! });
  }
  return files;
}

/** True when `dir` is the top of a git work tree (it has a `.git` directory): the data repo exists. */
export function dataRepoExists(dir: string): boolean {
  try {
    return fs.statSync(path.join(dir, '.git')).isDirectory();
  } catch {
    return false;
  }
}

/**
 * True when a git repo is a data repo: it has kb.json (every repo git-kb creates or adopts, and every v1 repo,
 * whose kb.json holds next_id). Entry-like folders alone prove nothing: a code repo may have a sessions/ module.
 */
export function looksLikeDataRepo(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'kb.json'));
}

/** Files at the top of a repo that make it a code project (a build or package manifest). */
const PROJECT_FILES = ['package.json', 'Cargo.toml', 'go.mod', 'pyproject.toml', 'setup.py', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'Gemfile', 'composer.json', 'mix.exs', 'CMakeLists.txt', 'Makefile', 'deno.json'];

/**
 * The build or package manifests at the top of `dir` (`package.json`, `Cargo.toml`, ...): a git repo that has one
 * is a code project, not a notes repo, and `init` does not adopt it unasked (spec/cli.md, `init`).
 */
export function projectFiles(dir: string): string[] {
  return PROJECT_FILES.filter((f) => fs.existsSync(path.join(dir, f)));
}

/**
 * True when the data repo is a v1 repo (kb.json holds v1's `next_id` counter): new entry ids there are decimal
 * (core/format/schema.ts newId), the only ids v1's scripts read whole.
 */
export function isV1Repo(dir: string): boolean {
  try {
    return typeof (JSON.parse(readRootFile(dir, 'kb.json', KB_JSON_MAX).toString('utf8')) as { next_id?: unknown }).next_id === 'number';
  } catch {
    return false;
  }
}

/**
 * The bytes of one of the data repo's own files at its top (kb.json, hosts.yaml, .gitignore): a regular file,
 * never read through a symbolic link (a cloned repo's `hosts.yaml -> ~/.ssh/config` must not be printed, merged
 * or committed), nor a FIFO or device, at most `maxBytes`. NOT_FOUND when missing, USAGE otherwise (read-bounded.ts).
 */
export function readRootFile(dir: string, name: string, maxBytes: number): Buffer {
  return readRegularFile(path.join(dir, name), name, maxBytes, true);
}

/**
 * The ref HEAD names (`refs/heads/main`), or undefined for a detached, missing or unreadable HEAD: the one reader
 * of `.git/HEAD`'s symbolic ref (adapters/git's headRef, the budget signature and sync status all ask here).
 */
export function headSymbolicRef(dir: string): string | undefined {
  const text = readSmall(path.join(dir, '.git', 'HEAD'), 4096)?.toString('utf8').trim();
  return text?.startsWith('ref: ') ? text.slice(5).trim() : undefined;
}

/** True when `dir` is a git repo that is a data repo (the rule of requireDataRepo, as a test). */
export function isDataRepo(dir: string): boolean {
  return dataRepoExists(dir) && looksLikeDataRepo(dir);
}

/**
 * Fails with NO_DATA_REPO when `dir` exists and is not a folder (a --data that names a file): no data repo can be
 * there, and init or a first write there must not be suggested or tried.
 */
export function refuseNonFolder(dir: string): void {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  if (st && !st.isDirectory()) throw new KbError('NO_DATA_REPO', `${dir} is not a folder: a data repo is a folder; pass --data DIR with a folder (a new or empty one makes a new data repo)`, { dir });
}

/**
 * Fails with NO_DATA_REPO when the data repo is missing, saying how to create one, and when the directory is a
 * git repository that is not a data repo (a code checkout, say), so git-kb never commits entries into it.
 */
export function requireDataRepo(dir: string): void {
  if (!dataRepoExists(dir)) {
    refuseNonFolder(dir);
    refuseInsideDataRepo(dir);
    throw new KbError('NO_DATA_REPO', `no knowledge base yet (no data repo at ${dir}); "${initCommand(dir)}" starts one (the first "git-kb add" creates it too), or pass --data DIR for another`, { dir });
  }
  if (!looksLikeDataRepo(dir)) {
    const project = projectFiles(dir);
    const fix = project.length
      ? `it is a code project (it has ${project.join(', ')}): pass --data with a folder of its own for your notes, or run "${initCommand(dir)} --force" to commit notes into this project's history`
      : `run "${initCommand(dir)}" to make it one, or pass another --data`;
    throw new KbError('NO_DATA_REPO', `${dir} is a git repository but not a git-kb data repo (it has no kb.json); ${fix}`, { dir });
  }
}

/** The data repo (a git repo with kb.json) that `dir` lies inside, below its top; undefined when none does. */
export function enclosingDataRepo(dir: string): string | undefined {
  let at = path.resolve(dir);
  for (let up = path.dirname(at); up !== at; at = up, up = path.dirname(up)) {
    if (dataRepoExists(up) && looksLikeDataRepo(up)) return up;
  }
  return undefined;
}

/**
 * Refuses a data repo folder inside another data repo (`--data .` from its `entries/`): it would be made a repo of
 * its own there, whose files the outer repo then shows as untracked. The message names the outer one.
 */
export function refuseInsideDataRepo(dir: string): void {
  const outer = enclosingDataRepo(dir);
  if (outer) throw new KbError('NO_DATA_REPO', `${dir} is inside the data repo ${outer}, not a data repo of its own; pass --data ${outer} (or nothing, if it is the default)`, { dir, outer });
}

/**
 * Refuses an entry path that a symbolic link (the file or a folder on the way) leads out of the data repo or into
 * its `.git`: a cloned repo must never make `get`, search or the hooks read ~/.ssh or anything else outside it.
 */
function refuseEscapingLink(dir: string, rel: string, abs: string): void {
  let real: string;
  try {
    // NOTE: the native realpath (one call) rather than Node's own (an lstat per path component, in JS): every
    // entry read pays for it, 10,000 of them in a rebuild.
    real = fs.realpathSync.native(abs);
  } catch (err) {
    const link = (err as NodeJS.ErrnoException).code === 'ENOENT' && fs.lstatSync(abs, { throwIfNoEntry: false })?.isSymbolicLink();
    if (link) throw new KbError('INVALID_ENTRY', `${rel}:1: a symbolic link to ${fs.readlinkSync(abs)}, which does not exist; an entry must be a file inside the data repo`, { file: rel, line: 1 });
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new KbError('INVALID_ENTRY', `${rel}:1: a symbolic link that leads back to itself (to ${fs.readlinkSync(abs)}); an entry must be a file inside the data repo`, { file: rel, line: 1 });
    return; // missing or unreadable: the read itself reports it
  }
  if (real === abs) return;
  const back = path.relative(fs.realpathSync.native(dir), real);
  if (!back || back.startsWith('..') || path.isAbsolute(back) || back.split(path.sep)[0] === '.git') {
    throw new KbError('INVALID_ENTRY', `${rel}:1: a symbolic link to ${real}, outside the data repo; an entry must be a file inside it`, { file: rel, line: 1 });
  }
}

/** Folders of a data repo with no symbolic link between the repo and them, as found once per process. */
const plainFolders = new Map<string, boolean>();

function plainFolder(dir: string, folder: string): boolean {
  let plain = plainFolders.get(folder);
  if (plain === undefined) {
    try {
      plain = fs.realpathSync.native(folder) === path.join(fs.realpathSync.native(dir), path.relative(dir, folder));
    } catch {
      plain = false;
    }
    plainFolders.set(folder, plain);
  }
  return plain;
}

/**
 * The bytes of an entry file that is no symbolic link, in a folder with none between it and the repo, or undefined
 * when that is not so (the caller then resolves the links). NOTE: one open refusing a link (O_NOFOLLOW) and the folder's
 * real path once, instead of a real path per file: a rebuild reads every entry.
 */
function readPlainFile(dir: string, abs: string): Buffer | undefined {
  const noFollow = fs.constants.O_NOFOLLOW;
  if (noFollow === undefined || !plainFolder(dir, path.dirname(abs))) return undefined;
  let fd: number;
  try {
    // NOTE: non-blocking, so that a FIFO named like an entry cannot hang the open (no writer would ever come).
    fd = fs.openSync(abs, fs.constants.O_RDONLY | noFollow | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return undefined; // a link: resolved and judged by the caller
    throw err;
  }
  try {
    // NOTE: into one reused buffer, read whole in one call when the file fits (almost every entry): no fstat
    // and no buffer of its own a file, 50,000 of each on a cold build. The caller decodes it at once. An empty
    // read or a full buffer is looked at (a FIFO or a device reads as nothing or as no end).
    let n: number;
    try {
      n = fs.readSync(fd, readBuffer, 0, readBuffer.length, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESPIPE') throw err;
      n = 0; // a FIFO or socket cannot be read at an offset: refused below
    }
    if (n > 0 && n < readBuffer.length) return readBuffer.subarray(0, n);
    refuseIrregular(path.relative(dir, abs), fs.fstatSync(fd));
    return n === 0 ? readBuffer.subarray(0, 0) : fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** INVALID_ENTRY for an entry path that is not a regular file (a FIFO would hang a read) or is over the input limit. */
function refuseIrregular(rel: string, st: fs.Stats): void {
  if (!st.isFile()) throw new KbError('INVALID_ENTRY', `${rel}:1: not a regular file (a FIFO, device or socket named like an entry)`, { file: rel, line: 1 });
  if (st.size > MAX_INPUT_BYTES) throw new KbError('INVALID_ENTRY', `${rel}:1: ${(st.size / 2 ** 20).toFixed(1)} MB is over the ${MAX_INPUT_BYTES / 2 ** 20} MB an entry may hold`, { file: rel, line: 1 });
}

/** The buffer readPlainFile reads into (its content is only valid until the next read). */
const readBuffer = Buffer.allocUnsafe(256 * 1024);

/**
 * Where a reader ahead (read-ahead.ts) may open an entry file: its path as readEntryText joins it, when its folder
 * has no link between it and the repo (the case readEntryText would open refusing a link); else undefined.
 */
export function readAheadPath(dir: string, rel: string): string | undefined {
  const abs = safeJoin(dir, rel);
  return plainFolder(dir, path.dirname(abs)) ? abs : undefined;
}

/**
 * Reads an entry file as text, failing clearly on binary or non-UTF-8 content. `readAhead`: its bytes as read
 * already, opened refusing a link (read-ahead.ts); taken only in a folder readPlainFile would open that way.
 */
export function readEntryText(dir: string, rel: string, readAhead?: Buffer): string {
  const abs = safeJoin(dir, rel);
  let buf = readAhead !== undefined && plainFolder(dir, path.dirname(abs)) ? readAhead : readPlainFile(dir, abs);
  if (!buf) {
    refuseEscapingLink(dir, rel, abs);
    refuseIrregular(rel, fs.statSync(abs));
    buf = fs.readFileSync(abs);
  }
  if (buf.includes(0)) throw new KbError('INVALID_ENTRY', `${rel}:1: binary content (NUL byte) is not an entry`, { file: rel, line: 1 });
  const text = buf.toString('utf8');
  if (text.includes('\uFFFD') && !Buffer.from(text, 'utf8').equals(buf)) {
    // The text before the first replacement character is valid UTF-8, so its byte length is the bad byte's offset.
    const bad = Buffer.byteLength(text.slice(0, text.indexOf('\uFFFD')), 'utf8');
    const line = buf.subarray(0, bad).toString('utf8').split('\n').length;
    throw new KbError('INVALID_ENTRY', `${rel}:${line}: not valid UTF-8 text`, { file: rel, line });
  }
  return text;
}
