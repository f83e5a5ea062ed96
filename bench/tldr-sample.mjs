// The seeded draw of tldr-pages that bench/data/tldr-queries.json was written from (kept so the draw can be
// checked). Stratified: 65 pages of common/, 40 of linux/, 25 of osx/, each a uniform draw without replacement
// (mulberry32, seed 20261129) among the pages that are not bare aliases ("This command is an alias of ..."
// pages have no content of their own to describe). Prints one path a line.
//
//   node bench/tldr-sample.mjs
import fs from 'node:fs';
import path from 'node:path';

export const TLDR = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'tldr-pages');
const SEED = 20261129;
const COUNTS = { common: 65, linux: 40, osx: 25 };

function mulberry32(a) {
  return () => {
    a |= 0;
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function draw() {
  const rand = mulberry32(SEED);
  const out = [];
  for (const [folder, n] of Object.entries(COUNTS)) {
    const pages = fs
      .readdirSync(path.join(TLDR, folder))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .filter((f) => !/This command is an alias of/.test(fs.readFileSync(path.join(TLDR, folder, f), 'utf8')));
    for (let i = 0; i < n; i++) out.push(`${folder}/${pages.splice(Math.floor(rand() * pages.length), 1)[0]}`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(draw().join('\n'));
