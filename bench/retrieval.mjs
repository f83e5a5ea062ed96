// Retrieval benchmark over four corpora of real notes by other people (bench/lib/sets.mjs): git-kb search against
// a plain BM25 reference (bench/lib/bm25.mjs), and the prompt hook's hit rate, false fires and pointers.
//
// For each corpus: a temp HOME and a fresh data repo, `git-kb import DIR --tags-from-folders --redact --json`;
//   - git-kb search: one `git-kb search QUERY --limit 10 --json` process per query (as a user or an agent runs
//     it), over the corpus's search queries and over its answerable prompts as typed (the raw prompt is the
//     query); link neighbours (`via`) are not counted; recall@1/5/10 and MRR (reciprocal rank within the top 10);
//   - BM25 reference: the same queries, in process, over the corpus files read directly (no git-kb code);
//   - prompt hook: `node bin/git-kb-hook prompt` with a UserPromptSubmit payload on stdin, a new session id per
//     prompt (the dedup ledger never silences it). Hit: an expected entry among the pointer lines. False fire:
//     any pointer on a prompt no note answers: the corpus's own silent prompts (on-domain and near misses, and
//     the older mechanical, short and off-topic sets) and the other corpora's answerable prompts (cross).
//     The hook's prompt index is built by a first prompt (and its background builder) before measuring.
// An `expect` list means any one of its pages counts. The hook's bars are chosen on jbranchaud-til only
// (bench/hook-tune.mjs); corpus4 (long pages) is for developing, corpus3 is for testing only.
//
//   node bench/retrieval.mjs [--corpus til,tldr,corpus4,corpus3] [--no-write] [--decay-probe]
// Writes the "Retrieval" section of bench/RESULTS.md (unless --no-write) and, per corpus, every query's ranks
// to bench/.work/retrieval-<corpus>.json.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bm25Index, readNotes, STOP_WORDS, WEIGHTS, K1, B } from './lib/bm25.mjs';
import { ftsIndex } from './lib/fts5.mjs';
import { machine, writeSection } from './lib/measure.mjs';
import { cleanEnv, corpora, importCorpus, rankSummary as summary } from './lib/sets.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'bin', 'git-kb');
const HOOK = path.join(ROOT, 'bin', 'git-kb-hook');
const WORK = path.join(ROOT, 'bench', '.work');

const argv = process.argv.slice(2);
const corpusArg = argv.includes('--corpus') ? argv[argv.indexOf('--corpus') + 1] : 'til,tldr,corpus4,corpus3';
const write = !argv.includes('--no-write');
const decayProbe = argv.includes('--decay-probe');

const now = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));


