// A second reference: SQLite's FTS5 with its own BM25 (the reference the held-out figures name): a table of
// title, tags and body with the porter tokenizer, bm25() column weights title 5 / tags 3 / body 1, the query an OR
// of its words. FTS5's bm25 weighs each column's term frequency and normalises by the row's whole length
// (k1 1.2, b 0.75). Needs `node:sqlite` (Node 22.5 and later); ftsIndex returns undefined where it is missing.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** An FTS5 index of `notes` (bench/lib/bm25.mjs readNotes), or undefined without node:sqlite. */
export function ftsIndex(notes, weights = { title: 5, tags: 3, body: 1 }) {
  let sqlite;
  try {
    sqlite = require('node:sqlite');
  } catch {
    return undefined;
  }
  const db = new sqlite.DatabaseSync(':memory:');
  db.exec("CREATE VIRTUAL TABLE notes USING fts5(title, tags, body, tokenize='porter')");
  const insert = db.prepare('INSERT INTO notes (rowid, title, tags, body) VALUES (?, ?, ?, ?)');
  db.exec('BEGIN');
  notes.forEach((n, i) => insert.run(i + 1, n.title, n.tags.join(' '), n.body));
  db.exec('COMMIT');
  const query = db.prepare(`SELECT rowid FROM notes WHERE notes MATCH ? ORDER BY bm25(notes, ${weights.title}, ${weights.tags}, ${weights.body}) LIMIT ?`);
  return {
    /** The best `limit` notes for `text`, an OR of its words (each quoted, so no word is FTS5 syntax). */
    search(text, limit = 10) {
      const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
      if (words.length === 0) return [];
      return query.all(words.map((w) => `"${w}"`).join(' OR '), limit).map((r) => ({ path: notes[r.rowid - 1].path }));
    },
  };
}
