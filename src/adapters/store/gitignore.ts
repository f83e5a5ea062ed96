/**
 * Contract: the data repo's `.gitignore` as git-kb keeps it (spec/entry-format.md, "Layout"): the folders an
 * Obsidian vault keeps per machine (`.obsidian/` settings and workspace, `.trash/`) ignored, every other line
 * left as the user wrote it. Written when a data repo is created or adopted, and when `import` meets a vault.
 */
import fs from 'node:fs';
import path from 'node:path';

/** The lines git-kb adds when missing. */
export const IGNORED_FOLDERS = ['.obsidian/', '.trash/'] as const;

/** The `.gitignore` to commit so Obsidian's folders are ignored, or undefined when it ignores them already. */
export function gitignoreUpdate(dir: string): { path: '.gitignore'; content: string } | undefined {
  let text = '';
  try {
    text = fs.readFileSync(path.join(dir, '.gitignore'), 'utf8');
  } catch {
    // none yet
  }
  const have = new Set(text.split(/\r?\n/).map((l) => l.trim().replace(/^\//, '')));
  const missing = IGNORED_FOLDERS.filter((l) => !have.has(l) && !have.has(l.slice(0, -1)));
  if (missing.length === 0) return undefined;
  const head = text && !text.endsWith('\n') ? `${text}\n` : text;
  const note = text.includes('# git-kb:') ? '' : '# git-kb: per-machine folders of an Obsidian vault (settings, workspace, trash)\n';
  return { path: '.gitignore', content: `${head}${note}${missing.join('\n')}\n` };
}
