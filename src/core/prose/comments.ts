/**
 * Contract: the comments and docstrings of source code. The scanner walks the source once, skipping strings,
 * character literals, regex literals and heredoc bodies as the file's Syntax says, and reports each comment with
 * its place; `commentPieces` turns them into pieces, merging runs of whole-line comments, each at the line its
 * text starts on. Linear in the source's length. Pure.
 */
import { addPiece, isFull, type PieceSink } from './pieces.js';

/** How one language writes comments and strings, as far as finding its comments needs. */
export interface Syntax {
  line: readonly string[];
  block: ReadonlyArray<readonly [string, string]>;
  /** Quote characters whose strings end at an unescaped newline. */
  quotes: string;
  /** Quote characters whose strings may span lines. */
  multi: string;
  /** Line markers count only at the start of a word (`#` in shell and YAML). */
  wordStart?: boolean;
  /** Quotes open a string only when not glued to a word (YAML `it's` is no string). */
  valueQuotes?: boolean;
  /** Quote characters without backslash escapes. */
  raw?: string;
  /** `'` is a char literal only when short (Rust lifetimes, C chars). */
  charLiteral?: boolean;
  /** Python triple-quoted strings; those in statement position are docstrings. */
  triple?: boolean;
  heredoc?: boolean;
  regex?: boolean;
}

/** A comment, or a docstring (Python's triple-quoted string in statement position). */
export type CommentKind = 'comment' | 'docstring';
type Emit = (start: number, body: string, kind: CommentKind, wholeLine: boolean) => boolean;

const HEREDOC_RE = /<<(-?)[ \t]*(?:'([^'\n]*)'|"([^"\n]*)"|\\?([A-Za-z_][A-Za-z0-9_.-]*))/y;
const REGEX_KEYWORDS = new Set(['return', 'typeof', 'case', 'in', 'of', 'delete', 'void', 'throw', 'new', 'yield', 'await', 'else', 'do']);

function isWordStart(src: string, i: number): boolean {
  if (i === 0) return true;
  const p = src[i - 1] as string;
  return ' \t\n\r;|&('.includes(p);
}

function skipString(src: string, i: number, q: string, multiline: boolean, escapes: boolean): number {
  const n = src.length;
  let j = i + 1;
  while (j < n) {
    const ch = src[j];
    if (escapes && ch === '\\') {
      j += 2;
      continue;
    }
    if (ch === q) return j + 1;
    if (ch === '\n' && !multiline) return j;
    j++;
  }
  return n;
}

function charLiteralLength(src: string, i: number): number {
  if (src[i + 1] === '\\') {
    for (let j = i + 2; j < Math.min(src.length, i + 14); j++) {
      if (src[j] === '\n') return 0;
      if (src[j] === "'" && j > i + 2) return j - i + 1;
    }
    return 0;
  }
  if (src[i + 1] !== "'" && src[i + 1] !== '\n' && src[i + 2] === "'") return 3;
  const code = src.charCodeAt(i + 1);
  if (code >= 0xd800 && code <= 0xdbff && src[i + 3] === "'") return 4;
  return 0;
}

function regexAllowed(src: string, lastCode: number): boolean {
  if (lastCode < 0) return true;
  const p = src[lastCode] as string;
  if ('(,=:[!&|?{};+-*%<>~^'.includes(p)) return true;
  if (!/[A-Za-z]/.test(p)) return false;
  let k = lastCode;
  while (k > 0 && lastCode - k < 10 && /[A-Za-z]/.test(src[k - 1] as string)) k--;
  return REGEX_KEYWORDS.has(src.slice(k, lastCode + 1));
}

function skipRegex(src: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < src.length; j++) {
    const ch = src[j];
    if (ch === '\\') j++;
    else if (ch === '\n') return j;
    else if (ch === '[') inClass = true;
    else if (ch === ']') inClass = false;
    else if (ch === '/' && !inClass) return j + 1;
  }
  return src.length;
}

