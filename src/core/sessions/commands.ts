/**
 * Contract: what a session summary says about the session's Bash commands (spec/sessions.md, "Body" and "Trivial
 * sessions"). `didWork` tells a command that did something (it ran without an error and is more than a look
 * around: `ls`, `cat`, `git status`, `git-kb get`, ...) from one that did not; the summary counts them in
 * `commands`, and a one-prompt session with such a command is not trivial. `shownCommand` is how a command appears
 * in `## Commands`: verbatim, except a line that runs one of git-kb's own writes (`git-kb add`, `host add`,
 * `edit`, ...; also as a path to `bin/git-kb`, `node …/bin/git-kb`, `npx git-kb` or `git kb`), which is shown as
 * that git-kb command alone with its text arguments elided, so a summary never repeats the note it wrote (and
 * `search` does not return the session as a near-duplicate of it). Pure; the words come from the shell lexer.
 */
import { isReadVerb } from '../gate/own-reads.js';
import { commandWords, lexShell, type ShellCommand } from '../prose/shell.js';
import type { CommandRun } from './transcript.js';
import { shellQuote } from '../text/shell-quote.js';

/** Programs that only look: a command made of these alone (and `cd`) did no work. */
const LOOK_PROGRAMS = new Set([
  'ls', 'pwd', 'cat', 'head', 'tail', 'less', 'more', 'echo', 'which', 'type', 'whoami', 'date', 'grep', 'egrep',
  'rg', 'wc', 'file', 'stat', 'tree', 'du', 'df', 'id', 'uname', 'hostname', 'cd',
]);
/** git subcommands that only look. */
const LOOK_GIT = new Set(['status', 'log', 'diff', 'show']);
/** An output redirection to a file (not `2>&1`, not `>/dev/null`). */
const WRITE_REDIRECT = /(?:^|[^<>&\d])\d?>{1,2}\|?\s*(?!&|\/dev\/null\b)[^\s&|;]/;

/** The longest word of a git-kb write that is shown (a flag, a value, an id); longer ones are elided. */
const SHOWN_WORD = 40;
/** Characters a shown word may hold unquoted. */
const SAFE_WORD = /^[\w@%+=:,./~-]+$/;

function basename(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** The words after the program when `argv` runs git-kb (`git-kb`, `…/bin/git-kb`, `node …`, `npx …`, `git kb`). */
export function gitKbArgs(argv: string[]): string[] | undefined {
  const [prog, ...rest] = argv;
  if (prog === undefined) return undefined;
  const name = basename(prog);
  if (prog === 'git-kb' || (name === 'git-kb' && prog.endsWith('/bin/git-kb'))) return rest;
  if (name === 'git' && rest[0] === 'kb') return rest.slice(1);
  if (name === 'node' || name === 'npx' || name === 'pnpx' || name === 'bunx') {
    // NOTE: flags of node or npx (`--yes`, `-y`) may come before the program.
    let k = 0;
    while (k < rest.length && rest[k]!.startsWith('-')) k++;
    const target = rest[k];
    if (target === undefined) return undefined;
    const inner = basename(target);
    if (name === 'node' ? target.endsWith('/bin/git-kb') : inner === 'git-kb' || /^git-kb@/.test(inner)) return rest.slice(k + 1);
  }
  return undefined;
}

/** True when one simple command only looks (a listing, a read, git's or git-kb's own reads). */
function looksOnly(cmd: ShellCommand): boolean {
  const argv = commandWords(cmd);
  const prog = argv[0];
  if (prog === undefined) return true;
  const kb = gitKbArgs(argv);
  if (kb) return isReadVerb(kb.join(' '));
  const name = basename(prog);
  if (name === 'git') {
    const sub = argv.slice(1).find((w) => !w.startsWith('-'));
    return sub !== undefined && LOOK_GIT.has(sub) && !argv.includes('-C');
  }
  return LOOK_PROGRAMS.has(name);
}

/**
 * True when a command did work: it ran (its result came back, and not as an error) and is more than a look around
 * (some part of it is not a LOOK_PROGRAMS program, a look-only git subcommand or a git-kb read, or it redirects
 * output to a file).
 */
export function didWork(run: CommandRun): boolean {
  if (!run.result || run.result.error) return false;
  if (WRITE_REDIRECT.test(run.command)) return true;
  return !lexShell(run.command).every(looksOnly);
}

/** A word as the shell would need it written. */
function quoteWord(w: string): string {
  return SAFE_WORD.test(w) ? w : shellQuote(w);
}

/** A git-kb command's words with its text elided: flags and short words kept, each run of others one `…`. */
function shortened(args: string[]): { text: string; elided: boolean } {
  const out: string[] = [];
  let elided = false;
  for (const w of args) {
    const eq = /^(--[\w-]+)=(.*)$/s.exec(w);
    const short = (v: string): boolean => v.length <= SHOWN_WORD && !/\s/.test(v);
    if (eq && !short(eq[2]!)) {
      out.push(`${eq[1]}=…`);
      elided = true;
    } else if (short(w)) out.push(quoteWord(w));
    else {
      if (out[out.length - 1] !== '…') out.push('…');
      elided = true;
    }
  }
  return { text: out.join(' '), elided };
}

/** The first entry id a command's output names (what `git-kb add` prints), when it ran without an error. */
function writtenId(run: CommandRun): string | undefined {
  if (!run.result || run.result.error) return undefined;
  return /(?<![\w-])kb-[0-9a-z]{4,}(?![\w-])/.exec(run.result.text)?.[0];
}

/**
 * A command as `## Commands` shows it: verbatim, or, for a line that runs a git-kb write, that git-kb command
 * alone (several joined by `;`), named `git-kb`, with words longer than SHOWN_WORD characters or holding white space
 * shown as `…`, and ` # text elided; wrote kb-…` (the id its output named) when anything was left out: a word, its
 * stdin (a heredoc) or the rest of the line.
 */
export function shownCommand(run: CommandRun): string {
  const cmds = lexShell(run.command);
  const writes: string[] = [];
  let elided = false;
  for (const cmd of cmds) {
    const args = gitKbArgs(commandWords(cmd));
    if (!args || isReadVerb(args.join(' '))) {
      elided = true;
      continue;
    }
    const s = shortened(args);
    writes.push(s.text ? `git-kb ${s.text}` : 'git-kb');
    if (s.elided || cmd.stdin !== undefined || cmd.pipedFrom) elided = true;
  }
  if (writes.length === 0 || !elided) return run.command;
  const id = writtenId(run);
  return `${writes.join(' ; ')} # text elided${id ? `; wrote ${id}` : ''}`;
}
