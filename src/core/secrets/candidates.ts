/**
 * Contract: fast ways to run a scanner regex only where it can match, with the results of a plain global scan
 * (`text.matchAll(re)`), match for match. A regex whose match can only start at a few places the caller finds
 * quickly (a literal, the start of a word run) is tried there alone, sticky: the rest of the text costs a
 * search for the literal instead of a regex attempt, and a lookbehind at every character. Callers prove the
 * equivalence in the comment where they call it; test/secrets-scan-equivalence.test.ts compares the two
 * scans on real notes and adversarial text. Pure.
 */

/** A global scanner regex and where its matches can start in a text (ascending positions). */
export interface CandidateScan {
  /** The regex as a plain global scan would run it (the reference the tests compare with). */
  re: RegExp;
  starts: (text: string) => Iterable<number>;
  /** The sticky twin of `re`, tried at each start. */
  at: RegExp;
}

export function candidateScan(re: RegExp, starts: (text: string) => Iterable<number>): CandidateScan {
  return { re, starts, at: new RegExp(re.source, re.flags.replace('g', '') + 'y') };
}

/**
 * The matches of a scan's regex tried at each of its starts, skipping a start inside the previous match, as a
 * global scan would: equal to `text.matchAll(scan.re)` when no match can start anywhere else.
 */
export function* matchesAt(text: string, scan: CandidateScan): Generator<RegExpExecArray> {
  const re = scan.at;
  let end = 0;
  for (const s of scan.starts(text)) {
    if (s < end) continue;
    re.lastIndex = s;
    const m = re.exec(text);
    if (!m) continue;
    end = m.index + Math.max(m[0].length, 1);
    yield m;
  }
}

/** The start of the maximal run of characters `inRun` (a char-code test) that holds position `i`. */
export function runStart(text: string, i: number, inRun: (c: number) => boolean): number {
  let s = i;
  while (s > 0 && inRun(text.charCodeAt(s - 1))) s--;
  return s;
}

/** Every start of a run of at least `min` characters `inRun`, ascending. */
export function* runsOfAtLeast(text: string, min: number, inRun: (c: number) => boolean): Generator<number> {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!inRun(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const s = i;
    while (i < n && inRun(text.charCodeAt(i))) i++;
    if (i - s >= min) yield s;
  }
}

/** A char-code test from a list of the characters and ranges it accepts (`'AZaz09'` pairs plus `'+/_-'`). */
export function charClass(ranges: string, singles = ''): (c: number) => boolean {
  const table = new Uint8Array(128);
  for (let i = 0; i + 1 < ranges.length; i += 2) for (let c = ranges.charCodeAt(i); c <= ranges.charCodeAt(i + 1); c++) table[c] = 1;
  for (let i = 0; i < singles.length; i++) table[singles.charCodeAt(i)] = 1;
  return (c) => c < 128 && table[c] === 1;
}
