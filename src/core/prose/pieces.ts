/**
 * Contract: a piece of prose and what counts as one. `looksLikeProse` tells a string of words and spaces from a
 * URL, id, path or code; a PieceSink collects the pieces of one call under its caps (MAX_PROSE_CHARS of text in
 * all, at most MAX_PIECES pieces), cutting the last piece to fit and dropping blank ones. Pure.
 */

/** One stretch of prose, with where it came from and, when known, its 1-based line there. */
export interface ProsePiece {
  source: string;
  text: string;
  line?: number;
}

/** The most text, in characters, that one call returns across all its pieces. */
export const MAX_PROSE_CHARS = 200_000;
/** The most pieces one call returns. */
export const MAX_PIECES = 2_000;

/** The pieces collected for one call, and how many characters may still be added. */
export interface PieceSink {
  pieces: ProsePiece[];
  left: number;
}

/** An empty sink with the whole MAX_PROSE_CHARS allowance. */
export function newSink(): PieceSink {
  return { pieces: [], left: MAX_PROSE_CHARS };
}

/** True when the sink takes no more text. */
export function isFull(out: PieceSink): boolean {
  return out.left <= 0 || out.pieces.length >= MAX_PIECES;
}

/** Adds a piece unless it is blank or the sink is full; a piece over the allowance is cut to it. */
export function addPiece(out: PieceSink, source: string, text: string, line?: number): void {
  if (isFull(out) || !/\S/.test(text)) return;
  const t = text.length > out.left ? text.slice(0, out.left) : text;
  out.pieces.push(line === undefined ? { source, text: t } : { source, text: t, line });
  out.left -= t.length;
}

/** Tells whether a string reads as prose (words and spaces) rather than a URL, id, path or code. */
export function looksLikeProse(text: string, minLength = 60): boolean {
  if (typeof text !== 'string') return false;
  const t = (text.length > 4_000 ? text.slice(0, 4_000) : text).trim();
  if (t.length < minLength || !t.includes(' ')) return false;
  if (/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(t) || /^[~.]?\/?[\w .@-]+(\/[\w .@-]+)+\/?$/.test(t)) return false;
  let good = 0;
  for (const ch of t) if (/[\p{L}\s]/u.test(ch)) good++;
  if (good / [...t].length < 0.65) return false;
  const tokens = t.split(/\s+/);
  let words = 0;
  for (const tok of tokens) if (WORD_RE.test(tok)) words++;
  const needed = t.length >= 60 ? 3 : 2;
  if (words < needed || words / tokens.length < 0.45) return false;
  const lines = t.split('\n').filter((l) => l.trim() !== '');
  const codeLines = lines.filter((l) => /[;{}]\s*$/.test(l) || /^\s*(import|export|def|class|function|const|let|var|return)\s/.test(l)).length;
  if (lines.length >= 2 && codeLines / lines.length > 0.4) return false;
  if (lines.length === 1 && /[;{}]\s*$/.test(t) && /[=(]/.test(t)) return false;
  return true;
}

const WORD_RE = /^[("'“‘\[*_`]*\p{L}[\p{L}\p{M}'’-]*[)"'”’\].,;:!?*_`]*$/u;
