/**
 * Contract: the data repo's `.gitignore` as git-kb keeps it (spec/entry-format.md, "Layout"): the folders an
 * Obsidian vault keeps per machine (`.obsidian/` settings and workspace, `.trash/`) ignored, every other line
 * left as the user wrote it, and a `.gitignore` that is a link left alone. Written when a data repo is created or adopted, and when `import` meets a vault.
 */
import type { KbError } from '../../core/errors.js';
import { readRootFile } from './layout.js';

/** The lines git-kb adds when missing. */
export const IGNORED_FOLDERS = ['.obsidian/', '.trash/'] as const;

/** The largest `.gitignore` git-kb adds lines to; a bigger one is left as it is. */
const GITIGNORE_MAX = 1024 * 1024;

/**
 * The `.gitignore` to commit so Obsidian's folders are ignored, or undefined when it ignores them already, or when
 * it is anything but a regular file (a symbolic link, a FIFO, over 1 MB): that one is never read nor replaced. git
 * itself does not follow a `.gitignore` link (2.32 and later), and reading through one would commit what it points
 * to (a cloned repo's `.gitignore -> ~/.ssh/config`).
 */
export function gitignoreUpdate(dir: string): { path: '.gitignore'; content: string } | undefined {
  let text = '';
  try {
    text = readRootFile(dir, '.gitignore', GITIGNORE_MAX).toString('utf8');
  } catch (err) {
    if ((err as KbError).code !== 'NOT_FOUND') return undefined;
  }
  const have = new Set(text.split(/\r?\n/).map((l) => l.trim().replace(/^\//, '')));
  const missing = IGNORED_FOLDERS.filter((l) => !have.has(l) && !have.has(l.slice(0, -1)));
  if (missing.length === 0) return undefined;
  const head = text && !text.endsWith('\n') ? `${text}\n` : text;
  const note = text.includes('# git-kb:') ? '' : '# git-kb: per-machine folders of an Obsidian vault (settings, workspace, trash)\n';
  return { path: '.gitignore', content: `${head}${note}${missing.join('\n')}\n` };
}
