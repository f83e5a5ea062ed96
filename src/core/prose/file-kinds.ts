/**
 * Contract: what kind of file a tool writes: text, judged whole (.md .txt .rst ..., README-, CHANGELOG- or
 * LICENSE-like names, COMMIT_EDITMSG), or source, of which only the comments count, with the comment Syntax of
 * its language. By name, then extension, then stem (`Dockerfile.dev`), then shebang; a name that settles nothing
 * is source when at least 30% of its non-blank lines look like code. Pure.
 */
import { basename, extname } from 'node:path';
import type { Syntax } from './comments.js';

const S_C: Syntax = { line: ['//'], block: [['/*', '*/']], quotes: '"', multi: '', charLiteral: true };
const S_GO: Syntax = { ...S_C, multi: '`' };
const S_JS: Syntax = { line: ['//'], block: [['/*', '*/']], quotes: `'"`, multi: '`', regex: true };
const S_CSS: Syntax = { line: [], block: [['/*', '*/']], quotes: `'"`, multi: '' };
const S_SCSS: Syntax = { ...S_CSS, line: ['//'] };
const S_PHP: Syntax = { line: ['//', '#'], block: [['/*', '*/']], quotes: `'"`, multi: '' };
/** Python: `#` comments, docstrings (also a notebook's code cells). */
export const S_PY: Syntax = { line: ['#'], block: [], quotes: `'"`, multi: '', triple: true };
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
/** `#` comments and either quote (R, Elixir, Nim, awk; R and Julia notebooks). */
export const S_HASH: Syntax = { line: ['#'], block: [], quotes: `'"`, multi: '' };
/** The usual markers of most languages, for code of no known kind. */
export const S_GENERIC: Syntax = { line: ['//', '#'], block: [['/*', '*/']], quotes: `'"`, multi: '`', wordStart: true };

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

/** True when at least 30% of the text's non-blank lines look like code (a keyword, an assignment, `;` `{` `}`). */
export function looksLikeCode(text: string): boolean {
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
export function classify(path: string, content: string): 'text' | Syntax {
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
