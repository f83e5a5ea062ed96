/**
 * Contract: the prose of shell commands: only `git commit|merge|tag` messages (-m, -F, heredocs, --trailer),
 * `gh pr|issue|release` titles, bodies, comments and notes, and prose fields of `gh api`, found in every simple
 * command of the line (also after `cd`, `git -C` and inside `sh -c`); files named by -F and --body-file are read
 * through the context's reader. The words come from the lexer of shell.ts.
 */
import { basename } from 'node:path';
import { resolveFrom, type ExtractContext } from './context.js';
import { addPiece, isFull } from './pieces.js';
import { commandWords, lexShell, stdinOf, type ShellCommand } from './shell.js';

/** The prose of a Bash command, `depth` levels inside `sh -c`. */
export function shellProse(ctx: ExtractContext, command: string, cwd: string | undefined, depth: number): void {
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

function gitProse(ctx: ExtractContext, argv: string[], cmd: ShellCommand, cwd: string | undefined): void {
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
  if (messages.length > 0) addPiece(ctx.out, spec.name, messages.join('\n\n'), 1);
  for (const f of files) {
    if (f === '-' || f === '/dev/stdin') {
      const text = stdinOf(cmd);
      if (text !== undefined) addPiece(ctx.out, spec.name, text, 1);
    } else {
      const text = ctx.read(resolveFrom(cwd, f));
      if (text !== undefined) addPiece(ctx.out, `${spec.name} (file ${f})`, text, 1);
    }
  }
  if (trailers.length > 0) addPiece(ctx.out, `${spec.name} --trailer`, trailers.join('\n'), 1);
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

function ghProse(ctx: ExtractContext, argv: string[], cmd: ShellCommand, cwd: string | undefined): void {
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

function ghValue(ctx: ExtractContext, source: string, value: string, file: boolean, cmd: ShellCommand, cwd: string | undefined): void {
  if (!file) return addPiece(ctx.out, source, value, 1);
  const text = value === '-' ? stdinOf(cmd) : ctx.read(resolveFrom(cwd, value));
  if (text !== undefined) addPiece(ctx.out, `${source} ${value}`, text, 1);
}

function ghApiProse(ctx: ExtractContext, args: string[], cmd: ShellCommand, cwd: string | undefined): void {
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
    else addPiece(ctx.out, `gh api ${flag} ${key}`, value, 1);
  }
}
