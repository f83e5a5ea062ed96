/**
 * Contract: `extractProse` returns the prose a Claude Code tool call would publish, and nothing else.
 * - Write, Edit, MultiEdit, NotebookEdit: a text file (.md .mdx .markdown .txt .rst .adoc ..., README-,
 *   CHANGELOG- or LICENSE-like names, COMMIT_EDITMSG) gives one piece holding the whole new text; a source
 *   file gives only its comments and docstrings (runs of whole-line comments merged), never string literals
 *   or code. A name that settles nothing (unknown or no extension) is source when the text starts with `#!`
 *   or when at least 30% of its non-blank lines look like code (end in `;` `{` `}`, start with a keyword such
 *   as `import` `def` `function`, or assign), and text otherwise.
 * - Bash: only `git commit|merge|tag` messages (-m, -F, heredocs, --trailer), `gh pr|issue|release` titles,
 *   bodies, comments and notes, and prose fields of `gh api`; any other command gives nothing.
 * - Any other tool: strings in its input that read as prose: at least 60 characters with spaces (12 under
 *   keys such as `title` or `body`), never URLs, ids, paths or code.
 * - Tools in NEVER_PROSE_TOOLS give nothing. No input makes it throw; the text returned is capped at
 *   MAX_PROSE_CHARS and the work is linear in the size of the input.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import { commandWords, lexShell, stdinOf, type ShellCommand } from './shell.js';

/** One stretch of prose, with where it came from and, when known, its 1-based line there. */
export interface ProsePiece {
  source: string;
  text: string;
  line?: number;
}

/** Where relative paths start and how files named by a command (`git commit -F`) are read. */
export interface ProseOptions {
  cwd?: string;
  readFile?: (path: string) => string | undefined;
}

/** Tools that never publish prose; their calls are passed at once. */
export const NEVER_PROSE_TOOLS: ReadonlySet<string> = new Set([
  'Read', 'Glob', 'Grep', 'LS', 'TodoWrite', 'TodoRead', 'Task', 'Agent', 'WebFetch', 'WebSearch',
  'BashOutput', 'KillShell', 'KillBash', 'ExitPlanMode', 'EnterPlanMode', 'NotebookRead', 'Skill',
  'SlashCommand', 'AskUserQuestion', 'ListMcpResourcesTool', 'ReadMcpResourceTool',
]);

/** The most text, in characters, that one call returns across all its pieces. */
export const MAX_PROSE_CHARS = 200_000;

const MAX_PIECES = 2_000;
const MAX_READ_BYTES = 2_000_000;
const MAX_WALK_NODES = 10_000;
const MAX_WALK_DEPTH = 12;

interface Out {
  pieces: ProsePiece[];
  left: number;
}

interface Ctx {
  tool: string;
  cwd?: string;
  read: (path: string) => string | undefined;
  out: Out;
}

