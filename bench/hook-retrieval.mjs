// Retrieval benchmark of the prompt hook over the real corpus (bench/data/hook-prompts.json): the hit rate on
// prompts that should point somewhere, the false-fire rate on prompts that should point nowhere, for git-kb's
// algorithm (skip rules + IDF-weighted keyword signal) and for the v1 algorithm of seed 004 (at least two
// distinct keyword hits over titles and tags), on the same prompts and the same imported data repo.
// It scores in process (jbranchaud-til only) to compare parameters; bench/retrieval.mjs measures the real hook
// process on both corpora.
//
//   node bench/hook-retrieval.mjs            report, and write the "Prompt hook" retrieval part of RESULTS.md
//   node bench/hook-retrieval.mjs --tune     also print a grid over the keyword parameters
import fs from 'node:fs';
import path from 'node:path';
import { importTs, tilRepo } from './hook-lib.mjs';
import { readCorpus } from './lib/corpus.mjs';

const PROMPTS = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'data', 'hook-prompts.json'), 'utf8'));

/** v1 (seed 004): lower-cased words of titles and tags, a small stop list, fires at >= 2 distinct hits, top 5. */
const V1_STOP = new Set('the a an and or of to in on for with is are be it this that how do i my me we our you your what why when can from by at as not no but so if then than into out up'.split(' '));
function v1Words(text) {
  return [...new Set(text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1 && !V1_STOP.has(w)))];
}
function v1Index(entries) {
  const index = new Map();
  for (const e of entries) {
    for (const w of new Set([...v1Words(e.title), ...e.tags.flatMap(v1Words)])) {
      if (!index.has(w)) index.set(w, []);
      index.get(w).push(e.id);
    }
  }
  return index;
}
function v1Fire(index, prompt, skip) {
  if (skip) return [];
  const hits = new Map();
  for (const w of v1Words(prompt)) for (const id of index.get(w) ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  return [...hits].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([id]) => id);
}

