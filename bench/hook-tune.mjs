// The prompt hook's keyword signal scored in process over the corpora of bench/lib/sets.mjs, to choose its bars
// (src/core/text/relevance.ts, KEYWORD_PARAMS). The bars are chosen on the tuning corpus (jbranchaud-til) only;
// tldr-pages is reported with them; corpus3 (testing only) is never read here: bench/retrieval.mjs reports it.
// bench/retrieval.mjs measures the real hook process.
//
//   node bench/hook-tune.mjs [--corpus til,tldr] [--grid] [--ceiling] [--show N]
//     --grid    a grid over the bars on the tuning corpus, its frontier, and each frontier point on the others
//     --ceiling the most each corpus can reach over the same grid with false fires at most 5% on every corpus (an
//               upper bound: the grid fitted to all the corpora at once)
//     --show N  the N best-ranked candidates of every false fire and missed prompt (for reading)
//     --dump    every prompt's ranking to bench/.work/hook-rankings.json
// Writes the "Prompt hook tuning" section of bench/RESULTS.md unless --no-write.
import fs from 'node:fs';
import path from 'node:path';
import { importTs } from './hook-lib.mjs';
import { cachedCorpusRepo, corpora } from './lib/sets.mjs';
import { writeSection } from './lib/measure.mjs';

const argv = process.argv.slice(2);
const arg = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const keys = arg('--corpus', 'til,tldr,corpus4').split(',');
const show = Number(arg('--show', 0));

const { rebuildPromptIndex } = await importTs('src/adapters/index/prompt/build.ts');
const { rankKeywords, decide, readSections } = await importTs('src/hooks/prompt/signals.ts');
const { analyzePrompt } = await importTs('src/core/text/prompt-text.ts');
const { lookupTerms } = await importTs('src/adapters/index/prompt/format.ts');
const { specificity, KEYWORD_PARAMS } = await importTs('src/core/text/relevance.ts');

const pct = (x) => `${(100 * x).toFixed(1)}%`;

/** Per corpus: every prompt's ranking (computed once; the bars only decide over it). */
const prepared = [];
for (const c of corpora(keys, { tuning: true })) {
  const repo = cachedCorpusRepo(c);
  fs.rmSync(path.join(repo.dir, '.git', 'git-kb', 'prompt'), { recursive: true, force: true });
  const { reader } = await rebuildPromptIndex(repo.dir);
  const rank = (prompt) => {
    const a = analyzePrompt(prompt);
    if (a.skip) return undefined;
    const ranking = rankKeywords(reader, a.keywords, KEYWORD_PARAMS, 20);
    ranking.keywords = a.keywords;
    if (argv.includes('--dump')) {
      // The raw parts of each keyword and match, to try other weightings outside this script.
      const post = lookupTerms(reader, a.keywords);
      const n = reader.header.live ?? reader.header.n;
      ranking.raw = { n, keywords: a.keywords.map((k) => [k, specificity(k), post.get(k)?.count ?? 0]) };
      for (const s of ranking.ranked) {
        s.raw = s.terms.map((k) => {
          const p = post.get(k);
          for (let i = 0; i < p.count; i++) if (p.cells[2 * i] >>> 3 === s.doc) return [k, p.cells[2 * i] & 7, p.weights[2 * i + 1]];
          return [k, 0, 0];
        });
      }
    }
    return ranking;
  };
  const src = (s) => repo.sourceOf.get(s.id);
  prepared.push({
    c,
    src,
    // A page with sections is judged part by part, as the hook does (signals.ts readSections).
    reader,
    answerable: c.answerable.map((f) => ({ ...f, ranking: rank(f.prompt) })),
    silent: c.silent.map((s) => ({ ...s, ranking: rank(s.prompt) })),
    cross: c.cross.map((s) => ({ ...s, ranking: rank(s.prompt) })),
  });
}

/** What the hook points to for a prompt (its ranking computed once), under `params`. */
const firedBy = (p, x, params) => (x.ranking ? decide(readSections(x.ranking, x.ranking.keywords, p.reader, params), params).fired : []);

