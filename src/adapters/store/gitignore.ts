/**
 * Contract: the data repo's `.gitignore` keeps Obsidian's own folder (`.obsidian/`: workspace layout, plugins,
 * settings of one machine) out of git. `ensureGitignore` returns the file to commit when it does not ignore it
 * yet (the existing lines kept, one block appended), and undefined when nothing is needed; it never writes:
 * the caller commits it through the write transaction.
 */
import fs from 'node:fs';
import path from 'node:path';

/** What git-kb puts in a data repo's .gitignore. */
export const IGNORED = ['.obsidian/'];

/** The `.gitignore` to commit so `.obsidian/` is ignored, or undefined when it already is. */
export function ensureGitignore(dir: string): { path: '.gitignore'; content: string } | undefined {
  let text = '';
  try {
    text = fs.readFileSync(path.join(dir, '.gitignore'), 'utf8');
  } catch {
    // none yet
  }
  const lines = new Set(text.split(/\r?\n/).map((l) => l.trim().replace(/^\//, '').replace(/\/$/, '')));
  const missing = IGNORED.filter((p) => !lines.has(p.replace(/\/$/, '')));
  if (missing.length === 0) return undefined;
  const head = text && !text.endsWith('\n') ? `${text}\n` : text;
  return { path: '.gitignore', content: `${head}${head ? '\n' : ''}# Obsidian's settings of this machine (written by git-kb)\n${missing.join('\n')}\n` };
}
