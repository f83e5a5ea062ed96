/**
 * Contract: V8's compiled code for the built files, kept between processes (what Node 22's module compile cache
 * does, for Node 20). `useCodeCache(root)` makes every CommonJS file under `root` (dist/) compile from its cache
 * when there is one for it, and leaves the cache of each file compiled without one to be written when the
 * process exits (after the command ran, so the functions it used are in it). A cache file is named by the
 * source file's path (from `root`), size, mtime and inode, in a folder named by V8's version, the CPU and
 * `root`: a rebuilt or reinstalled file, another Node or another machine never finds the old one; V8 checks the
 * data's own checksum and rejects what does not fit (the file is then compiled and its cache written again).
 * A process that writes caches also removes those of files that changed or went since (an upgrade's old build).
 * Nothing but our own compiled code is kept. The folder is under `$XDG_CACHE_HOME/git-kb/code/`
 * (`~/.cache/git-kb/code/`), safe to delete; `GIT_KB_CODE_CACHE=0` turns the cache off. Fail-open: any error
 * compiles the file as Node does.
 * NOTE: Node's loader compiles a module with `vm.compileFunction`; here the source is wrapped as Node's own
 * `Module.wrap` does and compiled as a `vm.Script`, whose cache can be made after it ran.
 */
import fs from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

interface Internals {
  prototype: { _compile(this: NodeModule, content: string, filename: string): unknown; require(id: string): unknown };
  wrap(content: string): string;
  _resolveFilename(request: string, parent: NodeModule, isMain: boolean, options?: { paths?: string[] }): string;
  _cache: Record<string, NodeModule>;
}

/** FNV-1a of a string, as 8 hex digits (a short stable name for a folder path). */
function fnv(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/** The cache folder of this Node (V8 version, CPU) for the files under `root`, or undefined without a home. */
function cacheDir(root: string): string | undefined {
  const base = process.env.XDG_CACHE_HOME || (os.homedir() ? path.join(os.homedir(), '.cache') : '');
  return base ? path.join(base, 'git-kb', 'code', `${process.versions.v8}-${process.arch}-${fnv(root)}`) : undefined;
}

/** The cache file's name of source file `rel` (its path from the root) with stat data `st`. */
function cacheName(rel: string, st: fs.Stats): string {
  return `${encodeURIComponent(rel)}@${st.size}-${st.mtimeMs}-${st.ino}`;
}

/** Removes the caches in `dir` of files under `root` that changed or went (their name no longer fits them). */
function prune(dir: string, root: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (name.endsWith('.tmp') && Date.now() - (fs.statSync(path.join(dir, name), { throwIfNoEntry: false })?.mtimeMs ?? 0) < 60_000) continue; // another process's, being written
    const at = name.lastIndexOf('@');
    let fits = false;
    try {
      fits = at > 0 && cacheName(decodeURIComponent(name.slice(0, at)), fs.statSync(path.join(root, decodeURIComponent(name.slice(0, at))))) === name;
    } catch {
      // gone, or a name not ours
    }
    if (!fits) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** Makes the files under `root` compile from (and leave) V8 code caches. Never throws. */
export function useCodeCache(root: string): void {
  if (process.env.GIT_KB_CODE_CACHE === '0') return;
  const dir = cacheDir(root);
  if (!dir) return;
  const M = Module as unknown as Internals;
  const original = M.prototype._compile;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  const pending: { script: vm.Script; file: string }[] = [];
  M.prototype._compile = function compile(this: NodeModule, content: string, filename: string): unknown {
    if (!filename.startsWith(prefix)) return original.call(this, content, filename);
    let script: vm.Script;
    let file: string;
    try {
      const st = fs.statSync(filename);
      file = path.join(dir, cacheName(filename.slice(prefix.length), st));
      let cachedData: Buffer | undefined;
      try {
        cachedData = fs.readFileSync(file);
      } catch {
        // none yet
      }
      script = new vm.Script(M.wrap(content), { filename, cachedData });
      if (!cachedData || script.cachedDataRejected) pending.push({ script, file });
    } catch {
      return original.call(this, content, filename);
    }
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    const require = Object.assign((id: string) => M.prototype.require.call(this, id), {
      resolve: (request: string, options?: { paths?: string[] }) => M._resolveFilename(request, this, false, options),
      main: process.mainModule,
      cache: M._cache,
    });
    return fn.call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  process.once('exit', () => {
    if (pending.length === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true });
      prune(dir, root);
      for (const { script, file } of pending) {
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, file);
      }
    } catch {
      // a cache not written is compiled again next time
    }
  });
}
