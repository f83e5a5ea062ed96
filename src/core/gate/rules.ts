/**
 * Contract: layer 1 of the prose gate (spec/hooks.md, "Prose gate"). `checkRules` runs the `rules:` of kernel
 * entries over the pieces of prose a tool call would publish and returns every violation with the rule, the
 * phrase quoted from the original text, and where it sits (source and line). Text that is not prose is blanked
 * first, keeping offsets and lines: markdown code (fenced blocks, `inline code`), URLs, and runs of 80 or more
 * characters without a space. A long piece is matched in overlapping windows cut at line ends, and the whole
 * check stops at a time budget, so even a slow pattern costs bounded time. Pure apart from the clock.
 */
import type { ProsePiece } from '../prose/pieces.js';

/** One rule as the gate applies it, with the kernel entry that carries it. */
export interface GateRule {
  /** Id and title of the kernel entry. */
  id: string;
  title: string;
  /** 1-based position in the entry's `rules:` list. */
  index: number;
  pattern: string;
  flags?: string;
  message: string;
}

/** A phrase that breaks a rule. */
export interface Violation {
  /** The rule broken; undefined for a model-judge violation (see `judged`). */
  rule?: GateRule;
  /** What the model judge named, for a layer-2 violation. */
  judged?: { rule: string; fix?: string };
  quote: string;
  where: string;
}

/** Windows of at most this many characters; a match longer than OVERLAP may be missed at a window edge. */
const WINDOW = 2_000;
const OVERLAP = 300;
/** Occurrences reported per rule (the rest are counted). */
const PER_RULE = 3;
/** The longest quote shown. */
const MAX_QUOTE = 80;
/** Milliseconds layer 1 may spend before it gives up on the rest (fail-open). */
const TIME_BUDGET_MS = 1_500;

/** Compiles a rule with the global flag; undefined when it does not compile (lint reports those). */
export function compileRule(rule: Pick<GateRule, 'pattern' | 'flags'>): RegExp | undefined {
  try {
    const flags = (rule.flags ?? 'i').replace(/[gy]/g, '');
    return new RegExp(rule.pattern, `${flags}g`);
  } catch {
    return undefined;
  }
}

function blank(s: string): string {
  return s.replace(/[^\n]/g, ' ');
}

/** Blanks fenced code blocks (``` or ~~~, up to three spaces of indent), fence lines included. */
function maskFences(text: string): string {
  if (!text.includes('```') && !text.includes('~~~')) return text;
  const lines = text.split('\n');
  let fence: { ch: string; len: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(lines[i]!);
    if (!fence) {
      if (m && !(m[1]![0] === '`' && lines[i]!.slice(m[0].length).includes('`'))) {
        fence = { ch: m[1]![0]!, len: m[1]!.length };
        lines[i] = blank(lines[i]!);
      }
      continue;
    }
    const close = m && m[1]![0] === fence.ch && m[1]!.length >= fence.len && /^\s*$/.test(lines[i]!.slice(m[0].length));
    lines[i] = blank(lines[i]!);
    if (close) fence = undefined;
  }
  return lines.join('\n');
}

/** Blanks inline code spans: a run of backticks closed by the next run of the same length on that line. */
function maskInlineCode(text: string): string {
  if (!text.includes('`')) return text;
  return text
    .split('\n')
    .map((line) => {
      if (!line.includes('`')) return line;
      const runs: Array<[number, number]> = [];
      for (const m of line.matchAll(/`+/g)) runs.push([m.index, m[0].length]);
      const next = new Array<number>(runs.length).fill(-1);
      const lastByLen = new Map<number, number>();
      for (let i = runs.length - 1; i >= 0; i--) {
        next[i] = lastByLen.get(runs[i]![1]) ?? -1;
        lastByLen.set(runs[i]![1], i);
      }
      let out = '';
      let pos = 0;
      for (let i = 0; i < runs.length; i++) {
        const j = next[i]!;
        if (j < 0) continue;
        const from = runs[i]![0];
        const to = runs[j]![0] + runs[j]![1];
        out += line.slice(pos, from) + ' '.repeat(to - from);
        pos = to;
        i = j;
      }
      return out + line.slice(pos);
    })
    .join('\n');
}

/**
 * Blanks what is not prose, keeping every offset and line: fenced code blocks, runs of 80 or more non-space
 * characters (hashes, base64, minified text), URLs and inline code spans.
 */
export function maskNonProse(text: string): string {
  let out = maskFences(text);
  out = out.replace(/\S{80,}/g, blank);
  if (out.includes('://')) out = out.replace(/\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s<>"'`)\]]+/gi, blank);
  return maskInlineCode(out);
}

