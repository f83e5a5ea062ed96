// Retrieval benchmark over the real corpora: git-kb search against a plain BM25 reference (bench/lib/bm25.mjs)
// on known-item queries, and the prompt hook's hit and false-fire rates, for jbranchaud-til and tldr-pages.
//
// For each corpus: a temp HOME and a fresh data repo, `git-kb import DIR --tags-from-folders --redact --json`;
//   - git-kb search: one `git-kb search QUERY --limit 10 --json` process per query (as a user or an agent runs
//     it); link neighbours (`via`) are not counted; recall@1/5/10 and MRR (reciprocal rank within the top 10);
//   - BM25 reference: the same queries, in process, over the corpus files read directly (no git-kb code);
//   - prompt hook: `node bin/git-kb-hook prompt` with a UserPromptSubmit payload on stdin, a new session id per
//     prompt (the dedup ledger never silences it). Hit: an expected entry among the pointer lines. False fire:
//     any pointer to an imported entry on a prompt that should get none (no kernel entries or sessions exist).
//     The hook's prompt index is built by a first prompt (and its background builder) before measuring.
// Query sets: til: bench/data/search-queries.json (search), bench/data/hook-prompts.json (hook firing/silent);
// tldr: bench/data/tldr-queries.json (search, and hook firing), bench/data/tldr-prompts-silent.json (silent).
// An `expect` list means any one of its pages counts.
//
//   node bench/retrieval.mjs [--corpus til|tldr|both] [--no-write] [--decay-probe]
// Writes the "Retrieval" section of bench/RESULTS.md (unless --no-write) and, per corpus, every query's ranks
// to bench/.work/retrieval-<corpus>.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bm25Index, readNotes, STOP_WORDS, WEIGHTS, K1, B } from './lib/bm25.mjs';
import { machine, writeSection } from './lib/measure.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'bin', 'git-kb');
const HOOK = path.join(ROOT, 'bin', 'git-kb-hook');
const DATA = path.join(ROOT, 'bench', 'data');
const WORK = path.join(ROOT, 'bench', '.work');
const SHARED = path.resolve(ROOT, '..', 'shared', 'corpus');

const argv = process.argv.slice(2);
const corpusArg = argv.includes('--corpus') ? argv[argv.indexOf('--corpus') + 1] : 'both';
if (!['til', 'tldr', 'both'].includes(corpusArg)) {
  console.error('usage: node bench/retrieval.mjs [--corpus til|tldr|both] [--no-write] [--decay-probe]');
  process.exit(2);
}
const write = !argv.includes('--no-write');
const decayProbe = argv.includes('--decay-probe');
const readJson = (f) => JSON.parse(fs.readFileSync(path.join(DATA, f), 'utf8'));
const list = (x) => (Array.isArray(x) ? x : [x]);

const CORPORA = {
  til: () => {
    const hook = readJson('hook-prompts.json');
    return {
      name: 'jbranchaud-til',
      dir: path.join(SHARED, 'jbranchaud-til'),
      queries: readJson('search-queries.json').map((q) => ({ query: q.query, expect: list(q.expect) })),
      firing: hook.firing.map((f) => ({ prompt: f.prompt, expect: list(f.expect) })),
      silent: hook.silent.map((s) => ({ prompt: s.prompt, why: s.why })),
      sets: '`bench/data/search-queries.json` (search), `bench/data/hook-prompts.json` (hook: firing and silent)',
    };
  },
  tldr: () => {
    const queries = readJson('tldr-queries.json').map((q) => ({ query: q.query, expect: list(q.expect), style: q.style }));
    return {
      name: 'tldr-pages',
      dir: path.join(SHARED, 'tldr-pages'),
      queries,
      firing: queries.map((q) => ({ prompt: q.query, expect: q.expect, style: q.style })),
      silent: readJson('tldr-prompts-silent.json'),
      sets: '`bench/data/tldr-queries.json` (search, and the hook\'s firing prompts), `bench/data/tldr-prompts-silent.json` (hook: silent)',
    };
  },
};

function cleanEnv(home, data) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(GIT_|KB_|CLAUDE_|XDG_)/.test(k)) env[k] = v;
  return { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_KB_DATA: data, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
}

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** recall@1/5/10 and MRR (top 10) from 1-based ranks (0 = not in the top 10). */
function summary(ranks) {
  const n = ranks.length;
  const at = (k) => ranks.filter((r) => r >= 1 && r <= k).length / n;
  return { n, r1: at(1), r5: at(5), r10: at(10), mrr: ranks.reduce((s, r) => s + (r >= 1 && r <= 10 ? 1 / r : 0), 0) / n };
}

