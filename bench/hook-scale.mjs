// The prompt hook's keyword signal on small knowledge bases: seeded random subsets of each development corpus, to
// check that its one set of bars (src/core/text/relevance.ts, KEYWORD_PARAMS) holds for a user's first 30 to 300
// notes as it does on the whole corpus. Each subset holds the expected note of a quarter of its size in answerable
// prompts, the rest drawn at random; the prompt index is built over it in process (as bench/hook-tune.mjs does).
//   hit: an expected note among the pointers, over the answerable prompts whose note is in the subset;
//   negatives: the corpus's own on-domain silent prompts and cross negatives (no note of the corpus answers them);
//   answer absent: the answerable prompts whose note was left out (the subject's neighbours may still be there, so
//     some of these pointers are right: an upper bound on false fires of the most on-domain kind).
//
//   node bench/hook-scale.mjs [--sizes 30,100,300] [--seeds 3] [--no-write]
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { importTs } from './hook-lib.mjs';
import { cachedCorpusRepo, corpora } from './lib/sets.mjs';
import { writeSection } from './lib/measure.mjs';
const { rebuildPromptIndex } = await importTs('src/adapters/index/prompt/build.ts');
const { scoreKeywords } = await importTs('src/hooks/prompt/signals.ts');
const { analyzePrompt } = await importTs('src/core/text/prompt-text.ts');
const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const sizes = arg('--sizes', '30,100,300').split(',').map(Number);
const seeds = Number(arg('--seeds', 3));
const lines = [];
let seed = 1;
const rnd = () => { seed |= 0; seed = (seed + 0x6d2b79f5) | 0; let t = Math.imul(seed ^ (seed >>> 15), 1 | seed); t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t; return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
for (const c of corpora(['til', 'tldr', 'corpus4'], { tuning: true })) {
  const repo = cachedCorpusRepo(c);
  const files = fs.readdirSync(path.join(repo.dir, 'entries'));
  const fileOf = new Map(files.map((f) => [f.slice(0, f.indexOf('-', 3)), f]));
  const ids = [...repo.sourceOf.keys()];
  // A subset as large as the corpus is the corpus (bench/hook-tune.mjs).
  for (const size of sizes.filter((n) => n < ids.length)) {
    const agg = { hit: 0, ans: 0, absentFire: 0, absent: 0, negFire: 0, neg: 0, ptr: 0, firings: 0 };
    for (let s = 0; s < seeds; s++) {
      seed = 1000 * size + s + 7;
      // A quarter of the subset: expected notes of answerable prompts; the rest drawn at random.
      const pick = new Set();
      const ans = [...c.answerable].sort(() => rnd() - 0.5);
      for (const a of ans.slice(0, Math.round(size / 4))) { const id = repo.idOf.get(a.expect[0]); if (id) pick.add(id); }
      while (pick.size < size) pick.add(ids[Math.floor(rnd() * ids.length)]);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scale-'));
      fs.mkdirSync(path.join(dir, 'entries'));
      fs.copyFileSync(path.join(repo.dir, 'kb.json'), path.join(dir, 'kb.json'));
      for (const id of pick) { const f = fileOf.get(id); if (f) fs.copyFileSync(path.join(repo.dir, 'entries', f), path.join(dir, 'entries', f)); }
      const { reader } = await rebuildPromptIndex(dir);
      const fire = (p) => { const a = analyzePrompt(p); return a.skip ? [] : scoreKeywords(reader, a.keywords).fired; };
      const srcIn = new Set([...pick].map((id) => repo.sourceOf.get(id)));
      for (const a of c.answerable) {
        const got = fire(a.prompt);
        if (got.length) { agg.firings++; agg.ptr += got.length; }
        if (a.expect.some((p) => srcIn.has(p))) { agg.ans++; if (got.some((g) => a.expect.includes(repo.sourceOf.get(g.id)))) agg.hit++; }
        else { agg.absent++; if (got.length) agg.absentFire++; }
      }
      for (const n of [...c.silent.filter((x) => x.why === 'near-miss' || x.why === 'on-domain'), ...c.cross]) { agg.neg++; if (fire(n.prompt).length) agg.negFire++; }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const pct = (a, b) => (b ? (100 * a / b).toFixed(1) + '%' : '-');
    lines.push(`${c.key.padEnd(8)} ${String(size).padStart(4)} entries: hit ${pct(agg.hit, agg.ans)} (${agg.ans}) | false: negatives ${pct(agg.negFire, agg.neg)} answer absent ${pct(agg.absentFire, agg.absent)} (${agg.absent}) | ptr/firing ${(agg.ptr / (agg.firings || 1)).toFixed(2)}`);
    console.log(lines.at(-1));
  }
}

if (!process.argv.includes('--no-write')) {
  writeSection(path.join(import.meta.dirname, 'RESULTS.md'), 'Prompt hook on small knowledge bases', [
    `Written by \`node bench/hook-scale.mjs ${process.argv.slice(2).join(' ')}\` on ${new Date().toISOString().slice(0, 10)}: the keyword signal in process over seeded random subsets of each development corpus (${seeds} per size), with the bars of the whole corpus. Hit: over the answerable prompts whose expected note is in the subset (their count in brackets); false on negatives: own on-domain silent prompts and cross negatives; answer absent: answerable prompts whose note was left out (its neighbours may answer, so an upper bound).`,
    '',
    '```',
    ...lines,
    '```',
  ].join('\n'));
}
