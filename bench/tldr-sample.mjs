// The seeded draws of tldr-pages that the tldr query sets were written from (kept so the draws can be checked).
//
// draw(): bench/data/tldr-queries.json. Stratified: 65 pages of common/, 40 of linux/, 25 of osx/, each a uniform
// draw without replacement (mulberry32, seed 20261129) among the pages that are not bare aliases ("This command is
// an alias of ..." pages have no content of their own to describe). Prints one path a line.
//
// drawNatural(): bench/data/tldr-natural-queries.json. The same, with seed 20261205, 40 common / 25 linux / 15 osx,
// also excluding every page in any `expect` of tldr-queries.json (so the two sets share no page). Each drawn page
// gets its style from its draw position before it is read: index % 3 === 2 is `unnamed` (the prompt does not name
// the tool), the rest `named`. Prints `path<TAB>style` a line.
//
//   node bench/tldr-sample.mjs
//   node bench/tldr-sample.mjs --natural
import fs from 'node:fs';
import path from 'node:path';

export const TLDR = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'tldr-pages');
const SEED = 20261129;
const COUNTS = { common: 65, linux: 40, osx: 25 };
const NATURAL_SEED = 20261205;
const NATURAL_COUNTS = { common: 40, linux: 25, osx: 15 };

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function stratified(seed, counts, exclude = new Set()) {
  const rand = mulberry32(seed);
  const out = [];
  for (const [folder, n] of Object.entries(counts)) {
    const pages = fs
      .readdirSync(path.join(TLDR, folder))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .filter((f) => !exclude.has(`${folder}/${f}`))
      .filter((f) => !/This command is an alias of/.test(fs.readFileSync(path.join(TLDR, folder, f), 'utf8')));
    for (let i = 0; i < n; i++) out.push(`${folder}/${pages.splice(Math.floor(rand() * pages.length), 1)[0]}`);
  }
  return out;
}

export function draw() {
  return stratified(SEED, COUNTS);
}

export function drawNatural() {
  const rows = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'data', 'tldr-queries.json'), 'utf8'));
  const exclude = new Set(rows.flatMap((r) => r.expect));
  return stratified(NATURAL_SEED, NATURAL_COUNTS, exclude).map((page, i) => ({
    page,
    style: i % 3 === 2 ? 'unnamed' : 'named',
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--natural')) console.log(drawNatural().map((d) => `${d.page}\t${d.style}`).join('\n'));
  else console.log(draw().join('\n'));
}
