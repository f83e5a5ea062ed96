/**
 * Contract: V8's compiled code for the built files, kept between processes (what Node 22's module compile cache
 * does, for Node 20). `useCodeCache(root)` makes every CommonJS file under `root` (dist/) compile from its cache
 * when there is one for it, and leaves the cache of each file compiled without one to be written when the
 * process exits (after the command ran, so the functions it used are in it). A cache file is named by the
 * source file's path, size, mtime and inode, under a folder named by V8's version and the CPU: a rebuilt or
 * reinstalled file, another Node or another machine never finds the old one; V8 checks the data's own checksum
 * and rejects what does not fit (the file is then compiled and its cache written again). Nothing but our own
 * compiled code is kept. The folder is `$XDG_CACHE_HOME/git-kb/code/` (`~/.cache/git-kb/code/`), safe to
 * delete; `GIT_KB_CODE_CACHE=0` turns the cache off. Fail-open: any error compiles the file as Node does.
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

/** The cache folder of this Node (V8 version and CPU), or undefined when there is no home to put it in. */
function cacheDir(): string | undefined {
  const base = process.env.XDG_CACHE_HOME || (os.homedir() ? path.join(os.homedir(), '.cache') : '');
  return base ? path.join(base, 'git-kb', 'code', `${process.versions.v8}-${process.arch}`) : undefined;
}

/** Makes the files under `root` compile from (and leave) V8 code caches. Never throws. */
export function useCodeCache(root: string): void {
  if (process.env.GIT_KB_CODE_CACHE === '0') return;
  const dir = cacheDir();
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
      file = path.join(dir, `${filename.slice(prefix.length).replace(/[\\/]/g, '_')}-${st.size}-${st.mtimeMs}-${st.ino}`);
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