/** The windows [start, end) that cover `text`, each at most WINDOW long, overlapping by OVERLAP. */
function windows(text: string): Array<[number, number]> {
  if (text.length <= WINDOW) return [[0, text.length]];
  const out: Array<[number, number]> = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + WINDOW);
    if (end < text.length) {
      const nl = text.lastIndexOf('\n', end);
      if (nl > start + WINDOW / 2) end = nl + 1;
    }
    out.push([start, end]);
    if (end >= text.length) break;
    start = Math.max(start + 1, end - OVERLAP);
  }
  return out;
}

/** Collapses whitespace and shortens a matched phrase for the deny message. */
export function quoteOf(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length <= MAX_QUOTE ? t : `${t.slice(0, MAX_QUOTE - 1)}…`;
}

/** True when a source label is a file path (`README.md`, `docs/guide.md`, `Makefile`). */
function isPath(s: string): boolean {
  return /^[^\s()]+\.[A-Za-z0-9]+$|^[^\s()]*\/[^\s()]+$|^[A-Z][A-Za-z_]+$/.test(s);
}

/**
 * Where a piece's offset sits, for humans: `README.md:12`, `README.md:4 (edit)`, `comment in src/a.ts:11`,
 * `commit message, line 2`. A label that already carries the piece's first line gets the exact line instead.
 */
export function locate(piece: ProsePiece, offset: number): string {
  let lines = 0;
  for (let k = piece.text.indexOf('\n'); k >= 0 && k < offset; k = piece.text.indexOf('\n', k + 1)) lines++;
  const first = piece.line ?? 1;
  const line = first + lines;
  const src = piece.source;
  const tail = /:(\d+)(?=$| \()/.exec(src);
  if (tail && Number(tail[1]) === first) return `${src.slice(0, tail.index)}:${line}${src.slice(tail.index + tail[0].length)}`;
  const inner = /\bline (\d+)\b/.exec(src);
  if (inner && Number(inner[1]) === first) return `${src.slice(0, inner.index)}line ${line}${src.slice(inner.index + inner[0].length)}`;
  const paren = /^(\S+) \(([^()]*)\)$/.exec(src);
  if (paren && isPath(paren[1]!) && /^edit( \d+)?$/.test(paren[2]!)) return `${paren[1]}:${line} (${paren[2]})`;
  if (isPath(src)) return `${src}:${line}`;
  return `${src}, line ${line}`;
}

export interface CheckResult {
  violations: Violation[];
  /** Occurrences found beyond PER_RULE, per rule key. */
  more: number;
  /** True when the time budget ran out before every rule saw every piece. */
  partial: boolean;
}

/** Runs every rule over every piece (see the module contract). */
export function checkRules(pieces: ProsePiece[], rules: GateRule[], options: { budgetMs?: number; now?: () => number } = {}): CheckResult {
  const now = options.now ?? (() => performance.now());
  const stopAt = now() + (options.budgetMs ?? TIME_BUDGET_MS);
  const compiled = rules.map((r) => ({ rule: r, re: compileRule(r) })).filter((c): c is { rule: GateRule; re: RegExp } => c.re !== undefined);
  const violations: Violation[] = [];
  const counts = new Map<GateRule, number>();
  let more = 0;
  let partial = false;
  outer: for (const piece of pieces) {
    if (typeof piece.text !== 'string' || piece.text === '') continue;
    const masked = maskNonProse(piece.text);
    if (!/\S/.test(masked)) continue;
    const wins = windows(masked);
    for (const { rule, re } of compiled) {
      const seen = new Set<number>();
      for (const [start, end] of wins) {
        if (now() > stopAt) {
          partial = true;
          break outer;
        }
        const slice = masked.slice(start, end);
        re.lastIndex = 0;
        for (let m = re.exec(slice); m; m = re.exec(slice)) {
          if (m[0].length === 0) {
            re.lastIndex++;
            continue;
          }
          const at = start + m.index;
          if (seen.has(at)) continue;
          seen.add(at);
          const n = (counts.get(rule) ?? 0) + 1;
          counts.set(rule, n);
          if (n > PER_RULE) more++;
          else violations.push({ rule, quote: quoteOf(piece.text.slice(at, at + m[0].length)), where: locate(piece, at) });
        }
      }
    }
  }
  return { violations, more, partial };
}
