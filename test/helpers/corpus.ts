/**
 * The real notes of the shared corpus (jbranchaud-til, tldr-pages) for tests that hold a fast path to the
 * library or regex it stands in for: every `every`-th markdown file of a folder, with its folder's name. The
 * corpus is the workplace's, next to the repo (../shared/corpus) or at /work/shared/corpus, or where
 * GIT_KB_CORPUS says; a clone elsewhere without it gives no notes, and the tests that need them say so and skip.
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

export const CORPUS_ROOT = [process.env.GIT_KB_CORPUS, path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus'), '/work/shared/corpus'].find(
  (d): d is string => !!d && fs.existsSync(path.join(d, 'jbranchaud-til')),
);

/** Whether the corpus is here. */
export const hasCorpus = CORPUS_ROOT !== undefined;

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
  if (CORPUS_ROOT && fs.existsSync(path.join(CORPUS_ROOT, corpus))) walk(path.join(CORPUS_ROOT, corpus));
  return out;
}
