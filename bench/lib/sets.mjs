// The three corpora of the retrieval benchmarks and their query sets (bench/data/README.md), and each imported
// into a data repo the way a user imports notes (`git-kb import DIR --tags-from-folders --redact`).
//
// Per corpus:
//   queries      known-item search queries ({query, expect})
//   answerable   prompts one of whose `expect` notes answers them (the hook should point there)
//   silent       prompts no note answers, own: {prompt, why}, why one of mechanical, short, off-topic
//                (the first sets), near-miss or on-domain (everyday coding prompts on subjects the notes lack)
//   cross        other corpora's answerable prompts, kept where reading the best candidates showed that no note of
//                this corpus answers them ({prompt, why: 'cross:<from>'})
//   more         further sets reported beside the first ones, not mixed into their figures: answerable
//                ([{name, rows: [{prompt, expect, style}]}]) or, with no `expect`, silent ([{name, rows: [{prompt, why}]}])
// `tuning: true` marks the one corpus the hook's bars are chosen on; corpus3 is for testing only; corpus4 (long pages
// with headings) is a development corpus.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const DATA = path.join(ROOT, 'bench', 'data');
export const WORK = path.join(ROOT, 'bench', '.work');
const SHARED = path.resolve(ROOT, '..', 'shared', 'corpus');
const CLI = path.join(ROOT, 'bin', 'git-kb');

const readJson = (f) => JSON.parse(fs.readFileSync(path.join(DATA, f), 'utf8'));
const maybeJson = (f) => (fs.existsSync(path.join(DATA, f)) ? readJson(f) : undefined);
const list = (x) => (Array.isArray(x) ? x : [x]);

/**
 * Cross-corpus negatives: every `<from>-on-<to>` list of the cross-negatives files, for corpus `to`. The prompts of
 * a corpus that is for testing only (TEST_ONLY) are left out unless `withTest`: choosing a parameter must not see
 * them, even as another corpus's negatives.
 */
export const TEST_ONLY = new Set(['corpus3']);
function crossFor(to, withTest) {
  const out = [];
  for (const f of ['cross-negatives.json', 'cross-negatives-3.json', 'cross-negatives-4.json']) {
    const d = maybeJson(f);
    if (!d) continue;
    for (const [k, rows] of Object.entries(d)) {
      const m = /^(\w+)-on-(\w+)$/.exec(k);
      if (m && m[2] === to && (withTest || !TEST_ONLY.has(m[1]))) for (const r of rows) out.push({ prompt: r.prompt, why: `cross:${m[1]}` });
    }
  }
  return out;
}

const onDomain = (f) => (maybeJson(f) ?? []).map((s) => ({ prompt: s.prompt, why: s.kind === 'near-miss' ? 'near-miss' : 'on-domain' }));

/**
 * A corpus laid out under bench/data/<key>/ (one folder of notes, its README beside it) with its query sets
 * `<key>-queries.json` (search, and answerable) and `<key>-silent.json` (silent: near-miss, on-domain); undefined
 * when the folder is not there.
 */
function folderCorpus(key, withTest) {
  const root = path.join(DATA, key);
  const folders = fs.existsSync(root) ? fs.readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()) : [];
  if (folders.length !== 1) return undefined;
  const queries = (maybeJson(`${key}-queries.json`) ?? []).map((q) => ({ query: q.query, expect: list(q.expect), style: q.style }));
  return {
    key,
    name: folders[0].name,
    testOnly: TEST_ONLY.has(key),
    dir: path.join(root, folders[0].name),
    queries,
    answerable: queries.map((q) => ({ prompt: q.query, expect: q.expect, style: q.style })),
    silent: onDomain(`${key}-silent.json`),
    cross: crossFor(key, withTest),
    sets: `\`${key}-queries.json\` (search, and answerable), \`${key}-silent.json\` (silent: near-miss, on-domain)`,
  };
}

