/**
 * Contract: the deterministic grade of a compaction (spec/memory.md, "The grade"). Given a markdown baseline and
 * the model's shorter rewrite, it says PASS, DEFECTS (each with a repair pointer: which bullet, link or header, and
 * what to do), FLOOR (the baseline is already at its irreducible minimum: stop, do not re-arm) or CANNOT_GRADE
 * (no baseline, or a window with floor >= target). Pure: strings in, a verdict out.
 *
 * The directive it grades: keep every link target with its count, every bullet, every header in order, the order of
 * the bullets, and each bullet's protected clauses (its bold spans and a leading `key:` prefix); shorten tails.
 * A bullet keeps its identity through a trim of its tail (matchBullets says exactly how).
 */

import { linkTargetId } from '../format/links.js';

export type CompactVerdict = 'PASS' | 'DEFECTS' | 'FLOOR' | 'CANNOT_GRADE';

export type DefectKind =
  | 'size-over'
  | 'size-under'
  | 'link-lost'
  | 'link-invented'
  | 'bullet-lost'
  | 'bullet-invented'
  | 'bullet-order'
  | 'header-lost'
  | 'header-invented'
  | 'header-order'
  | 'clause-lost';

/** One defect, with the repair the model can act on. `line` is 1-based, in the baseline or the current text. */
export interface Defect {
  kind: DefectKind;
  message: string;
  /** Which text `line` refers to. */
  in?: 'baseline' | 'current';
  line?: number;
}

export interface GradeInput {
  baseline: string | undefined;
  current: string;
  /** The most characters the rewrite may have (default 85% of the baseline). */
  target?: number;
  /** The fewest characters the rewrite may have (default 40% of the baseline). */
  floor?: number;
}

export interface GradeResult {
  verdict: CompactVerdict;
  baseline_chars: number;
  current_chars: number;
  /** The window the rewrite had to land in. */
  target_chars: number;
  floor_chars: number;
  /** The size of the baseline with every tail cut: no legal edit gets below it. */
  minimum: number;
  defects: Defect[];
  /** Why a FLOOR or CANNOT_GRADE verdict was given. */
  reason?: string;
}

/** The version of the directive this grader enforces (skills/git-kb/references/compact.md); the ledger records it. */
export const COMPACT_DIRECTIVE = 'compact-v1';

export const DEFAULT_TARGET_RATIO = 0.85;
export const DEFAULT_FLOOR_RATIO = 0.4;
/** How many leading words key a bullet that has no link and no lead-in (they survive trimming its tail). */
const KEY_WORDS = 3;

interface Bullet {
  line: number;
  /** The header it sits under with that header's occurrence ("" before the first header). */
  section: string;
  /** What names it wherever it stands: `links:…`, `lead:…` (a bold lead-in), `key:…` (a `key:` prefix) or `words:`. */
  key: string;
  /** The leading words (plain bullets). */
  words: string[];
  /** Every word, links aside (to tell a shortened form of it). */
  allWords: string[];
  label: string;
  links: string[];
  clauses: string[];
  minimum: number;
}

interface Outline {
  headers: { text: string; line: number }[];
  bullets: Bullet[];
  links: Map<string, number>;
  linkLines: Map<string, number>;
  minimum: number;
}