function skipHeredocBodies(src: string, i: number, docs: Array<{ delim: string; strip: boolean }>): number {
  for (const doc of docs) {
    while (i < src.length) {
      const nl = src.indexOf('\n', i);
      const end = nl < 0 ? src.length : nl;
      let line = src.slice(i, end).replace(/\r$/, '');
      if (doc.strip) line = line.replace(/^\t+/, '');
      i = nl < 0 ? src.length : nl + 1;
      if (line === doc.delim) break;
    }
  }
  return i;
}

function restOfLineBlank(src: string, i: number): boolean {
  while (i < src.length && (src[i] === ' ' || src[i] === '\t' || src[i] === '\r')) i++;
  return i >= src.length || src[i] === '\n' || src[i] === '#' || src[i] === ';';
}

function cleanLineComment(body: string, marker: string): string {
  const last = marker[marker.length - 1];
  let k = 0;
  while (k < body.length && (body[k] === last || body[k] === '!')) k++;
  return body.slice(k).trim();
}

function cleanBlockLine(l: string): string {
  return l.replace(/^\s*\*+ ?/, '').replace(/^[ \t]*[|!]/, '').trim();
}

/** Offset in `body` of the first line with text once cleaned (0 when none), so a comment's line is its text's. */
function firstTextOffset(body: string, clean: (line: string) => string): number {
  let off = 0;
  for (const line of body.split('\n')) {
    if (clean(line) !== '') return off;
    off += line.length + 1;
  }
  return 0;
}

function cleanBlockComment(body: string): string {
  return body
    .split('\n')
    .map((l) => l.replace(/^\s*\*+ ?/, '').replace(/^[ \t]*[|!]/, '').trimEnd())
    .join('\n')
    .trim();
}

function cleanDocstring(body: string): string {
  return body
    .split('\n')
    .map((l) => l.trim())
    .join('\n')
    .trim();
}

