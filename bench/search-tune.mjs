// git-kb search scored in process over the corpora of bench/lib/sets.mjs, against the BM25 reference, to compare
// ranking knobs (src/adapters/index/search.ts, RANKING). Knobs are chosen on jbranchaud-til and tldr-pages;
// corpus3 is for testing only and is not read here. bench/retrieval.mjs measures the real `git-kb search`.
//
//   node bench/search-tune.mjs [--corpus til,tldr] [--set key=value,...]...
//     each --set is one variant of RANKING (e.g. --set coveragePower=0.3 --set coveragePower=0.3,prefixMinLength=6;
//     b=... sets bm25.b)
//   With node:sqlite (Node 22.5 and later) the SQLite FTS5 reference (bench/lib/fts5.mjs) is printed beside BM25.
//   DIFF=1 lists, per variant, every query whose rank differs from the BM25 reference's (LOSE: BM25 ranks it higher).
import { importTs } from './hook-lib.mjs';
import { bm25Index, readNotes } from './lib/bm25.mjs';
import { ftsIndex } from './lib/fts5.mjs';
import { cachedCorpusRepo, corpora, rankSummary as summary } from './lib/sets.mjs';

const argv = process.argv.slice(2);
const keys = (argv.includes('--corpus') ? argv[argv.indexOf('--corpus') + 1] : 'til,tldr,corpus4').split(',');
const variants = [{}];
argv.forEach((a, i) => {
  if (a === '--set') variants.push(Object.fromEntries(argv[i + 1].split(',').map((kv) => kv.split('=')).map(([k, v]) => [k, Number(v)])));
});

const { searchEntries, RANKING, readSettings } = await importTs('bench/lib/search-entry.ts');
const settings = readSettings(process.env);
const base = { ...RANKING };

const fmt = (s) => `${(100 * s.r1).toFixed(1)} ${(100 * s.r5).toFixed(1)} ${(100 * s.r10).toFixed(1)} ${s.mrr.toFixed(3)}`;

for (const v of variants) for (const k of Object.keys(v)) if (!(k in RANKING) && k !== 'b') throw new Error(`--set: ${k} is not a knob of RANKING`);
for (const c of corpora(keys, { tuning: true })) {
  const repo = cachedCorpusRepo(c);
  const sets = [['queries', c.queries]];
  if (c.answerable.some((f, i) => f.prompt !== c.queries[i]?.query)) sets.push(['prompts', c.answerable.map((f) => ({ query: f.prompt, expect: f.expect }))]);
  for (const m of c.more ?? []) if (m.rows[0]?.expect) sets.push([m.name, m.rows.map((f) => ({ query: f.prompt, expect: f.expect }))]);
  const notes = readNotes(c.dir);
  const bm = bm25Index(notes);
  const fts = ftsIndex(notes);
  for (const [name, qs] of sets) {
    const bmRanks = qs.map((q) => bm.search(q.query, 10).findIndex((h) => q.expect.includes(h.path)) + 1);
    console.log(`${c.key} ${name} (${qs.length}): BM25 ${fmt(summary(bmRanks))}`);
    if (fts) console.log(`${c.key} ${name} (${qs.length}): FTS5 ${fmt(summary(qs.map((q) => fts.search(q.query, 10).findIndex((h) => q.expect.includes(h.path)) + 1)))}`);
    for (const v of variants) {
      Object.assign(RANKING, base, v);
      if ('b' in v) RANKING.bm25 = { ...base.bm25, b: v.b };
      const ranks = [];
      for (const q of qs) {
        const want = new Set(q.expect.map((p) => repo.idOf.get(p)));
        const { results } = await searchEntries({ data: repo.dir, settings, queries: [q.query], limit: 10 });
        ranks.push(results.filter((h) => !h.via).findIndex((h) => want.has(h.id)) + 1);
      }
      console.log(`   ${JSON.stringify(v).padEnd(50)} ${fmt(summary(ranks))}`);
      if (process.env.DIFF) qs.forEach((q, i) => { const a = ranks[i] || 99, b = bmRanks[i] || 99; if (a !== b) console.log(`      ${a > b ? 'LOSE' : 'win '} kb ${a} bm ${b} | ${q.query.slice(0, 110)}`); });
    }
  }
}