const HEADER = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^(\s*)([-*+]|\d+[.)])\s+(.*)$/;
const FENCE = /^\s*(```|~~~)/;
const WIKI = /\[\[([^\]|#]+)(?:[#|][^\]]*)?\]\]/g;
const MDLINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
const BOLD = /\*\*([^*]+)\*\*|__([^_]+)__/g;
const KEY_PREFIX = /^([A-Za-z][\w /.-]{0,40}?):(\s|$)/;

/**
 * The link targets of a line: `[[target]]`, `[[target|alias]]` and `[text](target)`. A wikilink to an entry counts
 * as its id, whatever form names it (`[[kb-0042]]` and the `[[kb-0042-use-pnpm|kb-0042]]` git-kb writes are one
 * target: spec/entry-format.md, "Links").
 */
export function linkTargets(text: string): { target: string; literal: string }[] {
  const out: { target: string; literal: string; at: number }[] = [];
  for (const m of text.matchAll(WIKI)) out.push({ target: linkTargetId(m[1]!.trim()) ?? m[1]!.trim(), literal: m[0], at: m.index });
  for (const m of text.matchAll(MDLINK)) out.push({ target: m[1]!.trim(), literal: m[0], at: m.index });
  return out.sort((a, b) => a.at - b.at).map(({ target, literal }) => ({ target, literal }));
}

function words(text: string): string[] {
  return text
    .replace(WIKI, ' ')
    .replace(MDLINK, ' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** A bullet's leading `key:` prefix with its colon (`Research/theory:`, `pnpm:`), when it has one and no bold lead-in. */
function keyPrefixOf(text: string): string | undefined {
  if (/^(\*\*|__)/.test(text.trimStart())) return undefined;
  const k = KEY_PREFIX.exec(text.replace(WIKI, '').replace(MDLINK, '').trimStart());
  return k ? `${k[1]!.trim()}:` : undefined;
}

/** The protected clauses of a bullet: its bold spans and a leading `key:` prefix. */
function clausesOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(BOLD)) out.push((m[1] ?? m[2]!).trim());
  const k = keyPrefixOf(text);
  if (k) out.push(k);
  return out;
}

function outline(text: string): Outline {
  const headers: Outline['headers'] = [];
  const bullets: Bullet[] = [];
  const links = new Map<string, number>();
  const linkLines = new Map<string, number>();
  let minimum = 0;
  let inFence = false;
  let section = '';
  const seenHeaders = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (FENCE.test(raw)) inFence = !inFence;
    for (const l of linkTargets(raw)) {
      links.set(l.target, (links.get(l.target) ?? 0) + 1);
      if (!linkLines.has(l.target)) linkLines.set(l.target, line);
    }
    if (inFence) return;
    const h = HEADER.exec(raw);
    if (h) {
      const t = `${h[1]} ${h[2]}`;
      headers.push({ text: t, line });
      seenHeaders.set(t, (seenHeaders.get(t) ?? 0) + 1);
      section = `${t}#${seenHeaders.get(t)}`;
      minimum += raw.length + 1;
      return;
    }
    const b = BULLET.exec(raw);
    if (!b) return;
    const body = b[3]!;
    const found = linkTargets(body);
    const clauses = clausesOf(body);
    const lead = clauses.length && body.trimStart().match(/^(\*\*|__)/) ? clauses[0]! : undefined;
    const all = words(body);
    const prefix = keyPrefixOf(body);
    const keyText = found.length
      ? `links:${found.map((l) => l.target).join('|')}`
      : lead !== undefined
        ? `lead:${lead.toLowerCase()}`
        : prefix !== undefined
          ? `key:${prefix.toLowerCase()}`
          : 'words:';
    const label = found.length ? found.map((l) => l.literal).join(' ') : lead ? `**${lead}**` : prefix ?? all.slice(0, KEY_WORDS).join(' ');
    // What no legal trim removes: the links, the protected clauses, and a plain bullet's first words.
    const kept = [...found.map((l) => l.literal), ...clauses, ...(keyText === 'words:' ? all.slice(0, KEY_WORDS) : [])];
    const bulletMin = b[1]!.length + b[2]!.length + 1 + kept.reduce((n, s) => n + s.length + 1, 0);
    minimum += bulletMin;
    bullets.push({ line, section, key: keyText, words: all.slice(0, KEY_WORDS), allWords: all, label, links: found.map((l) => l.target), clauses, minimum: bulletMin });
  });
  return { headers, bullets, links, linkLines, minimum: Math.max(0, minimum - 1) };
}

function counts<T>(items: T[], key: (t: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    m.set(k, [...(m.get(k) ?? []), it]);
  }
  return m;
}

function sectionName(section: string): string {
  return section === '' ? 'before the first header' : `under "${section.replace(/#\d+$/, '')}"`;
}