function scanComments(src: string, syn: Syntax, emit: Emit): void {
  const n = src.length;
  let i = 0;
  let firstCode = -1; // index of the first code character on the current line
  let depth = 0; // bracket depth, for Python docstrings
  let contLine = false; // the current line continues the previous one (trailing backslash)
  let lastCode = -1; // index of the last code character, for JS regex literals
  let heredocs: Array<{ delim: string; strip: boolean }> = [];
  scan: while (i < n) {
    const c = src[i] as string;
    if (c === '\n') {
      contLine = src[i - 1] === '\\' || (src[i - 1] === '\r' && src[i - 2] === '\\');
      i++;
      firstCode = -1;
      if (heredocs.length > 0) {
        i = skipHeredocBodies(src, i, heredocs);
        heredocs = [];
      }
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r' || c === '\f' || c === '\v') {
      i++;
      continue;
    }
    for (const [open, close] of syn.block) {
      if (src.startsWith(open, i)) {
        const at = src.indexOf(close, i + open.length);
        const bodyEnd = at < 0 ? n : at;
        const body = src.slice(i + open.length, bodyEnd);
        if (!emit(i + open.length + firstTextOffset(body, cleanBlockLine), cleanBlockComment(body), 'comment', false)) return;
        i = at < 0 ? n : at + close.length;
        continue scan;
      }
    }
    for (const marker of syn.line) {
      if (src.startsWith(marker, i) && (!syn.wordStart || isWordStart(src, i))) {
        const nl = src.indexOf('\n', i);
        const end = nl < 0 ? n : nl;
        const shebang = i === 0 && src.startsWith('#!');
        if (!shebang && !emit(i, cleanLineComment(src.slice(i + marker.length, end), marker), 'comment', firstCode < 0)) return;
        i = end;
        continue scan;
      }
    }
    if (syn.triple && (c === '"' || c === "'") && src.startsWith(c + c + c, i)) {
      const q = c + c + c;
      let j = i + 3;
      while (j < n && !src.startsWith(q, j)) j += src[j] === '\\' ? 2 : 1;
      const end = Math.min(n, j + 3);
      let p = i;
      while (p > 0 && i - p < 2 && /[rRbBuUfF]/.test(src[p - 1] as string)) p--;
      const statement = depth === 0 && !contLine && (firstCode < 0 || firstCode === p) && restOfLineBlank(src, end);
      const doc = src.slice(i + 3, Math.min(j, n));
      if (statement && !emit(i + 3 + firstTextOffset(doc, (l) => l.trim()), cleanDocstring(doc), 'docstring', true)) return;
      if (firstCode < 0) firstCode = i;
      lastCode = end - 1;
      i = end;
      continue;
    }
    if (c === "'" && syn.charLiteral) {
      if (firstCode < 0) firstCode = i;
      lastCode = i;
      i += charLiteralLength(src, i) || 1;
      continue;
    }
    if ((syn.quotes.includes(c) || syn.multi.includes(c)) && !(syn.valueQuotes && i > 0 && /[\p{L}\p{N}_]/u.test(src[i - 1] as string))) {
      if (firstCode < 0) firstCode = i;
      const end = skipString(src, i, c, syn.multi.includes(c), !(syn.raw ?? '').includes(c));
      lastCode = end - 1;
      i = end;
      continue;
    }
    if (syn.regex && c === '/' && regexAllowed(src, lastCode)) {
      if (firstCode < 0) firstCode = i;
      const end = skipRegex(src, i);
      lastCode = end - 1;
      i = end;
      continue;
    }
    if (firstCode < 0) firstCode = i;
    if (syn.triple) {
      if (c === '(' || c === '[' || c === '{') depth++;
      else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
    }
    if (syn.heredoc && c === '<' && src[i + 1] === '<' && src[i + 2] !== '<') {
      HEREDOC_RE.lastIndex = i;
      const m = HEREDOC_RE.exec(src);
      if (m) {
        heredocs.push({ delim: m[2] ?? m[3] ?? m[4] ?? '', strip: m[1] === '-' });
        lastCode = i + m[0].length - 1;
        i += m[0].length;
        continue;
      }
    }
    lastCode = i;
    i++;
  }
}

/** Returns a function from string index to 1-based line; cheap when called with growing indexes. */
function lineCounter(src: string): (index: number) => number {
  let pos = 0;
  let line = 1;
  return (index: number): number => {
    if (index < pos) {
      pos = 0;
      line = 1;
    }
    while (pos < index) {
      const nl = src.indexOf('\n', pos);
      if (nl < 0 || nl >= index) {
        pos = index;
        break;
      }
      line++;
      pos = nl + 1;
    }
    return line;
  };
}

/** Adds the comments and docstrings of `src` as pieces, merging runs of whole-line comments. */
export function commentPieces(out: PieceSink, src: string, syn: Syntax, label: (kind: CommentKind, line: number) => string, lineBase: number): void {
  const lineOf = lineCounter(src);
  let group: { parts: string[]; line: number; last: number } | undefined;
  const flush = (): void => {
    if (!group) return;
    const text = group.parts.join('\n').trim();
    if (/\p{L}/u.test(text)) addPiece(out, label('comment', group.line + lineBase), text, group.line + lineBase);
    group = undefined;
  };
  scanComments(src, syn, (start, body, kind, wholeLine) => {
    const line = lineOf(start);
    const isLine = kind === 'comment' && wholeLine;
    if (isLine && group && line === group.last + 1) {
      group.parts.push(body);
      group.last = line;
      return true;
    }
    flush();
    if (isLine) group = { parts: [body], line, last: line };
    else if (/\p{L}/u.test(body)) addPiece(out, label(kind, line + lineBase), body, line + lineBase);
    return !isFull(out);
  });
  flush();
}
