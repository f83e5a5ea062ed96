/**
 * The real notes of ../shared/corpus (jbranchaud-til, tldr-pages) for tests that hold a fast path to the
 * library or regex it stands in for: every `every`-th markdown file of a folder, with its folder's name. A
 * missing corpus gives no notes (the tests then assert they saw enough and fail loudly).
 */
import fs from 'node:fs';
import path from 'node:path';

export interface CorpusNote {
  /** The file name, `.md` included. */
  name: string;
  /** The name of the folder it sits in (a topic in til, a platform in tldr). */
  folder: string;
  text: string;
}

export const CORPUS_ROOT = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus');

export function corpusNotes(corpus: 'jbranchaud-til' | 'tldr-pages', every = 1): CorpusNote[] {
  const out: CorpusNote[] = [];
  let i = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.md') && i++ % every === 0) out.push({ name: e.name, folder: path.basename(d), text: fs.readFileSync(p, 'utf8') });
    }
  };
  const root = path.join(CORPUS_ROOT, corpus);
  if (fs.existsSync(root)) walk(root);
  return out;
}