/** Grades a compaction of `baseline` into `current` (see the contract above). */
export function gradeCompaction(input: GradeInput): GradeResult {
  const current = input.current;
  const b = input.baseline;
  const baseChars = b?.length ?? 0;
  const target = input.target ?? Math.floor(baseChars * DEFAULT_TARGET_RATIO);
  const floor = input.floor ?? Math.floor(baseChars * DEFAULT_FLOOR_RATIO);
  const result = (verdict: CompactVerdict, defects: Defect[], minimum: number, reason?: string): GradeResult => ({
    verdict,
    baseline_chars: baseChars,
    current_chars: current.length,
    target_chars: target,
    floor_chars: floor,
    minimum,
    defects,
    ...(reason ? { reason } : {}),
  });
  if (b === undefined) return result('CANNOT_GRADE', [], 0, 'no baseline: the target has no text at the baseline revision');
  if (!(target >= 0) || !(floor >= 0) || floor >= target) return result('CANNOT_GRADE', [], 0, `bad window: the floor (${floor}) must be below the target (${target})`);
  const base = outline(b);
  const cur = outline(current);
  if (baseChars <= floor) return result('FLOOR', [], base.minimum, `the baseline (${baseChars} chars) is already at or under the floor (${floor}): leave it as it is`);

  const defects: Defect[] = [];
  // Links: each target kept with its count; a target the baseline never had is invented.
  for (const [t, n] of base.links) {
    const m = cur.links.get(t) ?? 0;
    if (m < n) defects.push({ kind: 'link-lost', in: 'baseline', line: base.linkLines.get(t), message: `link ${t} appears ${m} of ${n} times: put back ${n - m} (see baseline line ${base.linkLines.get(t)})` });
  }
  for (const [t, m] of cur.links) {
    const n = base.links.get(t) ?? 0;
    if (m > n) defects.push({ kind: 'link-invented', in: 'current', line: cur.linkLines.get(t), message: `link ${t} appears ${m} times but ${n} in the baseline: remove the ${m - n} added (line ${cur.linkLines.get(t)})` });
  }
  // Headers: the same list, in the same order.
  const bh = counts(base.headers, (h) => h.text);
  const ch = counts(cur.headers, (h) => h.text);
  for (const [t, hs] of bh) {
    const have = ch.get(t)?.length ?? 0;
    for (const h of hs.slice(have)) defects.push({ kind: 'header-lost', in: 'baseline', line: h.line, message: `header "${t}" is missing: put it back (baseline line ${h.line})` });
  }
  for (const [t, hs] of ch) {
    const had = bh.get(t)?.length ?? 0;
    for (const h of hs.slice(had)) defects.push({ kind: 'header-invented', in: 'current', line: h.line, message: `header "${t}" is not in the baseline: remove it (line ${h.line})` });
  }
  const common = (xs: string[], ys: Map<string, unknown[]>): string[] => {
    const seen = new Map<string, number>();
    return xs.filter((x) => {
      const n = (seen.get(x) ?? 0) + 1;
      seen.set(x, n);
      return n <= (ys.get(x)?.length ?? 0);
    });
  };
  const bOrder = common(base.headers.map((h) => h.text), ch);
  const cOrder = common(cur.headers.map((h) => h.text), bh);
  const hAt = bOrder.findIndex((t, i) => cOrder[i] !== t);
  if (hAt >= 0) defects.push({ kind: 'header-order', message: `headers are out of order: "${bOrder[hAt]}" must come ${hAt === 0 ? 'first' : `right after "${bOrder[hAt - 1]}"`}` });

  // Bullets: matched on what survives trimming a tail (their links, a bold lead-in, a `key:` prefix, their first
  // words, or their place among the bullets around them) within their section, so trimming never looks like a
  // deletion; what is left unmatched was lost or invented.
  const pairs = matchBullets(base.bullets, cur.bullets);
  const matchedBase = new Set(pairs.map(([x]) => x));
  const matchedCur = new Set(pairs.map(([, y]) => y));
  for (const x of base.bullets) {
    if (!matchedBase.has(x)) defects.push({ kind: 'bullet-lost', in: 'baseline', line: x.line, message: `bullet "${x.label}" ${sectionName(x.section)} is missing: restore it as a line, its tail shortened (baseline line ${x.line})` });
  }
  for (const y of cur.bullets) {
    if (!matchedCur.has(y)) defects.push({ kind: 'bullet-invented', in: 'current', line: y.line, message: `bullet "${y.label}" ${sectionName(y.section)} is not in the baseline: remove it (line ${y.line}), or if it rewords a baseline bullet, keep that bullet's links, its bold lead-in or key: prefix, or its first word, in its place` });
  }
  const byCur = [...pairs].sort((p, q) => p[1].line - q[1].line);
  const wrong = byCur.findIndex(([x], i) => i > 0 && x.line < byCur[i - 1]![0].line);
  if (wrong >= 0) {
    const [x] = byCur[wrong]!;
    const before = byCur.map(([b]) => b).filter((b) => b.line < x.line).pop();
    defects.push({ kind: 'bullet-order', in: 'baseline', line: x.line, message: `bullets are out of order: "${x.label}" must come ${before ? `right after "${before.label}"` : 'first'} (baseline line ${x.line})` });
  }
  // Clauses: each kept bullet keeps its bold spans and its `key:` prefix.
  for (const [x, y] of pairs) {
    for (const c of x.clauses) {
      if (!y.clauses.includes(c)) defects.push({ kind: 'clause-lost', in: 'current', line: y.line, message: `bullet "${x.label}" lost its clause "${c}": keep bold lead-ins and key: prefixes word for word (line ${y.line})` });
    }
  }

  const floorReason = base.minimum > target ? `the irreducible minimum (${base.minimum} chars: every tail cut) is above the target (${target}): no legal edit reaches it; stop` : undefined;
  if (current.length > target && !floorReason) {
    const tails = current
      .split('\n')
      .map((l, i) => ({ line: i + 1, len: l.length }))
      .sort((x, y) => y.len - x.len)
      .slice(0, 3)
      .map((l) => l.line);
    defects.push({ kind: 'size-over', message: `${current.length} chars, over the target ${target} by ${current.length - target}: shorten the longest tails first (lines ${tails.join(', ')})` });
  }
  if (current.length < floor) defects.push({ kind: 'size-under', message: `${current.length} chars, under the floor ${floor}: overtrimmed; put back wording cut from the tails` });
  if (defects.length) return result('DEFECTS', defects, base.minimum);
  if (floorReason) return result('FLOOR', [], base.minimum, floorReason);
  return result('PASS', [], base.minimum);
}

