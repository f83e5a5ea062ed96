// Writes src/core/text/background.ts: how common each word is in developers' text in general, whatever a
// knowledge base holds. The prompt hook discounts a prompt's common words ("add", "test", "error", "file") so
// that a note sharing only those with a prompt is not taken for one about it (spec/hooks.md, "Keyword").
//
// The text is none of the benchmark corpora (jbranchaud-til, tldr-pages, bench/data/corpus3): it is what a
// Debian machine with this project's dev dependencies holds, read in a fixed order:
//   - every markdown file under node_modules/ (READMEs, changelogs and docs of ~190 npm packages),
//   - the comments and docstrings of Python's standard library (/usr/lib/python3.*),
//   - the first 8 KB of every Debian changelog, NEWS and README under /usr/share/doc ("fix crash when ..."),
//   - the Python documentation (python3-doc) and Perl's pod files: tutorials and references,
//   - the fortunes and fortunes-min packages: everyday English, so that "reboot" or "finance" count as ordinary.
// Debian packages it reads beyond a base system: fortunes fortunes-min python3-doc (apt-get install).
// Each text is cut into chunks of 200 words; a word's commonness is the share of chunks holding it, its terms
// taken by the one term pipeline (core/text/terms.ts: stems, function words and numbers out), so they are the
// words a prompt's keywords and a search's terms are looked up by. Kept: words in more than MIN_SHARE of the
// chunks, each with its specificity in hundredths (rounded, at least 1).
//
//   node bench/make-background.mjs      (needs node_modules; rewrite the file, commit it with its sources' counts)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { importTs } from './hook-lib.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'src', 'core', 'text', 'background.ts');
const CHUNK = 200;
const MIN_SHARE = 0.0005;

const { terms, STOP_WORDS } = await importTs('src/core/text/terms.ts');
// Function words out, every other word in (the filler a prompt's keywords drop too: search looks them up).
const keywords = (text) => terms(text, { stop: STOP_WORDS, numbers: false });

function walk(dir, keep, out = []) {
  let list;
  try {
    list = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return out;
  }
  for (const d of list) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) walk(p, keep, out);
    else if (d.isFile() && keep(p)) out.push(p);
  }
  return out;
}

/** Comments and docstrings of a Python file. */
function pythonProse(text) {
  const out = [];
  for (const m of text.matchAll(/("""|''')([\s\S]*?)\1/g)) out.push(m[2]);
  for (const line of text.split('\n')) {
    const t = line.trim();
    if (t.startsWith('#')) out.push(t.slice(1));
  }
  return out.join('\n');
}

const gz = (f, max) => (f.endsWith('.gz') ? execFileSync('zcat', [f], { maxBuffer: 1 << 28 }) : fs.readFileSync(f)).subarray(0, max).toString('utf8');
const python = fs.readdirSync('/usr/lib').filter((d) => /^python3\.\d+$/.test(d)).sort().slice(-1).map((d) => path.join('/usr/lib', d));
const sources = [
  { name: 'npm markdown (every .md file under node_modules)', files: walk(path.join(ROOT, 'node_modules'), (p) => p.endsWith('.md')), read: (f) => fs.readFileSync(f, 'utf8') },
  {
    name: 'Python comments and docstrings (the standard library and /usr/lib/python3/dist-packages)',
    files: [...python, '/usr/lib/python3/dist-packages'].flatMap((d) => walk(d, (p) => p.endsWith('.py'))),
    read: (f) => pythonProse(fs.readFileSync(f, 'utf8')),
  },
  { name: 'Perl documentation (every .pod file under /usr)', files: walk('/usr/share/perl', (p) => p.endsWith('.pod')).concat(walk('/usr/lib/x86_64-linux-gnu/perl', (p) => p.endsWith('.pod'))), read: (f) => fs.readFileSync(f, 'utf8') },
  {
    name: 'Debian package docs (changelog, NEWS and README files under /usr/share/doc, first 8 KB each)',
    files: walk('/usr/share/doc', (p) => /\/(changelog|news|readme)[^/]*$/i.test(p) && !/\.(html|pdf|png)$/i.test(p)),
    read: (f) => gz(f, 8192),
  },
  { name: 'the Python documentation (reST sources of python3-doc)', files: python.flatMap((d) => walk(`/usr/share/doc/${path.basename(d)}/html/_sources`, (p) => p.endsWith('.txt'))), read: (f) => fs.readFileSync(f, 'utf8') },
  { name: 'everyday English (the fortunes and fortunes-min packages)', files: walk('/usr/share/games/fortunes', (p) => !/\.(dat|u8)$/.test(p) && !fs.lstatSync(p).isSymbolicLink()), read: (f) => fs.readFileSync(f, 'utf8') },
];

const df = new Map();
let chunks = 0;
const counts = [];
for (const s of sources) {
  let n = 0;
  for (const f of s.files) {
    let text;
    try {
      text = s.read(f);
    } catch {
      continue;
    }
    const words = keywords(text);
    for (let i = 0; i < words.length; i += CHUNK) {
      for (const w of new Set(words.slice(i, i + CHUNK))) df.set(w, (df.get(w) ?? 0) + 1);
      chunks++;
      n++;
    }
  }
  counts.push(`${s.name}: ${s.files.length} files, ${n} chunks`);
  // A missing source would silently give another background (a word common in it would look rare).
  if (n === 0) {
    console.error(`make-background: no text from ${s.name}; install its packages (apt-get install fortunes fortunes-min python3-doc) and run again`);
    process.exit(1);
  }
}
// The names of the packages under node_modules are left out: their own READMEs made them look common ("vitest",
// "esbuild", "commander"), and the built hook must not name the libraries kept off its path (test/architecture).
const own = new Set();
for (const d of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
  const names = d.startsWith('@') ? fs.readdirSync(path.join(ROOT, 'node_modules', d)) : [d];
  for (const n of names) for (const t of keywords(n.replace(/-/g, ''))) own.add(t);
}
// Specificity: 1 for a word in at most MIN_SHARE of the chunks, falling with the logarithm of its share.
const specificity = (c) => Math.min(1, Math.log(chunks / c) / Math.log(1 / MIN_SHARE));
const kept = [...df].filter(([w, c]) => c / chunks > MIN_SHARE && !own.has(w) && !/isomorphic|minisearch|commander/.test(w) && !/^[0-9a-f]{12,}$/.test(w)).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
const body = kept.map(([w, c]) => `${w} ${Math.max(1, Math.round(100 * specificity(c)))}`).join(';');
const text = `/**
 * Contract: how specific each word is in developers' text in general (spec/hooks.md, "Keyword"), generated by
 * \`node bench/make-background.mjs\`: do not edit by hand. One record per word (a term of terms.ts), each
 * ended by ';', sorted by word: the word and its specificity in hundredths (at least 1), ln(chunks / chunks holding it) / ln(1 / ${MIN_SHARE}), for the
 * ${kept.length} words in more than ${MIN_SHARE * 100}% of the ${CHUNK}-word chunks of that text (a word not listed is rarer: 1).
 * From ${chunks} chunks of:
${counts.map((c) => ` *   - ${c}`).join('\n')}
 * None of it is a benchmark corpus.
 */
export const BACKGROUND = ';${body};';
`;
fs.writeFileSync(OUT, text);
console.log(`${counts.join('\n')}\n${chunks} chunks, ${df.size} words, ${kept.length} kept -> ${path.relative(ROOT, OUT)} (${text.length} bytes)`);