function evaluate(p, params) {
  const fired = (x) => firedBy(p, x, params);
  let hit = 0;
  let firings = 0;
  let pointers = 0;
  for (const f of p.answerable) {
    const got = fired(f);
    if (got.length) {
      firings++;
      pointers += got.length;
    }
    if (got.some((s) => f.expect.includes(p.src(s)))) hit++;
  }
  const byWhy = {};
  const count = (rows) => {
    let n = 0;
    for (const s of rows) {
      const got = fired(s);
      byWhy[s.why] ??= [0, 0];
      byWhy[s.why][1]++;
      if (got.length) {
        n++;
        byWhy[s.why][0]++;
        firings++;
        pointers += got.length;
      }
    }
    return rows.length ? n / rows.length : 0;
  };
  const own = p.silent.filter((s) => s.why === 'near-miss' || s.why === 'on-domain');
  const old = p.silent.filter((s) => !(s.why === 'near-miss' || s.why === 'on-domain'));
  return { hit: hit / p.answerable.length, ownFalse: count(own), oldFalse: count(old), crossFalse: count(p.cross), perFiring: firings ? pointers / firings : 0, byWhy };
}

const line = (p, r) =>
  `${p.c.key.padEnd(8)} hit ${pct(r.hit).padStart(6)} | false: on-domain ${pct(r.ownFalse).padStart(6)}  cross ${pct(r.crossFalse).padStart(6)}  older sets ${pct(r.oldFalse).padStart(6)} | pointers/firing ${r.perFiring.toFixed(2)} | ${Object.entries(r.byWhy).map(([w, [a, b]]) => `${w} ${a}/${b}`).join(', ')}`;

const report = [`bars (src/core/text/relevance.ts, KEYWORD_PARAMS): ${JSON.stringify(KEYWORD_PARAMS)}`];
for (const p of prepared) report.push(line(p, evaluate(p, KEYWORD_PARAMS)));
console.log(report.join('\n'));

if (show) {
  for (const p of prepared) {
    const fmt = (x) => (x.ranking?.ranked ?? []).slice(0, show).map((s) => `      ${p.src(s)} ev ${s.evidence.toFixed(2)} cov ${s.coverage.toFixed(2)} [${s.terms.join(' ')}]`).join('\n');
    console.log(`\n== ${p.c.key}: false fires`);
    for (const s of [...p.silent, ...p.cross]) if (firedBy(p, s, KEYWORD_PARAMS).length) console.log(`  (${s.why}) ${s.prompt}\n    mass ${s.ranking.mass.toFixed(2)}\n${fmt(s)}`);
    console.log(`\n== ${p.c.key}: answerable prompts missed (expect ${'...'})`);
    for (const f of p.answerable) {
      const got = firedBy(p, f, KEYWORD_PARAMS);
      if (!got.some((s) => f.expect.includes(p.src(s)))) console.log(`  ${f.prompt}\n    expect ${f.expect[0]}; mass ${f.ranking?.mass.toFixed(2) ?? 'skipped'}\n${fmt(f)}`);
    }
  }
}

if (argv.includes('--dump')) {
  // Every prompt's ranking with the corpus paths, for reading and for trying rules outside this script.
  const out = prepared.map((p) => ({ corpus: p.c.key, rows: [...p.answerable.map((x) => ({ kind: 'answerable', ...x })), ...p.silent.map((x) => ({ kind: x.why, ...x })), ...p.cross.map((x) => ({ kind: x.why, ...x }))].map((x) => ({ kind: x.kind, prompt: x.prompt, expect: x.expect, mass: x.ranking?.mass, raw: x.ranking?.raw, weights: x.ranking ? Object.fromEntries([...x.ranking.weights].map(([k, w]) => [k, w.cover])) : undefined, ranked: x.ranking?.ranked.map((s) => ({ path: p.src(s), evidence: s.evidence, coverage: s.coverage, focus: s.focus, terms: s.terms, raw: s.raw })) })) }));
  fs.writeFileSync(path.join(import.meta.dirname, '.work', 'hook-rankings.json'), JSON.stringify(out));
}

