// The scanner runs its costliest regexes only where a match can start (src/core/secrets/candidates.ts). Each
// such scan must give exactly what a plain global scan gives: compared here on real notes of both corpora, the
// secret battery, and generated text built to sit on the edges (runs at the length limits, `=` padding, `--`
// flags, key words deep inside long words, `$` before a key).
import { describe, expect, it } from 'vitest';
import { matchesAt, type CandidateScan } from '../src/core/secrets/candidates.js';
import { ASSIGN_SCAN } from '../src/core/secrets/context.js';
import { BASE64_SCAN, findSecrets } from '../src/core/secrets/scan.js';
import { SAFE_TEXTS, SECRET_BATTERY } from './fixtures/secrets.js';
import { corpusNotes, hasCorpus } from './helpers/corpus.js';

/** A deterministic generator of edge-case text. */
function generated(count: number): string[] {
  let seed = 12345;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = ['password', 'Pass', 'pwd', 'token', 'KEY', 'auth', 'cred', 'secret', '--', '-', '_', '.', '$', '=', ':', ':=', '=>', ' ', '\t', '\n', '"', "'", '\\"', 'x', 'db', 'api', 'A1b2C3d4E5f6', '==', '===', '+/', 'sk-', 'ghp_'];
  const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-';
  const out: string[] = [];
  for (let t = 0; t < count; t++) {
    let s = '';
    while (s.length < 400) {
      const r = rnd(10);
      if (r < 6) s += pieces[rnd(pieces.length)];
      else {
        // a run of base64 characters around the limits that matter (24, 60, 80, 8192)
        const n = [23, 24, 25, 59, 60, 61, 79, 80, 81, 8191, 8192, 8193][rnd(12)]!;
        for (let i = 0; i < n; i++) s += b64[rnd(b64.length)];
      }
    }
    out.push(s);
  }
  return out;
}

const texts = [
  ...corpusNotes('jbranchaud-til', 3).map((n) => n.text),
  ...corpusNotes('tldr-pages', 7).map((n) => n.text),
  ...SECRET_BATTERY.map((b) => b.text),
  ...SAFE_TEXTS,
  ...generated(400),
];

function same(scan: CandidateScan, text: string): void {
  const plain = [...text.matchAll(scan.re)].map((m) => [m.index, m[0]]);
  const fast = [...matchesAt(text, scan)].map((m) => [m.index, m[0]]);
  expect(fast).toEqual(plain);
}

describe('candidate scans match the plain global scan', () => {
  it.skipIf(!hasCorpus)('has the real notes to compare on', () => {
    expect(texts.length).toBeGreaterThan(700);
  });

  it.each([
    ['assignments', ASSIGN_SCAN],
    ['base64 runs', BASE64_SCAN],
  ] as const)('%s: match for match', (_name, scan) => {
    let matches = 0;
    for (const t of texts) {
      same(scan, t);
      matches += [...t.matchAll(scan.re)].length;
    }
    expect(matches).toBeGreaterThan(hasCorpus ? 50 : 10); // the comparison saw real matches, not only empty scans
  });

  it('the whole scanner still finds a secret on every edge the generator makes', () => {
    // a key word 70 characters into a word is past the lookahead's reach; at 50 it is found
    expect(findSecrets(`${'a'.repeat(50)}_password="hunter2Xy9!"`)).toHaveLength(1);
    expect(findSecrets(`${'a'.repeat(70)}_password="hunter2Xy9!"`)).toHaveLength(0);
    expect(findSecrets('--db-password "Zq8!vLm2#Rt"')).toHaveLength(1);
  });
});