function evaluate(fire) {
  let hit = 0;
  let found = 0;
  let expected = 0;
  let shown = 0;
  let relevantShown = 0;
  for (const f of PROMPTS.firing) {
    const ids = fire(f.prompt);
    const want = new Set(f.expect);
    const got = ids.map((id) => pathOf.get(id));
    if (got.some((p) => want.has(p))) hit++;
    found += f.expect.filter((p) => got.includes(p)).length;
    expected += f.expect.length;
    shown += ids.length;
    relevantShown += got.filter((p) => want.has(p)).length;
  }
  let falseFire = 0;
  const byWhy = {};
  for (const s of PROMPTS.silent) {
    const fired = fire(s.prompt).length > 0;
    byWhy[s.why] ??= [0, 0];
    byWhy[s.why][1]++;
    if (fired) {
      falseFire++;
      byWhy[s.why][0]++;
    }
  }
  return {
    hitRate: hit / PROMPTS.firing.length,
    recall: found / expected,
    precision: shown ? relevantShown / shown : 0,
    pointersPerPrompt: shown / PROMPTS.firing.length,
    falseFire: falseFire / PROMPTS.silent.length,
    byWhy,
  };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

const repo = await tilRepo();
const { rebuildPromptIndex } = await importTs('src/adapters/index/prompt/build.ts');
const { scoreKeywords, KEYWORD_PARAMS } = await importTs('src/hooks/prompt/signals.ts');
const { analyzePrompt } = await importTs('src/core/text/prompt-text.ts');
const { readDoc } = await importTs('src/adapters/index/prompt/format.ts');
const { loadCatalog } = await importTs('src/adapters/index/catalog.ts');

// Entry id → corpus path (folder/file), through the folder tag and the title the import took from the heading.
const corpusByKey = new Map(readCorpus().map((n) => [`${n.folder}\0${n.title}`, `${n.folder}/${n.file}`]));
const catalog = await loadCatalog(repo.dir);
const pathOf = new Map();
const entries = [];
for (const e of catalog.byId.values()) {
  const p = e.tags.map((t) => corpusByKey.get(`${t}\0${e.title}`)).find(Boolean);
  if (p) pathOf.set(e.id, p);
  entries.push({ id: e.id, title: e.title, tags: e.tags });
}
const missing = [...PROMPTS.firing.flatMap((f) => f.expect)].filter((p) => ![...pathOf.values()].includes(p));
if (missing.length) console.warn(`expected paths not in the data repo: ${missing.join(', ')}`);

const { reader } = await rebuildPromptIndex(repo.dir);
const ours = (params) => (prompt) => {
  const a = analyzePrompt(prompt);
  if (a.skip) return [];
  return scoreKeywords(reader, a.keywords, params).fired.slice(0, params.max).map((s) => readDoc(reader, s.doc).id);
};
const v1idx = v1Index(entries);
const v1 = (useSkip) => (prompt) => v1Fire(v1idx, prompt, useSkip ? analyzePrompt(prompt).skip : undefined);

const results = {
  [`git-kb (chosen: confidence >= ${KEYWORD_PARAMS.minConfidence})`]: evaluate(ours(KEYWORD_PARAMS)),
  // Other points of the trade-off, same algorithm: quieter, and louder.
  'git-kb, confidence >= 1.8': evaluate(ours({ ...KEYWORD_PARAMS, minConfidence: 1.8 })),
  'git-kb, confidence >= 1.6': evaluate(ours({ ...KEYWORD_PARAMS, minConfidence: 1.6 })),
  'git-kb, confidence >= 1.2': evaluate(ours({ ...KEYWORD_PARAMS, minConfidence: 1.2 })),
  'git-kb, 2 keywords, confidence >= 1.4': evaluate(ours({ ...KEYWORD_PARAMS, minHits: 2 })),
  'v1: >= 2 distinct hits, titles and tags': evaluate(v1(false)),
  'v1 with git-kb skip rules': evaluate(v1(true)),
};

if (process.argv.includes('--tune')) {
  // The grid, then its Pareto frontier (no other setting has both a higher hit rate and a lower false fire).
  const rows = [];
  for (const minHits of [1, 2, 3]) {
    for (const minConfidence of [1.0, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8]) {
      for (const relative of [0.3, 0.5, 0.7]) {
        for (const minShare of [0.2, 0.25, 0.3, 0.4]) {
          const params = { ...KEYWORD_PARAMS, minHits, minConfidence, relative, minShare };
          rows.push({ params, ...evaluate(ours(params)) });
        }
      }
    }
  }
  const frontier = rows
    .filter((r) => !rows.some((o) => o.hitRate >= r.hitRate && o.falseFire <= r.falseFire && (o.hitRate > r.hitRate || o.falseFire < r.falseFire)))
    .sort((a, b) => a.falseFire - b.falseFire || b.precision - a.precision);
  const seen = new Set();
  for (const r of frontier) {
    const key = `${r.hitRate}:${r.falseFire}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const p = r.params;
    console.log(`hits>=${p.minHits} confidence>=${p.minConfidence} rel=${p.relative} share>=${p.minShare}: hit ${pct(r.hitRate)} recall ${pct(r.recall)} precision ${pct(r.precision)} ptr/prompt ${r.pointersPerPrompt.toFixed(2)} false-fire ${pct(r.falseFire)}`);
  }
}

const lines = [
  `Retrieval (\`node bench/hook-retrieval.mjs\`): ${PROMPTS.firing.length} prompts that should point to named entries and ${PROMPTS.silent.length} that should point nowhere`,
  `(bench/data/hook-prompts.json), over ${entries.length} entries imported with \`git-kb import --tags-from-folders\`${repo.refusedOriginal ? ` (the import refused the corpus for secret-shaped demo values; ${repo.removed.length} such lines were removed from a copy)` : ''}.`,
  'Hit rate: share of firing prompts with at least one expected entry among the pointers shown (at most 5). False fire: share of silent prompts with any pointer.',
  '',
  '| algorithm | hit rate | recall | precision | pointers / prompt | false fire | false fire: mechanical / short / off-topic |',
  '|---|---|---|---|---|---|---|',
];
for (const [name, r] of Object.entries(results)) {
  const w = (k) => (r.byWhy[k] ? `${r.byWhy[k][0]}/${r.byWhy[k][1]}` : '-');
  lines.push(`| ${name} | ${pct(r.hitRate)} | ${pct(r.recall)} | ${pct(r.precision)} | ${r.pointersPerPrompt.toFixed(2)} | ${pct(r.falseFire)} | ${w('mechanical')} / ${w('short')} / ${w('off-topic')} |`);
}
const p = KEYWORD_PARAMS;
lines.push('', `Chosen parameters (src/hooks/prompt/signals.ts): the best entry matches at least ${p.minHits} distinct keywords and ${pct(p.minShare)} of the prompt's distinctive weight, with score x sqrt(share) >= ${p.minConfidence}; others within ${p.relative} of its score; at most ${p.max} pointers.`);
const text = lines.join('\n');
console.log(text);
fs.mkdirSync(path.join(import.meta.dirname, '.work'), { recursive: true });
fs.writeFileSync(path.join(import.meta.dirname, '.work', 'hook-retrieval.md'), `${text}\n`);
const { writePromptHookSection } = await import('./hook-report.mjs');
writePromptHookSection();
