/**
 * Contract: the `git-kb init` a hint names for a data repo (spec/cli.md, "Data repo"): with `--data DIR` unless
 * DIR is where a plain `git-kb init` goes, so a hint given for a repo named with --data never points at another.
 */
import os from 'node:os';
import path from 'node:path';
import { shellQuote } from '../../core/text/shell-quote.js';

/**
 * `git-kb init`, with `--data DIR` unless `dir` is GIT_KB_DATA, else ~/.git-kb/data (a config file's data_dir is
 * not read here: for such a repo the hint names it with --data, which is right too).
 */
export function initCommand(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  const plain = env.GIT_KB_DATA || path.join(env.HOME || os.homedir(), '.git-kb', 'data');
  if (path.resolve(dir) === path.resolve(plain)) return 'git-kb init';
  return `git-kb init --data ${/^[\w@%+=:,./~-]+$/.test(dir) ? dir : shellQuote(dir)}`;
}