/** True when one word list starts with the other (at least one word, at most KEY_WORDS compared). */
function samePrefix(a: string[], b: string[]): boolean {
  const k = Math.min(KEY_WORDS, a.length, b.length);
  if (k === 0) return a.length === b.length;
  for (let i = 0; i < k; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True when `y` reads as a shortened form of `x`: it keeps `x`'s first word, or more than half of its own words
 * are words of `x`. Used only for a bullet at the same place among its neighbours (see matchBullets).
 */
function shortenedForm(x: Bullet, y: Bullet): boolean {
  if (!y.allWords.length || !x.allWords.length) return false;
  if (x.allWords[0] === y.allWords[0]) return true;
  const had = new Set(x.allWords);
  return y.allWords.filter((w) => had.has(w)).length * 2 > y.allWords.length;
}

/** True when `y` keeps what names `x` wherever it stands: the same links, bold lead-in or `key:`, or first words. */
function sameIdentity(x: Bullet, y: Bullet): boolean {
  if (x.key === 'words:' && y.key === 'words:') return samePrefix(x.words, y.words);
  return x.key === y.key;
}

/**
 * Pairs baseline bullets with current ones, section by section, in two passes:
 *
 * 1. by identity, wherever the bullet stands (so a reorder is paired, then reported as one): the same link
 *    targets, the same bold lead-in, the same `key:` prefix, or for a plain bullet the same first words (a tail
 *    trimmed down to one or two words still pairs);
 * 2. by place: between two bullets paired in pass 1, the baseline bullets and the current ones left over are
 *    aligned in order (the longest common subsequence), and a current bullet pairs with the baseline bullet at
 *    that place when it is a shortened form of it (it keeps the first word, or most of its words are the old
 *    bullet's). A bullet with no place and no identity is lost, or invented.
 */
function matchBullets(base: Bullet[], cur: Bullet[]): [Bullet, Bullet][] {
  const pairs: [Bullet, Bullet][] = [];
  const used = new Set<Bullet>();
  const paired = new Set<Bullet>();
  for (const y of cur) {
    const x = base.find((b) => !used.has(b) && b.section === y.section && sameIdentity(b, y));
    if (!x) continue;
    used.add(x);
    paired.add(y);
    pairs.push([x, y]);
  }
  // Pass 2, per gap: the unpaired bullets of each side between consecutive pairs that keep their order.
  const anchors: [Bullet, Bullet][] = [];
  for (const p of [...pairs].sort((p, q) => p[1].line - q[1].line)) if (!anchors.length || anchors[anchors.length - 1]![0].line < p[0].line) anchors.push(p);
  const bounds = [...anchors, undefined];
  let lo: [Bullet, Bullet] | undefined;
  for (const hi of bounds) {
    const inGap = (b: Bullet, side: 0 | 1): boolean => (!lo || b.line > lo[side].line) && (!hi || b.line < hi[side].line);
    const xs = base.filter((b) => !used.has(b) && inGap(b, 0));
    const ys = cur.filter((c) => !paired.has(c) && inGap(c, 1));
    for (const [x, y] of align(xs, ys, (x, y) => x.section === y.section && shortenedForm(x, y))) {
      used.add(x);
      paired.add(y);
      pairs.push([x, y]);
    }
    lo = hi;
  }
  return pairs;
}

/** The longest common subsequence of `xs` and `ys` under `same`, as pairs in order. */
function align<T>(xs: T[], ys: T[], same: (x: T, y: T) => boolean): [T, T][] {
  if (!xs.length || !ys.length) return [];
  const n = xs.length;
  const m = ys.length;
  const len: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) len[i]![j] = same(xs[i]!, ys[j]!) ? len[i + 1]![j + 1]! + 1 : Math.max(len[i + 1]![j]!, len[i]![j + 1]!);
  const out: [T, T][] = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (same(xs[i]!, ys[j]!) && len[i]![j] === len[i + 1]![j + 1]! + 1) out.push([xs[i++]!, ys[j++]!]);
    else if (len[i + 1]![j]! >= len[i]![j + 1]!) i++;
    else j++;
  }
  return out;
}