async function runCorpus(c) {
  const key = c.key;
  const t0 = now();
  const home = fs.mkdtempSync(path.join(os.tmpdir(), `gkb-retrieval-${key}-`));
  const data = path.join(home, 'data');
  const env = cleanEnv(home, { GIT_KB_DATA: data });
  const kb = (args) => {
    const r = spawnSync(process.execPath, [CLI, ...args, '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`git-kb ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  try {
    // Import.
    let t = now();
    const { imported, idOf, sourceOf } = importCorpus(c, data, env);
    const importMs = now() - t;

    // git-kb search, a process per query (the first one, untimed, builds the search index): the search queries,
    // then the answerable prompts as typed where they are another set.
    t = now();
    kb(['search', 'warm up the index', '--limit', '1']);
    const firstSearchMs = now() - t;
    const searchSets = [['queries', c.queries.map((q) => ({ query: q.query, expect: q.expect, style: q.style }))]];
    if (c.answerable.some((f, i) => f.prompt !== c.queries[i]?.query)) searchSets.push(['prompts', c.answerable.map((f) => ({ query: f.prompt, expect: f.expect }))]);
    for (const m of c.more ?? []) if (m.rows[0]?.expect) searchSets.push([m.name, m.rows.map((f) => ({ query: f.prompt, expect: f.expect, style: f.style }))]);
    t = now();
    let searches = 0;
    const kbRows = {};
    for (const [name, qs] of searchSets) {
      kbRows[name] = qs.map((q) => {
        const want = new Set(q.expect.map((p) => idOf.get(p)));
        const hits = kb(['search', q.query, '--limit', '10']).results.filter((h) => !h.via);
        searches++;
        return { rank: hits.findIndex((h) => want.has(h.id)) + 1, top: hits.slice(0, 3).map((h) => sourceOf.get(h.id) ?? h.id) };
      });
    }
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
    const bmRows = Object.fromEntries(
      searchSets.map(([name, qs]) => [
        name,
        qs.map((q) => {
          const want = new Set(q.expect);
          const hits = bm.search(q.query, 10);
          return { rank: hits.findIndex((h) => want.has(h.path)) + 1, top: hits.slice(0, 3).map((h) => h.path) };
        }),
      ]),
    );
    const bmQueryMs = now() - t;
    // The FTS5 reference, where this Node has node:sqlite (22.5 and later).
    const fts = ftsIndex(notes);
    const ftsRows = fts && Object.fromEntries(searchSets.map(([name, qs]) => [name, qs.map((q) => ({ rank: fts.search(q.query, 10).findIndex((h) => q.expect.includes(h.path)) + 1 }))]));

    // Prompt hook: build its index with a first prompt (a large repo gets a background builder), then measure.
    const runHook = (prompt, session) => {
      const payload = { session_id: session, transcript_path: path.join(home, 'no-transcript.jsonl'), cwd: home, hook_event_name: 'UserPromptSubmit', prompt };
      const r = spawnSync(process.execPath, [HOOK, 'prompt'], { env, input: JSON.stringify(payload), encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`hook exited ${r.status}: ${r.stderr}`);
      if (!r.stdout.trim()) return { ids: [], chars: 0 };
      const context = JSON.parse(r.stdout).hookSpecificOutput?.additionalContext ?? '';
      return { ids: [...context.matchAll(/^- (kb-[0-9a-z]+) — /gm)].map((m) => m[1]).filter((id) => sourceOf.has(id)), chars: context.length };
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
    const answer = (rows) =>
      rows.map((f) => {
        const { ids, chars } = runHook(f.prompt, sid());
        const want = new Set(f.expect.map((p) => idOf.get(p)));
        return { hit: ids.some((id) => want.has(id)), pointers: ids.length, chars, shown: ids.map((id) => sourceOf.get(id)) };
      });
    const firingRows = answer(c.answerable);
    const negative = (rows) =>
      rows.map((s) => {
        const { ids, chars } = runHook(s.prompt, sid());
        return { why: s.why, fired: ids.length > 0, pointers: ids.length, chars, shown: ids.map((id) => sourceOf.get(id)) };
      });
    const silentRows = negative(c.silent);
    const crossRows = negative(c.cross);
    const moreRows = (c.more ?? []).map((m) => (m.rows[0]?.expect ? answer(m.rows) : negative(m.rows)));
    const hookMs = now() - t;
    const hookRuns = firingRows.length + silentRows.length + crossRows.length + moreRows.flat().length;
    const rate = (rows) => (rows.length ? rows.filter((r) => r.fired).length / rows.length : NaN);
    const ownKinds = new Set(['near-miss', 'on-domain']);
    const fires = [...firingRows, ...silentRows, ...crossRows].filter((r) => r.pointers > 0);

    const result = {
      probe,
      key,
      name: c.name,
      sets: c.sets,
      testOnly: !!c.testOnly,
      entries: imported.imported,
      redacted: imported.redacted.length,
      search: Object.fromEntries(searchSets.map(([name, qs]) => [name, { n: qs.length, kb: summary(kbRows[name].map((r) => r.rank)), bm25: summary(bmRows[name].map((r) => r.rank)), ...(ftsRows ? { fts5: summary(ftsRows[name].map((r) => r.rank)) } : {}) }])),
      hook: {
        firing: firingRows.length,
        hit: firingRows.filter((r) => r.hit).length / firingRows.length,
        ownSilent: silentRows.filter((r) => ownKinds.has(r.why)).length,
        ownFalse: rate(silentRows.filter((r) => ownKinds.has(r.why))),
        olderSilent: silentRows.filter((r) => !ownKinds.has(r.why)).length,
        olderFalse: rate(silentRows.filter((r) => !ownKinds.has(r.why))),
        cross: crossRows.length,
        crossFalse: rate(crossRows),
        perFiring: perFiring(fires),
        charsPerFiring: fires.length ? fires.reduce((s, r) => s + r.chars, 0) / fires.length : 0,
        byStyle: byStyle(c.answerable, firingRows),
        more: Object.fromEntries(
          (c.more ?? []).map((m, k) => [
            m.name,
            m.rows[0]?.expect
              ? { n: m.rows.length, hit: moreRows[k].filter((r) => r.hit).length / m.rows.length, perFiring: perFiring(moreRows[k]), byStyle: byStyle(m.rows, moreRows[k]) }
              : { n: m.rows.length, falseFire: rate(moreRows[k]), perFiring: perFiring(moreRows[k]), byWhy: byWhyOf(moreRows[k]) },
          ]),
        ),
        byWhy: byWhyOf([...silentRows, ...crossRows]),
      },
      headToHead: {
        bm25FirstKbMissed: kbRows.queries.filter((r, i) => bmRows.queries[i].rank === 1 && r.rank === 0).length,
        kbFirstBm25Missed: kbRows.queries.filter((r, i) => r.rank === 1 && bmRows.queries[i].rank === 0).length,
      },
      timing: { importMs, firstSearchMs, searchMs, perSearchMs: searchMs / searches, bmBuildMs, bmQueryMs, hookIndexMs, hookMs, perHookMs: hookMs / hookRuns, totalMs: 0 },
      rows: Object.fromEntries(searchSets.map(([name, qs]) => [name, qs.map((q, i) => ({ query: q.query, style: q.style, expect: q.expect, kb: kbRows[name][i], bm25: bmRows[name][i] }))])),
      hookRows: [...c.answerable.map((f, i) => ({ prompt: f.prompt, expect: f.expect, ...firingRows[i] })), ...(c.more ?? []).flatMap((m, k) => m.rows.map((f, i) => ({ set: m.name, prompt: f.prompt, ...(f.expect ? { expect: f.expect } : {}), ...moreRows[k][i] }))), ...c.silent.map((s, i) => ({ prompt: s.prompt, ...silentRows[i] })), ...c.cross.map((s, i) => ({ prompt: s.prompt, ...crossRows[i] }))],
    };
    result.timing.totalMs = now() - t0;
    return result;
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Hit rate per query style, where the rows have styles. */
const byStyle = (asked, rows) =>
  Object.fromEntries(
    [...new Set(asked.map((f) => f.style).filter(Boolean))].map((st) => {
      const mine = rows.filter((_, i) => asked[i].style === st);
      return [st, { n: mine.length, hit: mine.filter((r) => r.hit).length / mine.length }];
    }),
  );
/** Per kind of negative (`why`): [prompts that got a pointer, prompts]. */
const byWhyOf = (rows) => Object.fromEntries([...new Set(rows.map((s) => s.why))].map((w) => [w, [rows.filter((r) => r.fired && r.why === w).length, rows.filter((s) => s.why === w).length]]));
/** Pointers per prompt that got any. */
function perFiring(rows) {
  const fired = rows.filter((r) => r.pointers > 0);
  return fired.length ? fired.reduce((s, r) => s + r.pointers, 0) / fired.length : 0;
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;

const pctOr = (x) => (Number.isNaN(x) ? '–' : pct(x));

/** The summary table: one row per corpus. */
function overview(results) {
  const lines = [
    '| corpus | entries | hook hit rate | false fire: own on-domain | false fire: cross | false fire: older sets | pointers / firing | characters / firing |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const h = r.hook;
    lines.push(`| ${r.name}${r.key === 'til' ? ' (bars chosen here)' : r.key === 'corpus4' ? ' (development, long pages)' : r.testOnly ? ' (testing only)' : ''} | ${r.entries.toLocaleString('en-US')} | ${pct(h.hit)} of ${h.firing} | ${pctOr(h.ownFalse)} of ${h.ownSilent} | ${pctOr(h.crossFalse)} of ${h.cross} | ${pctOr(h.olderFalse)} of ${h.olderSilent} | ${h.perFiring.toFixed(2)} | ${h.charsPerFiring.toFixed(0)} |`);
  }
  lines.push('', '| corpus | query set | system | recall@1 | recall@5 | recall@10 | MRR |', '|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const [name, s] of Object.entries(r.search)) {
      const label = name === 'queries' ? `${s.n} queries` : name === 'prompts' ? `${s.n} raw prompts` : `${s.n} ${name} prompts`;
      for (const [sys, x] of [['git-kb search', s.kb], ['BM25 reference', s.bm25], ['SQLite FTS5', s.fts5]]) if (x) lines.push(`| ${r.name} | ${label} | ${sys} | ${pct(x.r1)} | ${pct(x.r5)} | ${pct(x.r10)} | ${x.mrr.toFixed(3)} |`);
    }
  }
  return lines.join('\n');
}

function table(r) {
  const h = r.hook;
  const lines = [`**${r.name}**: ${r.entries.toLocaleString('en-US')} entries imported (${r.redacted} notes with secret-shaped values redacted); query sets (bench/data/): ${r.sets}; ${h.cross} cross-corpus negatives.`, ''];
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
  notes.push(`Head to head (search queries): BM25 ranks the answer first where git-kb has none in its top 10 on ${r.headToHead.bm25FirstKbMissed} queries; the reverse on ${r.headToHead.kbFirstBm25Missed}.`);
  const styles = Object.entries(h.byStyle);
  if (styles.length) notes.push(`Hook hit rate by query style: ${styles.map(([st, v]) => `${st} ${pct(v.hit)} of ${v.n}`).join(', ')}.`);
  for (const [name, m] of Object.entries(h.more ?? {})) {
    if (m.falseFire !== undefined) {
      notes.push(`False fires on the ${m.n} ${name} prompts (reported apart, not in the table's figure): ${pct(m.falseFire)} (${Object.entries(m.byWhy).map(([w, [f, n]]) => `${w} ${f}/${n}`).join(', ')}).`);
      continue;
    }
    const st = Object.entries(m.byStyle);
    notes.push(`Hook hit rate on the ${m.n} ${name} prompts (reported apart, not in the table's figure): ${pct(m.hit)}${st.length ? ` (${st.map(([k, v]) => `${k} ${pct(v.hit)} of ${v.n}`).join(', ')})` : ''}, ${m.perFiring.toFixed(2)} pointers per firing.`);
  }
  notes.push(`False fires by kind: ${Object.entries(h.byWhy).map(([w, [f, n]]) => `${w} ${f}/${n}`).join(', ')}.`);
  const tm = r.timing;
  notes.push(`Time: import ${sec(tm.importMs)}, first search (index build) ${sec(tm.firstSearchMs)}, searches ${sec(tm.searchMs)} (${tm.perSearchMs.toFixed(0)} ms each), BM25 build ${sec(tm.bmBuildMs)} and queries ${sec(tm.bmQueryMs)}, hook index ${sec(tm.hookIndexMs)}, hook runs ${sec(tm.hookMs)} (${tm.perHookMs.toFixed(0)} ms each); ${sec(tm.totalMs)} in all.`);
  return [...lines, ...notes].join('\n');
}

const list = corpora(corpusArg.split(','));
const started = now();
const results = [];
fs.mkdirSync(WORK, { recursive: true });
for (const c of list) {
  console.error(`retrieval: ${c.key} ...`);
  const r = await runCorpus(c);
  results.push(r);
  fs.writeFileSync(path.join(WORK, `retrieval-${c.key}.json`), `${JSON.stringify(r, null, 2)}\n`);
  console.log(`\n${table(r)}\n`);
}
console.log(`\n${overview(results)}\n`);
const totalMs = now() - started;

if (write) {
  const file = path.join(ROOT, 'bench', 'RESULTS.md');
  const body = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()} by \`node bench/retrieval.mjs --corpus ${corpusArg}${decayProbe ? ' --decay-probe' : ''}\` (${sec(totalMs)}; load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}).`,
    '',
    'Known-item queries over the real corpora, each imported into a fresh data repo by `git-kb import DIR --tags-from-folders --redact`.',
    '**git-kb search**: one `git-kb search QUERY --limit 10 --json` process per query; link neighbours (`via`) not counted; MRR within the top 10.',
    `**BM25 reference** (\`bench/lib/bm25.mjs\`, no git-kb code, over the corpus files): Okapi BM25F with weighted term frequencies, k1 ${K1}, b ${B} per field, weights title ${WEIGHTS.title} / tags ${WEIGHTS.tags} / body ${WEIGHTS.body} (title: a front matter's \`title:\`, else the first \`# \` heading; tags: the folder, as \`--tags-from-folders\`), lower-cased terms split on non-alphanumerics, Porter stems (npm \`stemmer\`), Lucene's ${STOP_WORDS.size} English stop words, OR of the query's terms.`,
    `**SQLite FTS5** (\`bench/lib/fts5.mjs\`, the reference of the issue's held-out figures; only where the bench runs on a Node with \`node:sqlite\`, 22.5 or later): title, tags and body columns with the \`porter\` tokenizer, \`bm25()\` weights title 5 / tags 3 / body 1 (each column's term frequency weighted, normalised by the row's whole length; k1 1.2, b 0.75), OR of the query's words.`,
    '**Prompt hook**: `node bin/git-kb-hook prompt` with a UserPromptSubmit payload on stdin, a new session id per prompt. Hit rate: share of answerable prompts with an expected entry among the pointers; false fire: share of prompts no note answers that get any pointer: own on-domain (everyday coding prompts on subjects the notes lack, most of them near misses sharing a tool or word with some note), cross (the other corpora\'s answerable prompts, kept where reading the best candidates showed no note answers), older sets (mechanical, short and off-topic prompts). Pointers and characters: per prompt that got any pointer. The hook\'s bars were chosen on jbranchaud-til alone (bench/hook-tune.mjs); how a page with sections is read (by its top-level sections, each alone and with the opening one) and search\'s \`b\` on corpus4, a development corpus of long pages; corpus3 is for testing only.',
    'Targets on every corpus: hook hit rate >= 60%, false fires <= 5% on own on-domain and on cross negatives, at most 3 pointers; git-kb search at or above the BM25 reference on recall@1, @5, @10 and MRR.',
    '',
    overview(results),
    '',
    ...results.map(table).flatMap((t) => [t, '']),
    'Every query\'s ranks and top results: `bench/.work/retrieval-<corpus>.json` after a run.',
  ].join('\n');
  if (list.length < 4) console.error('note: the section is written from these corpora only');
  writeSection(file, 'Retrieval', body);
}
console.error(`retrieval: ${sec(totalMs)}`);
