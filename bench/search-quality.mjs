// Search quality on known-item queries: imports the real corpus into a fresh data repo, runs every query of
// bench/data/search-queries.json through `git-kb search --json` (a process each, as a user would), and reports
// recall@1/5/10 and MRR. Writes the "Search quality" section of bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS } from './lib/corpus.mjs';
import { machine, writeSection } from './lib/measure.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'bin', 'git-kb');
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-quality-'));
const data = path.join(home, 'data');
const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_KB_DATA: data };

function kb(args) {
  const r = spawnSync(process.execPath, [CLI, ...args, '--json'], { env, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`git-kb ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const imported = kb(['import', CORPUS, '--tags-from-folders', '--redact']);
const idOf = new Map(imported.entries.map((e) => [e.source, e.id]));
const queries = JSON.parse(fs.readFileSync(path.join(ROOT, 'bench', 'data', 'search-queries.json'), 'utf8'));
let r1 = 0, r5 = 0, r10 = 0, rr = 0;
const misses = [];
for (const q of queries) {
  const want = idOf.get(q.expect);
  if (!want) throw new Error(`expected note not imported: ${q.expect}`);
  const { results } = kb(['search', q.query, '--limit', '10']);
  const rank = results.filter((h) => !h.via).findIndex((h) => h.id === want) + 1;
  if (rank === 1) r1++;
  if (rank >= 1 && rank <= 5) r5++;
  if (rank >= 1 && rank <= 10) r10++;
  if (rank >= 1) rr += 1 / rank;
  else misses.push(q);
}
const n = queries.length;
const pct = (x) => `${((100 * x) / n).toFixed(1)}%`;
const body = `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()} by \`node bench/search-quality.mjs\`.

${n} hand-written known-item queries (\`bench/data/search-queries.json\`: paraphrases, symptoms, commands from the
body, a few typos and prefixes) over the 1,871 notes of jbranchaud-til, imported with \`--tags-from-folders\`.
Each query is one \`git-kb search QUERY --limit 10\` process; link neighbours (\`via\`) are not counted.

| recall@1 | recall@5 | recall@10 | MRR |
|---|---|---|---|
| ${pct(r1)} | ${pct(r5)} | ${pct(r10)} | ${(rr / n).toFixed(3)} |

Not in the top 10 (${misses.length}): ${misses.slice(0, 12).map((q) => `"${q.query}"`).join(', ')}${misses.length > 12 ? ', ...' : ''}.`;
console.log(body);
if (!process.argv.includes('--no-write')) writeSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'Search quality', body);
fs.rmSync(home, { recursive: true, force: true });