async function runCorpus(key) {
  const c = CORPORA[key]();
  const t0 = now();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `gkb-retrieval-${key}-`));
  const data = path.join(home, 'data');
  const env = cleanEnv(home, data);
  const kb = (args) => {
    const r = spawnSync(process.execPath, [CLI, ...args, '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`git-kb ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  try {
    // Import.
    let t = now();
    const imported = kb(['import', c.dir, '--tags-from-folders', '--redact']);
    const importMs = now() - t;
    const idOf = new Map(imported.entries.map((e) => [e.source, e.id]));
    const sourceOf = new Map(imported.entries.map((e) => [e.id, e.source]));
    for (const q of [...c.queries, ...c.firing]) for (const p of q.expect) if (!idOf.has(p)) throw new Error(`expected note not imported: ${p}`);

    // git-kb search, a process per query (the first one, untimed, builds the search index).
    t = now();
    kb(['search', 'warm up the index', '--limit', '1']);
    const firstSearchMs = now() - t;
    t = now();
    const kbRows = c.queries.map((q) => {
      const want = new Set(q.expect.map((p) => idOf.get(p)));
      const hits = kb(['search', q.query, '--limit', '10']).results.filter((h) => !h.via);
      return { rank: hits.findIndex((h) => want.has(h.id)) + 1, top: hits.slice(0, 3).map((h) => sourceOf.get(h.id) ?? h.id) };
    });
    const searchMs = now() - t;

    // Decay probe (--decay-probe): the imported notes are factual_reference, which never decays, so the pass above
    // is the same with decay on or off. To see what decay costs when age says nothing about relevance (the worst
    // case), every note is rewritten by hand as a lesson_learned with an `updated` spread over two years (from a
    // hash of its id), and the queries are run again with kb.json's decay off, then on (the defaults).
    let probe;
    if (decayProbe) {
      const files = [];
      const walk = (d) => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          if (e.name === '.git') continue;
          const p = path.join(d, e.name);
          if (e.isDirectory()) walk(p);
          else if (e.name.endsWith('.md')) files.push(p);
        }
      };
      walk(data);
      const day = 86_400_000;
      for (const f of files) {
        const text = fs.readFileSync(f, 'utf8');
        const id = /^id: (\S+)$/m.exec(text)?.[1] ?? f;
        let h = 2166136261;
        for (const ch of id) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
        const updated = new Date(Date.now() - (h % 730) * day).toISOString().replace(/\.\d+Z$/, 'Z');
        fs.writeFileSync(f, text.replace(/^type: factual_reference$/m, 'type: lesson_learned').replace(/^updated: .*$/m, `updated: ${updated}`));
      }
      const pass = (decay) => {
        fs.writeFileSync(path.join(data, 'kb.json'), `${JSON.stringify({ ...JSON.parse(fs.readFileSync(path.join(data, 'kb.json'), 'utf8')), decay: { enabled: decay } }, null, 2)}\n`);
        kb(['search', 'warm up the index', '--limit', '1']);
        return c.queries.map((q) => {
          const want = new Set(q.expect.map((p) => idOf.get(p)));
          const hits = kb(['search', q.query, '--limit', '10']).results.filter((h) => !h.via);
          return hits.findIndex((h) => want.has(h.id)) + 1;
        });
      };
      const off = pass(false);
      const on = pass(true);
      probe = { files: files.length, off: summary(off), on: summary(on), worse: on.filter((r, i) => (r || 99) > (off[i] || 99)).length, better: on.filter((r, i) => (r || 99) < (off[i] || 99)).length };
    }

    // BM25 reference, in process over the files.
    t = now();
    const notes = readNotes(c.dir);
    const bm = bm25Index(notes);
    const bmBuildMs = now() - t;
    t = now();
    const bmRows = c.queries.map((q) => {
      const want = new Set(q.expect);
      const hits = bm.search(q.query, 10);
      return { rank: hits.findIndex((h) => want.has(h.path)) + 1, top: hits.slice(0, 3).map((h) => h.path) };
    });
    const bmQueryMs = now() - t;

    // Prompt hook: build its index with a first prompt (a large repo gets a background builder), then measure.
    const runHook = (prompt, session) => {
      const payload = { session_id: session, transcript_path: path.join(home, 'no-transcript.jsonl'), cwd: home, hook_event_name: 'UserPromptSubmit', prompt };
      const r = spawnSync(process.execPath, [HOOK, 'prompt'], { env, input: JSON.stringify(payload), encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`hook exited ${r.status}: ${r.stderr}`);
      if (!r.stdout.trim()) return [];
      const context = JSON.parse(r.stdout).hookSpecificOutput?.additionalContext ?? '';
      return [...context.matchAll(/^- (kb-[0-9a-z]+) — /gm)].map((m) => m[1]).filter((id) => sourceOf.has(id));
    };
    t = now();
    const promptDir = path.join(data, '.git', 'git-kb', 'prompt');
    runHook('how do I warm up the prompt index of this knowledge base', 'bench-warmup-0');
    for (let i = 0; !(fs.existsSync(path.join(promptDir, 'index.v1')) && !fs.existsSync(path.join(promptDir, 'build.lock'))); i++) {
      if (i > 600) throw new Error('the prompt index was not built within 120 s');
      await sleep(200);
    }
    runHook('how do I warm up the prompt index of this knowledge base', 'bench-warmup-1');
    const hookIndexMs = now() - t;
    let session = 0;
    const sid = () => `bench-${key}-${process.pid}-${++session}`;
    t = now();
    const firingRows = c.firing.map((f) => {
      const ids = runHook(f.prompt, sid());
      const want = new Set(f.expect.map((p) => idOf.get(p)));
      return { hit: ids.some((id) => want.has(id)), pointers: ids.length, shown: ids.map((id) => sourceOf.get(id)) };
    });
    const silentRows = c.silent.map((s) => {
      const ids = runHook(s.prompt, sid());
      return { fired: ids.length > 0, shown: ids.map((id) => sourceOf.get(id)) };
    });
    const hookMs = now() - t;
    const hookRuns = firingRows.length + silentRows.length;

    const result = {
      probe,
      key,
      name: c.name,
      sets: c.sets,
      entries: imported.imported,
      redacted: imported.redacted.length,
      kb: summary(kbRows.map((r) => r.rank)),
      bm25: summary(bmRows.map((r) => r.rank)),
      hook: {
        firing: firingRows.length,
        hit: firingRows.filter((r) => r.hit).length / firingRows.length,
        pointers: firingRows.reduce((s, r) => s + r.pointers, 0) / firingRows.length,
        silent: silentRows.length,
        falseFire: silentRows.filter((r) => r.fired).length / silentRows.length,
        byStyle: Object.fromEntries(
          [...new Set(c.firing.map((f) => f.style).filter(Boolean))].map((st) => {
            const rows = firingRows.filter((_, i) => c.firing[i].style === st);
            return [st, { n: rows.length, hit: rows.filter((r) => r.hit).length / rows.length }];
          }),
        ),
        byWhy: Object.fromEntries([...new Set(c.silent.map((s) => s.why))].map((w) => [w, [silentRows.filter((r, i) => r.fired && c.silent[i].why === w).length, c.silent.filter((s) => s.why === w).length]])),
      },
      headToHead: {
        bm25FirstKbMissed: kbRows.filter((r, i) => bmRows[i].rank === 1 && r.rank === 0).length,
        kbFirstBm25Missed: kbRows.filter((r, i) => r.rank === 1 && bmRows[i].rank === 0).length,
      },
      timing: { importMs, firstSearchMs, searchMs, perSearchMs: searchMs / c.queries.length, bmBuildMs, bmQueryMs, hookIndexMs, hookMs, perHookMs: hookMs / hookRuns, totalMs: 0 },
      rows: c.queries.map((q, i) => ({ query: q.query, style: q.style, expect: q.expect, kb: kbRows[i], bm25: bmRows[i] })),
      hookRows: [...c.firing.map((f, i) => ({ prompt: f.prompt, expect: f.expect, ...firingRows[i] })), ...c.silent.map((s, i) => ({ prompt: s.prompt, why: s.why, ...silentRows[i] }))],
    };
    result.timing.totalMs = now() - t0;
    return result;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;

function table(r) {
  const row = (name, s) => `| ${name} | ${pct(s.r1)} | ${pct(s.r5)} | ${pct(s.r10)} | ${s.mrr.toFixed(3)} | | |`;
  const h = r.hook;
  const lines = [
    `**${r.name}**: ${r.entries.toLocaleString('en-US')} entries imported (${r.redacted} notes with secret-shaped values redacted); ${r.kb.n} search queries, ${h.firing} firing and ${h.silent} silent hook prompts; query sets: ${r.sets}.`,
    '',
    '| system | recall@1 | recall@5 | recall@10 | MRR | hook hit rate | hook false fire |',
    '|---|---|---|---|---|---|---|',
    row('git-kb search', r.kb),
    row('BM25 reference', r.bm25),
    `| prompt hook | | | | | ${pct(h.hit)} (${h.pointers.toFixed(2)} pointers / prompt) | ${pct(h.falseFire)} |`,
    '',
  ];
  if (r.probe) {
    lines.push(
      `Decay probe (\`--decay-probe\`): the ${r.probe.files.toLocaleString('en-US')} notes rewritten as \`lesson_learned\` with \`updated\` spread over two years (unrelated to relevance), searched again:`,
      '',
      '| git-kb search | recall@1 | recall@5 | recall@10 | MRR |',
      '|---|---|---|---|---|',
      `| decay off | ${pct(r.probe.off.r1)} | ${pct(r.probe.off.r5)} | ${pct(r.probe.off.r10)} | ${r.probe.off.mrr.toFixed(3)} |`,
      `| decay on (defaults) | ${pct(r.probe.on.r1)} | ${pct(r.probe.on.r5)} | ${pct(r.probe.on.r10)} | ${r.probe.on.mrr.toFixed(3)} |`,
      '',
      `With decay on, the expected note ranks lower on ${r.probe.worse} queries and higher on ${r.probe.better}.`,
      '',
    );
  }
  const notes = [];
  notes.push(`Head to head: BM25 ranks the answer first where git-kb has none in its top 10 on ${r.headToHead.bm25FirstKbMissed} queries; the reverse on ${r.headToHead.kbFirstBm25Missed}.`);
  const styles = Object.entries(h.byStyle);
  if (styles.length) notes.push(`Hook hit rate by query style: ${styles.map(([st, v]) => `${st} ${pct(v.hit)} of ${v.n}`).join(', ')}.`);
  notes.push(`False fires by kind: ${Object.entries(h.byWhy).map(([w, [f, n]]) => `${w} ${f}/${n}`).join(', ')}.`);
  const tm = r.timing;
  notes.push(`Time: import ${sec(tm.importMs)}, first search (index build) ${sec(tm.firstSearchMs)}, searches ${sec(tm.searchMs)} (${tm.perSearchMs.toFixed(0)} ms each), BM25 build ${sec(tm.bmBuildMs)} and queries ${sec(tm.bmQueryMs)}, hook index ${sec(tm.hookIndexMs)}, hook runs ${sec(tm.hookMs)} (${tm.perHookMs.toFixed(0)} ms each); ${sec(tm.totalMs)} in all.`);
  return [...lines, ...notes].join('\n');
}

const keys = corpusArg === 'both' ? ['til', 'tldr'] : [corpusArg];
const started = now();
const results = [];
fs.mkdirSync(WORK, { recursive: true });
for (const key of keys) {
  console.error(`retrieval: ${key} ...`);
  const r = await runCorpus(key);
  results.push(r);
  fs.writeFileSync(path.join(WORK, `retrieval-${key}.json`), `${JSON.stringify(r, null, 2)}\n`);
  console.log(`\n${table(r)}\n`);
  // Misses of git-kb search that BM25 ranks first: input for tuning (console only).
  const misses = r.rows.filter((x) => x.bm25.rank === 1 && x.kb.rank !== 1);
  console.log(`git-kb misses at rank 1 where BM25 is right (${misses.length}):`);
  for (const m of misses) console.log(`  "${m.query}" -> ${m.expect[0]}${m.expect.length > 1 ? ` (+${m.expect.length - 1})` : ''}; git-kb rank ${m.kb.rank || '>10'}, first ${m.kb.top[0] ?? '(nothing)'}`);
}
const totalMs = now() - started;

if (write) {
  const file = path.join(ROOT, 'bench', 'RESULTS.md');
  const body = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()} by \`node bench/retrieval.mjs --corpus ${corpusArg}${decayProbe ? ' --decay-probe' : ''}\` (${sec(totalMs)}; load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}).`,
    '',
    'Known-item queries over the real corpora, each imported into a fresh data repo by `git-kb import DIR --tags-from-folders --redact`.',
    '**git-kb search**: one `git-kb search QUERY --limit 10 --json` process per query; link neighbours (`via`) not counted; MRR within the top 10.',
    `**BM25 reference** (\`bench/lib/bm25.mjs\`, no git-kb code, over the corpus files): Okapi BM25F with weighted term frequencies, k1 ${K1}, b ${B} per field, weights title ${WEIGHTS.title} / tags ${WEIGHTS.tags} / body ${WEIGHTS.body} (title: the first \`# \` heading; tags: the folder, as \`--tags-from-folders\`), lower-cased terms split on non-alphanumerics, Porter stems (npm \`stemmer\`), Lucene's ${STOP_WORDS.size} English stop words, OR of the query's terms.`,
    '**Prompt hook**: `node bin/git-kb-hook prompt` with a UserPromptSubmit payload on stdin, a new session id per prompt. Hit rate: share of firing prompts with an expected entry among the pointers; false fire: share of silent prompts with any pointer. An `expect` list counts any one of its pages.',
    'Targets on tldr-pages (the hook was not tuned on it): hook hit rate >= 60%, false fire <= 5%; and git-kb search above the BM25 reference on every column.',
    '',
    ...results.map(table).flatMap((t) => [t, '']),
    'Every query\'s ranks and top results: `bench/.work/retrieval-<corpus>.json` after a run.',
  ].join('\n');
  if (corpusArg !== 'both') console.error('note: the section is written from this corpus only');
  writeSection(file, 'Retrieval', body);
}
console.error(`retrieval: ${sec(totalMs)}`);