/** Returns the prose that the tool call would publish, or [] when it publishes none; never throws. */
export function extractProse(toolName: string, toolInput: unknown, options?: ProseOptions): ProsePiece[] {
  const out: Out = { pieces: [], left: MAX_PROSE_CHARS };
  try {
    if (typeof toolName !== 'string' || toolName === '' || NEVER_PROSE_TOOLS.has(toolName)) return [];
    const opts: ProseOptions = isRecord(options) ? options : {};
    const cwd = typeof opts.cwd === 'string' && opts.cwd !== '' ? opts.cwd : undefined;
    const reader = typeof opts.readFile === 'function' ? opts.readFile : readBounded;
    const read = (path: string): string | undefined => {
      try {
        const text = reader(path);
        return typeof text === 'string' ? text : undefined;
      } catch {
        return undefined;
      }
    };
    const ctx: Ctx = { tool: toolName, cwd, read, out };
    const input: Record<string, unknown> = isRecord(toolInput) ? toolInput : {};
    switch (toolName) {
      case 'Write':
        writeProse(ctx, input);
        break;
      case 'Edit':
        editProse(ctx, str(input.file_path), [{ old: input.old_string, next: input.new_string }], false);
        break;
      case 'MultiEdit': {
        const edits = Array.isArray(input.edits) ? input.edits.slice(0, 1_000) : [];
        const list = edits.map((e: unknown) => (isRecord(e) ? { old: e.old_string, next: e.new_string } : {}));
        editProse(ctx, str(input.file_path), list, true);
        break;
      }
      case 'NotebookEdit':
        notebookEditProse(ctx, input);
        break;
      case 'Bash':
        if (typeof input.command === 'string') shellProse(ctx, input.command, cwd, 0);
        break;
      default:
        walkInput(ctx, toolInput, 'input', '', 0, { nodes: 0 });
    }
  } catch {
    // NOTE: fail-open; whatever was collected before the fault is still worth judging.
  }
  return out.pieces;
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

// ---------------------------------------------------------------------------------------------------------
// Small helpers

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function isFull(out: Out): boolean {
  return out.left <= 0 || out.pieces.length >= MAX_PIECES;
}

function add(out: Out, source: string, text: string, line?: number): void {
  if (isFull(out) || !/\S/.test(text)) return;
  const t = text.length > out.left ? text.slice(0, out.left) : text;
  out.pieces.push(line === undefined ? { source, text: t } : { source, text: t, line });
  out.left -= t.length;
}

function readBounded(path: string): string | undefined {
  try {
    const st = statSync(path);
    if (!st.isFile() || st.size > MAX_READ_BYTES) return undefined;
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function displayPath(path: string, cwd: string | undefined): string {
  if (cwd && isAbsolute(path)) {
    const rel = relative(cwd, path);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  }
  return path;
}

function resolveFrom(cwd: string | undefined, path: string): string {
  return cwd ? resolve(cwd, path) : path;
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

// ---------------------------------------------------------------------------------------------------------
// File kinds

interface Syntax {
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

const S_C: Syntax = { line: ['//'], block: [['/*', '*/']], quotes: '"', multi: '', charLiteral: true };
const S_GO: Syntax = { ...S_C, multi: '`' };
const S_JS: Syntax = { line: ['//'], block: [['/*', '*/']], quotes: `'"`, multi: '`', regex: true };
const S_CSS: Syntax = { line: [], block: [['/*', '*/']], quotes: `'"`, multi: '' };
const S_SCSS: Syntax = { ...S_CSS, line: ['//'] };
const S_PHP: Syntax = { line: ['//', '#'], block: [['/*', '*/']], quotes: `'"`, multi: '' };
const S_PY: Syntax = { line: ['#'], block: [], quotes: `'"`, multi: '', triple: true };
const S_SH: Syntax = { line: ['#'], block: [], quotes: '', multi: `'"`, wordStart: true, heredoc: true, raw: "'" };
const S_RB: Syntax = { line: ['#'], block: [], quotes: '', multi: `'"` };
const S_PERL: Syntax = { line: ['#'], block: [], quotes: '', multi: `'"`, wordStart: true };
const S_CONF: Syntax = { line: ['#'], block: [], quotes: `'"`, multi: '', wordStart: true, valueQuotes: true };
const S_INI: Syntax = { ...S_CONF, line: ['#', ';'] };
const S_SQL: Syntax = { line: ['--'], block: [['/*', '*/']], quotes: `'"`, multi: '' };
const S_LUA: Syntax = { line: ['--'], block: [['--[[', ']]']], quotes: `'"`, multi: '' };
const S_HS: Syntax = { line: ['--'], block: [['{-', '-}']], quotes: '"', multi: '', charLiteral: true };
const S_HTML: Syntax = { line: [], block: [['<!--', '-->']], quotes: '', multi: '' };
const S_LISP: Syntax = { line: [';'], block: [], quotes: '', multi: '"' };
const S_ERL: Syntax = { line: ['%'], block: [], quotes: '"', multi: '' };
const S_ML: Syntax = { line: [], block: [['(*', '*)']], quotes: '"', multi: '' };
const S_FS: Syntax = { ...S_ML, line: ['//'] };
const S_HCL: Syntax = { line: ['#', '//'], block: [['/*', '*/']], quotes: '"', multi: '' };
const S_NIX: Syntax = { line: ['#'], block: [['/*', '*/']], quotes: '"', multi: '' };
const S_PS: Syntax = { line: ['#'], block: [['<#', '#>']], quotes: `'"`, multi: '' };
const S_JULIA: Syntax = { line: ['#'], block: [['#=', '=#']], quotes: '"', multi: '' };
const S_HASH: Syntax = { line: ['#'], block: [], quotes: `'"`, multi: '' };
const S_GENERIC: Syntax = { line: ['//', '#'], block: [['/*', '*/']], quotes: `'"`, multi: '`', wordStart: true };

function table(entries: Array<[string, Syntax]>): Map<string, Syntax> {
  const map = new Map<string, Syntax>();
  for (const [keys, syntax] of entries) for (const k of keys.split(' ')) map.set(k, syntax);
  return map;
}

const BY_EXT = table([
  ['js jsx mjs cjs ts tsx mts cts es6', S_JS],
  ['c h cc cpp cxx hpp hh hxx ino m mm java kt kts scala sc swift cs dart rs groovy gradle proto zig sol d ' +
    'json jsonc json5 glsl hlsl frag vert cu jenkinsfile', S_C],
  ['go', S_GO],
  ['css', S_CSS],
  ['scss less sass styl', S_SCSS],
  ['php', S_PHP],
  ['py pyi pyw pyx ipy bzl star', S_PY],
  ['sh bash zsh fish ksh bats', S_SH],
  ['rb rake gemspec ru cr', S_RB],
  ['pl pm', S_PERL],
  ['yaml yml toml dockerfile containerfile mk make cmake env properties gitignore dockerignore cfg conf ' +
    'gitattributes npmignore', S_CONF],
  ['ini editorconfig', S_INI],
  ['sql psql ada adb ads vhd vhdl', S_SQL],
  ['lua', S_LUA],
  ['hs elm purs', S_HS],
  ['html htm xhtml xml svg vue svelte astro xsl plist', S_HTML],
  ['clj cljs cljc edn el lisp scm rkt', S_LISP],
  ['erl hrl', S_ERL],
  ['ml mli', S_ML],
  ['fs fsi fsx', S_FS],
  ['tf tfvars hcl nomad', S_HCL],
  ['nix', S_NIX],
  ['ps1 psm1', S_PS],
  ['jl', S_JULIA],
  ['r ex exs nim coffee graphql gql awk tcl', S_HASH],
]);

const BY_NAME = table([
  ['makefile gnumakefile dockerfile containerfile procfile justfile .gitignore .gitattributes .dockerignore ' +
    '.npmignore .env .npmrc cmakelists.txt requirements.txt codeowners', S_CONF],
  ['gemfile rakefile podfile vagrantfile brewfile guardfile', S_RB],
  ['.bashrc .zshrc .profile .bash_profile .zprofile .envrc', S_SH],
  ['.editorconfig .gitconfig', S_INI],
  ['jenkinsfile', S_C],
  ['build workspace', S_PY],
]);

const TEXT_EXT = new Set(
  'md mdx markdown mdown mkd mkdn txt text rst adoc asciidoc asc org textile tex latex ltx rdoc pod wiki msg eml'.split(' '),
);

const TEXT_NAME_RE =
  /^(readme|changelog|changes|history|news|license|licence|copying|notice|authors|contributors|contributing|code_of_conduct|security|support|governance|maintainers|credits|thanks|todo|install|commit_editmsg|merge_msg|tag_editmsg|squash_msg|pullreq_editmsg|fmt_merge_msg|description)([-._ ].*)?$/i;

const CODE_LINE_RE =
  /^(import|export|from|def|class|function|const|let|var|return|if|elif|for|while|package|use|fn|pub|func|struct|impl|module|require|public|private|static|#include|#define)\b/;
const ASSIGN_LINE_RE = /^[A-Za-z_$][\w.$]*(\[[^\]]*\])?\s*(=|:=|\+=|-=)\s*[^=\s]/;

function looksLikeCode(text: string): boolean {
  const sample = text.length > 20_000 ? text.slice(0, 20_000) : text;
  let nonBlank = 0;
  let code = 0;
  for (const raw of sample.split('\n')) {
    const l = raw.trim();
    if (!l) continue;
    nonBlank++;
    if (/[;{}]$/.test(l) || CODE_LINE_RE.test(l) || ASSIGN_LINE_RE.test(l)) code++;
  }
  return nonBlank > 0 && code / nonBlank >= 0.3;
}

function shebangSyntax(text: string): Syntax | undefined {
  if (!text.startsWith('#!')) return undefined;
  const first = text.slice(0, Math.max(0, text.indexOf('\n')) || 200);
  if (/python/.test(first)) return S_PY;
  if (/\b(node|deno|bun|tsx|ts-node)\b/.test(first)) return S_JS;
  if (/ruby/.test(first)) return S_RB;
  if (/perl/.test(first)) return S_PERL;
  return S_SH;
}

/** Decides whether a file is text (judged whole) or source (comments only), and which comment syntax. */
function classify(path: string, content: string): 'text' | Syntax {
  const base = basename(path).toLowerCase();
  const ext = extname(base).slice(1);
  const named = BY_NAME.get(base);
  if (named) return named;
  if (TEXT_EXT.has(ext)) return 'text';
  const byExt = ext ? BY_EXT.get(ext) : undefined;
  if (byExt) return byExt;
  // NOTE: `Dockerfile.dev` or `Makefile.am` take the kind of their stem.
  const byStem = base.startsWith('.') ? undefined : BY_NAME.get(base.split('.')[0] ?? '');
  if (byStem) return byStem;
  const bang = shebangSyntax(content);
  if (bang) return bang;
  if (TEXT_NAME_RE.test(base)) return 'text';
  return looksLikeCode(content) ? S_GENERIC : 'text';
}

// ---------------------------------------------------------------------------------------------------------
// Comment scanner: one pass over the source, skipping strings, reporting comments and docstrings.

type CommentKind = 'comment' | 'docstring';
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

/** Adds the comments and docstrings of `src` as pieces, merging runs of whole-line comments. */
function commentPieces(out: Out, src: string, syn: Syntax, label: (kind: CommentKind, line: number) => string, lineBase: number): void {
  const lineOf = lineCounter(src);
  let group: { parts: string[]; line: number; last: number } | undefined;
  const flush = (): void => {
    if (!group) return;
    const text = group.parts.join('\n').trim();
    if (/\p{L}/u.test(text)) add(out, label('comment', group.line + lineBase), text, group.line + lineBase);
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
    else if (/\p{L}/u.test(body)) add(out, label(kind, line + lineBase), body, line + lineBase);
    return !isFull(out);
  });
  flush();
}

// ---------------------------------------------------------------------------------------------------------
// File tools

function writeProse(ctx: Ctx, input: Record<string, unknown>): void {
  const content = str(input.content);
  if (content === undefined) return;
  const path = str(input.file_path) ?? '';
  const shown = path ? displayPath(path, ctx.cwd) : 'file';
  if (/\.ipynb$/i.test(path) && notebookJsonProse(ctx.out, shown, content)) return;
  const kind = classify(path, content);
  if (kind === 'text') add(ctx.out, shown, content, 1);
  else commentPieces(ctx.out, content, kind, (k, line) => `${k} in ${shown}:${line}`, 0);
}

function editLineBase(ctx: Ctx, path: string | undefined, old: unknown): number | undefined {
  if (!path || typeof old !== 'string' || old === '') return undefined;
  const text = ctx.read(resolveFrom(ctx.cwd, path));
  if (text === undefined) return undefined;
  const at = text.indexOf(old);
  if (at < 0) return undefined;
  let lines = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < at; k = text.indexOf('\n', k + 1)) lines++;
  return lines;
}

function editProse(ctx: Ctx, path: string | undefined, edits: Array<{ old?: unknown; next?: unknown }>, multi: boolean): void {
  const shown = path ? displayPath(path, ctx.cwd) : 'file';
  edits.forEach((edit, k) => {
    const next = str(edit.next);
    if (next === undefined || isFull(ctx.out)) return;
    const tag = multi ? `edit ${k + 1}` : 'edit';
    const base = editLineBase(ctx, path, edit.old);
    const kind = classify(path ?? '', next);
    if (kind === 'text') {
      // NOTE: without the old text's place in the file, lines count from the start of the new text.
      add(ctx.out, base === undefined ? `${shown} (${tag}, new text)` : `${shown} (${tag})`, next, (base ?? 0) + 1);
      return;
    }
    const label =
      base === undefined
        ? (c: CommentKind, line: number) => `${c} in ${shown} (${tag}, line ${line} of the new text)`
        : (c: CommentKind, line: number) => `${c} in ${shown}:${line} (${tag})`;
    commentPieces(ctx.out, next, kind, label, base ?? 0);
  });
}

function notebookEditProse(ctx: Ctx, input: Record<string, unknown>): void {
  const src = str(input.new_source);
  if (src === undefined || input.edit_mode === 'delete') return;
  const path = str(input.notebook_path) ?? '';
  const shown = path ? displayPath(path, ctx.cwd) : 'notebook';
  const type = input.cell_type === 'markdown' || input.cell_type === 'code' ? input.cell_type : looksLikeCode(src) ? 'code' : 'markdown';
  if (type === 'markdown') add(ctx.out, `${shown} (markdown cell)`, src, 1);
  else commentPieces(ctx.out, src, S_PY, (k, line) => `${k} in ${shown} (code cell):${line}`, 0);
}

function notebookJsonProse(out: Out, shown: string, content: string): boolean {
  let nb: unknown;
  try {
    nb = JSON.parse(content);
  } catch {
    return false;
  }
  if (!isRecord(nb) || !Array.isArray(nb.cells)) return false;
  const meta = isRecord(nb.metadata) ? nb.metadata : {};
  const lang = String((isRecord(meta.kernelspec) && meta.kernelspec.language) || (isRecord(meta.language_info) && meta.language_info.name) || 'python').toLowerCase();
  const syn = lang === 'python' ? S_PY : lang === 'r' || lang === 'julia' ? S_HASH : S_GENERIC;
  nb.cells.slice(0, 5_000).forEach((cell: unknown, k: number) => {
    if (!isRecord(cell) || isFull(out)) return;
    const src = Array.isArray(cell.source) ? cell.source.filter((s): s is string => typeof s === 'string').join('') : str(cell.source) ?? '';
    if (cell.cell_type === 'code') commentPieces(out, src, syn, (c, line) => `${c} in ${shown} (cell ${k + 1}):${line}`, 0);
    else add(out, `${shown} (cell ${k + 1}, ${cell.cell_type === 'raw' ? 'raw' : 'markdown'})`, src, 1);
  });
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Shell commands that publish prose: git and gh (the words come from src/prose-shell.ts).

function shellProse(ctx: Ctx, command: string, cwd: string | undefined, depth: number): void {
  for (const cmd of lexShell(command)) {
    if (isFull(ctx.out)) return;
    const argv = commandWords(cmd);
    if (argv.length === 0) continue;
    const prog = basename(argv[0] as string);
    if (prog === 'cd') {
      const dir = argv[1];
      if (dir && dir !== '-' && !/^[~$]/.test(dir)) cwd = resolveFrom(cwd, dir);
    } else if (prog === 'git') gitProse(ctx, argv, cmd, cwd);
    else if (prog === 'gh') ghProse(ctx, argv, cmd, cwd);
    else if (/^(ba|z|da|k)?sh$/.test(prog) && depth < 2) {
      const k = argv.findIndex((a, idx) => idx > 0 && /^-[a-z]*c[a-z]*$/.test(a));
      const script = k > 0 ? argv[k + 1] : undefined;
      if (script !== undefined) shellProse(ctx, script, cwd, depth + 1);
    }
  }
}

interface MessageSpec {
  name: string;
  shortArg: string;
  shortOptional: string;
  longArg: ReadonlySet<string>;
}

const GIT_MESSAGE: Record<string, MessageSpec> = {
  commit: {
    name: 'commit message',
    shortArg: 'Cct',
    shortOptional: 'Su',
    longArg: new Set(['author', 'date', 'template', 'reuse-message', 'reedit-message', 'fixup', 'squash', 'cleanup', 'pathspec-from-file']),
  },
  merge: { name: 'merge message', shortArg: 'sX', shortOptional: 'S', longArg: new Set(['strategy', 'strategy-option', 'cleanup', 'into-name']) },
  tag: { name: 'tag message', shortArg: 'u', shortOptional: 'n', longArg: new Set(['local-user', 'cleanup', 'contains', 'no-contains', 'points-at', 'sort', 'format', 'merged', 'no-merged']) },
};

function gitProse(ctx: Ctx, argv: string[], cmd: ShellCommand, cwd: string | undefined): void {
  let i = 1;
  while (i < argv.length && (argv[i] as string).startsWith('-')) {
    const a = argv[i] as string;
    if (a === '-C' && argv[i + 1] !== undefined) cwd = resolveFrom(cwd, argv[i + 1] as string);
    i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env'].includes(a) ? 2 : 1;
  }
  const spec = GIT_MESSAGE[argv[i] ?? ''];
  if (!spec) return;
  const args = argv.slice(i + 1);
  const messages: string[] = [];
  const files: string[] = [];
  const trailers: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k] as string;
    if (a === '--') break;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const take = (): string | undefined => (eq < 0 ? args[++k] : a.slice(eq + 1));
      if (name === 'message') push(messages, take());
      else if (name === 'file') push(files, take());
      else if (name === 'trailer' && spec.name === 'commit message') push(trailers, take());
      else if (spec.longArg.has(name) && eq < 0) k++;
    } else if (a.startsWith('-') && a.length > 1) {
      for (let p = 1; p < a.length; p++) {
        const ch = a[p] as string;
        if (ch === 'm' || ch === 'F' || spec.shortArg.includes(ch)) {
          const v = p + 1 < a.length ? a.slice(p + 1) : args[++k];
          if (ch === 'm') push(messages, v);
          if (ch === 'F') push(files, v);
          break;
        }
        if (spec.shortOptional.includes(ch)) break;
      }
    }
  }
  if (messages.length > 0) add(ctx.out, spec.name, messages.join('\n\n'), 1);
  for (const f of files) {
    if (f === '-' || f === '/dev/stdin') {
      const text = stdinOf(cmd);
      if (text !== undefined) add(ctx.out, spec.name, text, 1);
    } else {
      const text = ctx.read(resolveFrom(cwd, f));
      if (text !== undefined) add(ctx.out, `${spec.name} (file ${f})`, text, 1);
    }
  }
  if (trailers.length > 0) add(ctx.out, `${spec.name} --trailer`, trailers.join('\n'), 1);
}

function push(list: string[], v: string | undefined): void {
  if (v !== undefined && v !== '') list.push(v);
}

interface GhFlag {
  long: string;
  short?: string;
  file?: boolean;
}

const GH_TITLE_BODY: GhFlag[] = [{ long: 'title', short: 't' }, { long: 'body', short: 'b' }, { long: 'body-file', short: 'F', file: true }];
const GH_BODY: GhFlag[] = [{ long: 'body', short: 'b' }, { long: 'body-file', short: 'F', file: true }];
const GH_NOTES: GhFlag[] = [{ long: 'title', short: 't' }, { long: 'notes', short: 'n' }, { long: 'notes-file', short: 'F', file: true }];
const GH_FLAGS: Record<string, GhFlag[]> = {
  'pr create': GH_TITLE_BODY,
  'pr edit': GH_TITLE_BODY,
  'pr comment': GH_BODY,
  'pr review': GH_BODY,
  'pr merge': [{ long: 'subject', short: 't' }, ...GH_BODY],
  'pr close': [{ long: 'comment', short: 'c' }],
  'issue create': GH_TITLE_BODY,
  'issue edit': GH_TITLE_BODY,
  'issue comment': GH_BODY,
  'issue close': [{ long: 'comment', short: 'c' }],
  'release create': GH_NOTES,
  'release edit': GH_NOTES,
};

const GH_API_KEYS = /^(title|body|description|message|comment|text|notes|summary)$/i;

function ghProse(ctx: Ctx, argv: string[], cmd: ShellCommand, cwd: string | undefined): void {
  let i = 1;
  while (i < argv.length && (argv[i] as string).startsWith('-')) i += argv[i] === '-R' || argv[i] === '--repo' ? 2 : 1;
  const group = argv[i] ?? '';
  if (group === 'api') return ghApiProse(ctx, argv.slice(i + 1), cmd, cwd);
  const verb = argv[i + 1] === 'new' ? 'create' : argv[i + 1] ?? '';
  const flags = GH_FLAGS[`${group} ${verb}`];
  if (!flags) return;
  const args = argv.slice(i + 2);
  for (let k = 0; k < args.length; k++) {
    const a = args[k] as string;
    if (a === '--') break;
    for (const flag of flags) {
      let value: string | undefined;
      let matched = false;
      if (a === `--${flag.long}` || (flag.short && a === `-${flag.short}`)) {
        matched = true;
        value = args[++k];
      } else if (a.startsWith(`--${flag.long}=`)) {
        matched = true;
        value = a.slice(flag.long.length + 3);
      } else if (flag.short && a.startsWith(`-${flag.short}`) && !a.startsWith('--')) {
        matched = true;
        value = a.slice(2).replace(/^=/, '');
      }
      if (!matched) continue;
      if (value !== undefined) ghValue(ctx, `gh ${group} ${verb} --${flag.long}`, value, flag.file === true, cmd, cwd);
      break;
    }
  }
}

function ghValue(ctx: Ctx, source: string, value: string, file: boolean, cmd: ShellCommand, cwd: string | undefined): void {
  if (!file) return add(ctx.out, source, value, 1);
  const text = value === '-' ? stdinOf(cmd) : ctx.read(resolveFrom(cwd, value));
  if (text !== undefined) add(ctx.out, `${source} ${value}`, text, 1);
}

function ghApiProse(ctx: Ctx, args: string[], cmd: ShellCommand, cwd: string | undefined): void {
  for (let k = 0; k < args.length; k++) {
    const a = args[k] as string;
    let flag = '';
    let pair: string | undefined;
    const m = /^(-f|-F|--field|--raw-field)(=?)(.*)$/.exec(a);
    if (!m) continue;
    flag = m[1] === '--field' ? '-F' : m[1] === '--raw-field' ? '-f' : (m[1] as string);
    pair = m[3] !== '' ? m[3] : args[++k];
    if (pair === undefined) continue;
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const key = pair.slice(0, eq);
    const leaf = /([A-Za-z_]+)\]?$/.exec(key)?.[1] ?? key;
    if (!GH_API_KEYS.test(leaf)) continue;
    const value = pair.slice(eq + 1);
    if (flag === '-F' && value.startsWith('@')) ghValue(ctx, `gh api -F ${key}`, value.slice(1), true, cmd, cwd);
    else add(ctx.out, `gh api ${flag} ${key}`, value, 1);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Any other tool: walk the input and keep the strings that read as prose.

const PROSE_KEY_RE = /^(title|subject|summary|body|description|desc|comment|message|msg|text|note|notes|reason|details?|markdown|review|reply|answer|explanation)$/i;
const NOT_PROSE_KEY_RE = /^(diff|patch|code|source|script|command|cmd|query|sql|regex|pattern|url|uri|href|link|path|file_?path|sha|hash|token|password|secret|api_?key|id|uuid|encoding)$/i;

function identifierPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function walkInput(ctx: Ctx, v: unknown, path: string, key: string, depth: number, budget: { nodes: number }): void {
  if (isFull(ctx.out) || ++budget.nodes > MAX_WALK_NODES || depth > MAX_WALK_DEPTH) return;
  if (typeof v === 'string') {
    if (NOT_PROSE_KEY_RE.test(key)) return;
    const ok = looksLikeProse(v, 60) || (PROSE_KEY_RE.test(key) && v.length >= 12 && !/[;{}]/.test(v.slice(0, 200)) && looksLikeProse(v, 12));
    if (ok) add(ctx.out, `${ctx.tool} ${path}`, v);
    return;
  }
  if (Array.isArray(v)) {
    const n = Math.min(v.length, 1_000);
    for (let k = 0; k < n; k++) walkInput(ctx, v[k], `${path}[${k}]`, key, depth + 1, budget);
    return;
  }
  if (isRecord(v)) {
    let count = 0;
    for (const k of Object.keys(v)) {
      if (++count > 1_000) break;
      walkInput(ctx, v[k], `${path}${identifierPath(k)}`, k, depth + 1, budget);
    }
  }
}
