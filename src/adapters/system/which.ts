/**
 * Contract: finding an executable the way a shell does: a name with a slash is a path (relative to `cwd`), any
 * other name is looked up in each folder of `pathVar` in order. Only an executable regular file counts. A few
 * stat calls, no child process.
 */
import fs from 'node:fs';
import path from 'node:path';

function executable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The absolute path of executable `name`, or undefined. */
export function findExecutable(name: string, pathVar: string, cwd = process.cwd()): string | undefined {
  if (name.includes('/') || name.includes(path.sep)) {
    const abs = path.resolve(cwd, name);
    return executable(abs) ? abs : undefined;
  }
  const names = process.platform === 'win32' ? [`${name}.exe`, `${name}.cmd`, name] : [name];
  for (const d of pathVar.split(path.delimiter)) {
    if (!d) continue;
    for (const n of names) {
      const p = path.join(d, n);
      if (executable(p)) return p;
    }
  }
  return undefined;
}
