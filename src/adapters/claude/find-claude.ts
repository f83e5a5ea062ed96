/**
 * Contract: where the prose gate's model judge lives: KB_PROSE_LINT_CLAUDE (a path, relative to the call's
 * working directory, or a name looked up on PATH), else `claude` on PATH; only an executable regular file
 * counts. A few stat calls, no child process.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Finds the claude executable: KB_PROSE_LINT_CLAUDE (a path, or a name looked up on PATH), else `claude` on PATH. */
export function findClaude(env: NodeJS.ProcessEnv, cwd = process.cwd()): string | undefined {
  const wanted = env.KB_PROSE_LINT_CLAUDE?.trim() || 'claude';
  const executable = (p: string): boolean => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (wanted.includes('/') || wanted.includes(path.sep)) {
    const abs = path.resolve(cwd, wanted);
    return executable(abs) ? abs : undefined;
  }
  for (const d of (env.PATH ?? '').split(path.delimiter)) {
    if (!d) continue;
    const p = path.join(d, wanted);
    if (executable(p)) return p;
  }
  return undefined;
}
