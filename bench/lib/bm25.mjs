// A plain BM25 reference for the retrieval benchmark (SPEC section 4: git-kb search "must beat a plain BM25
// reference"). Deliberately textbook, untuned, and independent of git-kb: it reads the note files itself.
//
// - Notes: every .md/.markdown file under the corpus folder, walked as `git-kb import` walks it (dot entries
//   and node_modules skipped). Title = the first `# ` heading when nothing but blank lines precedes it (as
//   src/app/import.ts takes it; the heading line leaves the body), else the file name. Tags = the folder names
//   of the file's path (as `--tags-from-folders`: `common/du.md` gets the tag `common`).
// - Terms: lower-cased, split on every run of non-alphanumeric characters (Unicode letters and digits count as
//   alphanumeric), stop words of STOP_WORDS dropped, then the Porter stemmer (npm `stemmer`, wooorm's
//   implementation of Porter 1980).
// - Scoring: BM25F with weighted term frequencies (Robertson and Zaragoza, "The Probabilistic Relevance
//   Framework", 2009, section 3.7), k1 = 1.2, b = 0.75 in every field, field weights title 5, tags 3, body 1:
//     tf'(t, d) = sum over fields f of  w_f * tf(t, d.f) / (1 - b + b * len(d.f) / avglen(f))
//     score(d, q) = sum over distinct query terms t of  idf(t) * tf'(t, d) / (k1 + tf'(t, d))
//     idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)),  df = notes with t in any field.
//   The query is the OR of its distinct terms; a note matching none scores nothing. Ties: corpus path order.
import fs from 'node:fs';
import path from 'node:path';
import { stemmer } from 'stemmer';

export const K1 = 1.2;
export const B = 0.75;
export const WEIGHTS = { title: 5, tags: 3, body: 1 };
/** The 33 English stop words of Lucene's StandardAnalyzer (ENGLISH_STOP_WORDS_SET); nothing else is dropped. */
export const STOP_WORDS = new Set('a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(' '));

/** The terms of a text: lower case, split on non-alphanumerics, stop words out, Porter stems. */
export function terms(text) {
  const out = [];
  for (const w of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!w || STOP_WORDS.has(w)) continue;
    out.push(stemmer(w));
  }
  return out;
}

function walk(root, rel = '') {
  const out = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (d.name.startsWith('.') || d.name === 'node_modules') continue;
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...walk(root, p));
    else if (d.isFile() && /\.(md|markdown)$/i.test(d.name)) out.push(p);
  }
  return out;
}

/** The notes of a corpus folder: { path (relative, `/`-separated), title, tags, body }, in path order. */
export function readNotes(root) {
  return walk(root)
    .sort()
    .map((rel) => {
      let text = fs.readFileSync(path.join(root, rel), 'utf8').replace(/\r\n?/g, '\n');
      let title = '';
      // YAML front matter (corpus4's pages): its `title:` is the title, and it is not body text.
      const fm = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(text);
      if (fm) {
        const t = /^title:[ \t]*(.*)$/m.exec(fm[1]);
        if (t) title = t[1].trim().replace(/^(["'])(.*)\1$/, '$2');
        text = text.slice(fm[0].length);
      }
      let body = text;
      const m = /^\s*#[ \t]+(.+?)[ \t#]*$/m.exec(text);
      if (!title && m && text.slice(0, m.index).trim() === '') {
        title = m[1].trim();
        body = text.slice(m.index + m[0].length).replace(/^\n+/, '');
      }
      if (!title) title = path.basename(rel).replace(/\.(md|markdown)$/i, '').replace(/[-_]+/g, ' ');
      const tags = path.posix.dirname(rel).split('/').filter((s) => s && s !== '.');
      return { path: rel, title, tags, body };
    });
}

/** A BM25F index over notes; `search(query, limit)` returns [{ path, score }] best first. */
export function bm25Index(notes, { k1 = K1, b = B, weights = WEIGHTS } = {}) {
  const fields = Object.keys(weights);
  const N = notes.length;
  const lengths = fields.map(() => new Float64Array(N));
  const postings = new Map(); // term -> Map(doc -> Float64Array of per-field tf)
  notes.forEach((n, d) => {
    const text = { title: n.title, tags: n.tags.join(' '), body: n.body };
    fields.forEach((f, fi) => {
      const ts = terms(text[f]);
      lengths[fi][d] = ts.length;
      for (const t of ts) {
        let docs = postings.get(t);
        if (!docs) postings.set(t, (docs = new Map()));
        let tf = docs.get(d);
        if (!tf) docs.set(d, (tf = new Float64Array(fields.length)));
        tf[fi]++;
      }
    });
  });
  const avg = lengths.map((l) => l.reduce((s, x) => s + x, 0) / N || 1);
  const norm = lengths.map((l, fi) => Float64Array.from(l, (len) => 1 - b + (b * len) / avg[fi]));
  const w = fields.map((f) => weights[f]);
  return {
    size: N,
    search(query, limit = 10) {
      const scores = new Map();
      for (const t of new Set(terms(query))) {
        const docs = postings.get(t);
        if (!docs) continue;
        const idf = Math.log(1 + (N - docs.size + 0.5) / (docs.size + 0.5));
        for (const [d, tf] of docs) {
          let x = 0;
          for (let fi = 0; fi < tf.length; fi++) if (tf[fi]) x += (w[fi] * tf[fi]) / norm[fi][d];
          scores.set(d, (scores.get(d) ?? 0) + (idf * x) / (k1 + x));
        }
      }
      return [...scores]
        .sort((p, q) => q[1] - p[1] || p[0] - q[0])
        .slice(0, limit)
        .map(([d, score]) => ({ path: notes[d].path, score }));
    },
  };
}