/** The grid over the bars that --grid and --ceiling walk. */
function* grid() {
  for (const minHits of [2, 3]) {
    for (let minCovered = 0; minCovered <= 2.51; minCovered += 0.5) {
      for (let minCoverage = 0.3; minCoverage <= 0.71; minCoverage += 0.05) {
        for (const minFocus of [0, 0.1, 0.15, 0.2, 0.25, 0.3]) {
          yield { ...KEYWORD_PARAMS, minHits, minCovered: +minCovered.toFixed(2), minCoverage: +minCoverage.toFixed(2), minFocus };
        }
      }
    }
  }
}
// Worst false-fire rate of a corpus's negatives (own on-domain, cross, older sets).
const worst = (r) => Math.max(r.ownFalse, r.crossFalse, r.oldFalse);

if (argv.includes('--grid')) {
  const tuning = prepared.find((p) => p.c.tuning);
  if (!tuning) throw new Error('--grid needs the tuning corpus (til) among --corpus');
  const rows = [...grid()].map((params) => ({ params, r: evaluate(tuning, params) }));
  const frontier = rows.filter((a) => !rows.some((b) => b.r.hit >= a.r.hit && worst(b.r) <= worst(a.r) && (b.r.hit > a.r.hit || worst(b.r) < worst(a.r))));
  frontier.sort((a, b) => worst(a.r) - worst(b.r) || b.r.hit - a.r.hit);
  report.push('', `frontier on ${tuning.c.key} (hit rate against the worst false-fire rate of its negatives), each also on the others:`);
  const seen = new Set();
  for (const { params, r } of frontier) {
    const k = `${r.hit}:${worst(r)}`;
    if (seen.has(k)) continue;
    seen.add(k);
    report.push(`hits>=${params.minHits} covered>=${params.minCovered} coverage>=${params.minCoverage} focus>=${params.minFocus}`);
    for (const p of prepared) report.push(`   ${line(p, p === tuning ? r : evaluate(p, params))}`);
  }
  console.log(report.slice(prepared.length + 1).join('\n'));
}

if (argv.includes('--ceiling')) {
  // An upper bound, not a choice: the grid fitted to every corpus at once (the choice is made on the tuning corpus
  // alone, --grid). Among the bar sets whose false fires stay at most 5% on every corpus's negatives, the best hit
  // rate each corpus can reach, and the set that raises the lowest one most.
  const rows = [...grid()].flatMap((params) => {
    const rs = prepared.map((p) => evaluate(p, params));
    return rs.every((r) => worst(r) <= 0.05) ? [{ params, rs, low: Math.min(...rs.map((r) => r.hit)) }] : [];
  });
  report.push('', `ceiling: of ${[...grid()].length} bar sets, ${rows.length} keep false fires at most 5% on every corpus (${prepared.map((p) => p.c.key).join(', ')})`);
  prepared.forEach((p, i) => {
    const best = rows.reduce((a, b) => (b.rs[i].hit > (a?.rs[i].hit ?? -1) ? b : a), undefined);
    if (best) report.push(`best on ${p.c.key}: ${JSON.stringify({ minHits: best.params.minHits, minCovered: best.params.minCovered, minCoverage: best.params.minCoverage, minFocus: best.params.minFocus })}`, ...prepared.map((q, j) => `   ${line(q, best.rs[j])}`));
  });
  console.log(report.slice(prepared.length + 1).join('\n'));
}

if (!argv.includes('--no-write')) {
  writeSection(path.join(import.meta.dirname, 'RESULTS.md'), 'Prompt hook tuning', [
    `Written by \`node bench/hook-tune.mjs ${argv.join(' ')}\` on ${new Date().toISOString().slice(0, 10)}: the keyword signal scored in process (the hook's own functions over its own index) on the answerable prompts and the negatives of each corpus (bench/lib/sets.mjs). The bars are chosen on jbranchaud-til alone; tldr-pages and corpus4 (long pages, read part by part as the hook does: signals.ts readSections) are reported with them; corpus3 is measured only by bench/retrieval.mjs. Hit: an expected note among the pointers (at most 3). False: any pointer on a prompt no note answers.`,
    '',
    '```',
    ...report,
    '```',
  ].join('\n'));
}