export const CORPORA = {
  til: (withTest) => {
    const hook = readJson('hook-prompts.json');
    return {
      key: 'til',
      name: 'jbranchaud-til',
      tuning: true,
      dir: path.join(SHARED, 'jbranchaud-til'),
      queries: readJson('search-queries.json').map((q) => ({ query: q.query, expect: list(q.expect) })),
      answerable: hook.firing.map((f) => ({ prompt: f.prompt, expect: list(f.expect) })),
      silent: [...hook.silent.map((s) => ({ prompt: s.prompt, why: s.why })), ...onDomain('til-silent-ondomain.json')],
      cross: crossFor('til', withTest),
      // Negatives written after the bars were final (README).
      more: [{ name: 'fresh silent', rows: onDomain('til-silent-fresh.json') }],
      sets: '`search-queries.json` (search), `hook-prompts.json` (answerable, and silent: mechanical, short, off-topic), `til-silent-ondomain.json` (silent: near-miss, on-domain), `til-silent-fresh.json` (silent, written after the bars were final, reported apart)',
    };
  },
  tldr: (withTest) => {
    const queries = readJson('tldr-queries.json').map((q) => ({ query: q.query, expect: list(q.expect), style: q.style }));
    return {
      key: 'tldr',
      name: 'tldr-pages',
      dir: path.join(SHARED, 'tldr-pages'),
      queries,
      answerable: queries.map((q) => ({ prompt: q.query, expect: q.expect, style: q.style })),
      silent: [...readJson('tldr-prompts-silent.json').map((s) => ({ prompt: s.prompt, why: s.why === 'programming' || s.why === 'agent-task' ? 'off-domain-coding' : s.why })), ...onDomain('tldr-silent-ondomain.json')],
      cross: crossFor('tldr', withTest),
      // Prompts as users type them, most naming their tool, drawn by `bench/tldr-sample.mjs --natural` (README).
      more: [{ name: 'natural', rows: readJson('tldr-natural-queries.json').map((q) => ({ prompt: q.query, expect: list(q.expect), style: q.named ? 'named' : 'unnamed' })) }],
      sets: '`tldr-queries.json` (search, and answerable), `tldr-natural-queries.json` (search, and answerable, reported apart), `tldr-prompts-silent.json` (silent: programming, agent-task, life), `tldr-silent-ondomain.json` (silent: near-miss, on-domain)',
    };
  },
  corpus3: (withTest) => folderCorpus('corpus3', withTest),
  // A development corpus of long pages with headings (bench/data/corpus4/README.md); unlike corpus3, not TEST_ONLY.
  corpus4: (withTest) => folderCorpus('corpus4', withTest),
};

/**
 * The corpora named (all when none are). `tuning`: for choosing parameters, so a corpus for testing only is refused
 * and its prompts are left out of the others' negatives.
 */
export function corpora(keys = Object.keys(CORPORA), { tuning = false } = {}) {
  return keys.map((k) => {
    if (tuning && TEST_ONLY.has(k)) throw new Error(`${k} is for testing only: bench/retrieval.mjs reports it`);
    const c = CORPORA[k]?.(!tuning);
    if (!c) throw new Error(`no corpus "${k}" (bench/data/${k}/ must hold one folder)`);
    return c;
  });
}

/** An env for git-kb runs under a throwaway HOME (hook-lib.mjs benchEnv uses it with bench/.work/home). */
export function cleanEnv(home, extra = {}) {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(GIT_|KB_|CLAUDE_|XDG_)/.test(k)) env[k] = v;
  return { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com', ...extra };
}

/**
 * The corpus imported into `dir` by `git-kb import DIR --tags-from-folders --redact --json`: returns the import's
 * result, and maps from corpus path to entry id and back. Every expected note of the sets must be imported.
 */
export function importCorpus(c, dir, env) {
  const r = spawnSync(process.execPath, [CLI, '--data', dir, 'import', c.dir, '--tags-from-folders', '--redact', '--json'], { env, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`import of ${c.name} failed: ${r.stderr}`);
  const imported = JSON.parse(r.stdout);
  const idOf = new Map(imported.entries.map((e) => [e.source, e.id]));
  const sourceOf = new Map(imported.entries.map((e) => [e.id, e.source]));
  for (const q of [...c.queries, ...c.answerable, ...(c.more ?? []).flatMap((m) => m.rows.filter((r) => r.expect))]) for (const p of q.expect) if (!idOf.has(p)) throw new Error(`${c.name}: expected note not imported: ${p}`);
  return { imported, idOf, sourceOf };
}

/** The corpus imported once into bench/.work/eval-<key>/ and reused (delete that folder after changing the corpus). */
/** recall@1/5/10 and MRR (top 10) from 1-based ranks (0 = not in the top 10). */
export function rankSummary(ranks) {
  const n = ranks.length;
  const at = (k) => ranks.filter((r) => r >= 1 && r <= k).length / n;
  return { n, r1: at(1), r5: at(5), r10: at(10), mrr: ranks.reduce((s, r) => s + (r >= 1 && r <= 10 ? 1 / r : 0), 0) / n };
}

export function cachedCorpusRepo(c) {
  const root = path.join(WORK, `eval-${c.key}`);
  const meta = path.join(root, 'map.json');
  const data = path.join(root, 'data');
  if (fs.existsSync(meta) && fs.existsSync(path.join(data, '.git'))) {
    const m = JSON.parse(fs.readFileSync(meta, 'utf8'));
    return { dir: data, idOf: new Map(Object.entries(m.idOf)), sourceOf: new Map(Object.entries(m.idOf).map(([s, id]) => [id, s])), entries: m.entries };
  }
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(root, { recursive: true });
  const { imported, idOf, sourceOf } = importCorpus(c, data, cleanEnv(root));
  fs.writeFileSync(meta, JSON.stringify({ idOf: Object.fromEntries(idOf), entries: imported.imported }));
  return { dir: data, idOf, sourceOf, entries: imported.imported };
}
