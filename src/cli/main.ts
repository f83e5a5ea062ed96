/**
 * Contract: the command line of spec/cli.md, and its container. main reads the environment once (Settings) and
 * hands each verb what its use case needs; it is the one place that prints results and errors and chooses exit
 * codes: a verb's reply prints as JSON (--json) or as its text, and an outcome it names (lint problems, a sync
 * conflict left) exits with that code's status; a KbError exits with its code's status (spec/errors.md), usage
 * mistakes exit 2, anything else exits 1. With --json, results go to stdout as JSON and errors to stderr as
 * {"error":{"code","message"}}. Only the verb that runs is declared (the whole tree for help or an unknown verb),
 * and its use case loads only then.
 */
import { Command, CommanderError } from 'commander';
import { homeShort } from '../adapters/config/config.js';
import { initCommand } from '../adapters/system/init-hint.js';
import { onInterruptedWrite, takeCreatedRepos } from '../app/created.js';
import { readSettings, type Settings } from '../adapters/config/settings.js';
import { EXIT_CODES, KbError, systemRefusal, type ErrorCode } from '../core/errors.js';
import * as add from './commands/add.js';
import * as adopt from './commands/adopt.js';
import * as commit from './commands/commit.js';
import * as compact from './commands/compact.js';
import * as complete from './commands/complete.js';
import * as completion from './commands/completion.js';
import * as del from './commands/delete.js';
import * as doctor from './commands/doctor.js';
import * as edit from './commands/edit.js';
import * as get from './commands/get.js';
import * as history from './commands/history.js';
import * as host from './commands/host.js';
import * as importCmd from './commands/import.js';
import * as init from './commands/init.js';
import * as install from './commands/install.js';
import * as lint from './commands/lint.js';
import * as list from './commands/list.js';
import * as mcp from './commands/mcp.js';
import * as promote from './commands/promote.js';
import * as relink from './commands/relink.js';
import * as pruneCmd from './commands/prune.js';
import * as reflect from './commands/reflect.js';
import * as search from './commands/search.js';
import * as session from './commands/session.js';
import * as status from './commands/status.js';
import * as sync from './commands/sync.js';
import * as tags from './commands/tags.js';
import { declare, isJson, noColorFlag, type Cli, type Reply } from './io.js';
import { colourOn, finish, paint } from './render/colour.js';
import { addExamples, examplesText } from './examples.js';
import { writeOut, writeStdout } from './pager.js';
import { terminalSafe } from './render/safe.js';

/**
 * Stands in for the commands of the verbs that do not run: every method returns it again, so a verb's
 * registration chain of .argument(), .option() and .action() runs against nothing.
 */
const ABSENT: Command = new Proxy(Object.create(null) as Command, { get: () => () => ABSENT });

/**
 * The verb an argv runs: its first word that is not a global option (or the value of --data). Undefined when
 * there is none (help, the version) or it is one of the verbs that need the whole tree.
 */
/** Verbs that read the whole command tree: `help VERB`, and `completion`, which writes a script of every verb. */
const WHOLE_TREE = new Set(['help', 'completion']);

export function verbOf(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return undefined;
    if (a === '--data') i++;
    else if (!a.startsWith('-')) return WHOLE_TREE.has(a) ? undefined : a;
  }
  return undefined;
}

/**
 * Builds the command tree; `reply` receives each verb's result. With `only`, just that verb (or group) is
 * declared with its flags and the others not at all: declaring the whole tree (about 150 flags) costs a few
 * milliseconds of every command. `declared` says whether `only` was found; when it is not, main builds the
 * whole tree, so an unknown verb still gets commander's suggestion and the help lists everything.
 */
function buildProgram(settings: Settings, reply: (r: Reply) => void, only?: string): { program: Command; declared: boolean } {
  const program = new Command('git-kb')
    .description('A personal knowledge base in plain markdown and git, for you and your coding agents.')
    .version('2.0.0')
    .option('--json', 'machine-readable output on stdout')
    .option('--data <dir>', 'the data repo')
    .option('--no-color', 'no colour (also NO_COLOR=1; colour is off when output is not a terminal)')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (s) => writeStdout(s), writeErr: () => undefined, outputError: () => undefined });

  let declared = only === undefined;
  const wanted = (name: string): boolean => {
    if (only !== undefined && name !== only) return false;
    declared = true;
    return true;
  };
  const cli: Cli = {
    program,
    settings,
    reply,
    verb: (name, description) => (wanted(name) ? declare(program.command(name, { hidden: name.startsWith('__') }).description(description)) : ABSENT),
    group: (name, description) => {
      if (!wanted(name)) return () => ABSENT;
      const parent = declare(program.command(name).description(description), false);
      // A bare group verb (or an unknown subcommand) is a usage error that shows the group's help, as git and
      // commander do (exit 2; the help on stderr, like every error).
      parent.allowExcessArguments(true).action((_o: unknown, cmd: Command) => {
        const sub = cmd.args[0];
        const help = terminalSafe(parent.helpInformation()).trimEnd();
        if (sub) throw new KbError('UNKNOWN_VERB', `unknown command '${sub}' for "git-kb ${name}"\n${help}`);
        throw new KbError('USAGE', `"git-kb ${name}" needs a subcommand\n${help}`);
      });
      return (sub, d) => declare(parent.command(sub).description(d));
    },
  };
  // One file per verb (src/cli/commands/); each use case module loads only when its verb runs.
  for (const c of [init, add, edit, del, adopt, commit, get, search, list, tags, lint, importCmd, history, status, doctor, sync, install, host, session, compact, promote, pruneCmd, reflect, relink, mcp, completion, complete]) c.register(cli);
  addExamples(program);
  // The optional push after each CLI write (spec/sync.md, auto_sync; hooks never wait for one).
  program.hook('postAction', async (_p: Command, action: Command) => {
    if (action.name() === 'sync') return;
    const { autoSyncCommitted } = await import('../app/auto-sync.js');
    for (const line of await autoSyncCommitted({ settings })) process.stderr.write(`git-kb: ${terminalSafe(line)}\n`);
  });
  return { program, declared };
}

/** Writes a line (or lines) to stdout; human output through the pager when long on a terminal (pager.ts). */
function out(text: string, settings?: Settings): void {
  if (!text) return;
  const t = text.endsWith('\n') ? text : `${text}\n`;
  if (settings) writeOut(t, settings);
  else writeStdout(t);
}

/**
 * Verbs of other tools (git, the shell, other note tools) and what git-kb calls them: an unknown verb found here is
 * pointed there, before commander's suggestion by spelling (which offered "lint" for "find").
 */
const VERB_ALIASES: Record<string, string> = {
  show: 'get',
  cat: 'get',
  view: 'get',
  read: 'get',
  find: 'search',
  grep: 'search',
  query: 'search',
  ls: 'list',
  rm: 'delete',
  remove: 'delete',
  version: '--version',
  new: 'add',
  create: 'add',
};

/** A commander error as a KbError on one line (commander puts its "Did you mean" on a line of its own). */
function commanderToKbError(err: CommanderError, verb: string | undefined): KbError | undefined {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return undefined;
  const msg = err.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ').trim();
  if (err.code === 'commander.unknownCommand') {
    const word = /^unknown command '(.*)'/.exec(msg)?.[1];
    const alias = word !== undefined && Object.hasOwn(VERB_ALIASES, word.toLowerCase()) ? VERB_ALIASES[word.toLowerCase()] : undefined;
    if (alias) return new KbError('UNKNOWN_VERB', `unknown command '${word}' (did you mean "git-kb ${alias}"?); run "git-kb --help" for the verbs`);
    return new KbError('UNKNOWN_VERB', `${msg}; run "git-kb --help" for the verbs`);
  }
  if (err.code === 'commander.unknownOption') {
    // A word with spaces or a line break is text that starts with `-` (a note about `--frozen-lockfile`, a PEM
    // block), not a mistyped flag: say how to give it.
    const token = /unknown option '([\s\S]*)'/.exec(err.message)?.[1] ?? '';
    const text = /\s/.test(token.trim()) ? `; text that starts with "-" goes after "--" (git-kb ${verb ?? '<verb>'} ... -- "TEXT"), or comes from --file or stdin` : '';
    return new KbError('UNKNOWN_OPTION', `${msg}${text}; run "git-kb ${verb ?? '<verb>'} --help" for its flags`);
  }
  return new KbError('USAGE', msg);
}

/** Runs the CLI with argv (without node and script). Sets process.exitCode; never calls process.exit. */
export async function main(argv: string[]): Promise<void> {
  let outcome: ErrorCode | undefined;
  const settings = readSettings();
  onInterruptedWrite((dir, stop) => interrupted(dir, settings, stop));
  const reply = (r: Reply): void => {
    if (isJson()) out(JSON.stringify(r.json, null, 2));
    else {
      // Colour marks survive terminalSafe (they are not control characters) and become colours only here.
      out(finish(terminalSafe(r.text()), colourOn(1, noColorFlag, settings.color)), settings);
      for (const w of r.warnings ?? []) process.stderr.write(finish(`git-kb: ${paint('yellow', 'warning:')} ${terminalSafe(w)}\n`, colourOn(2, noColorFlag, settings.color)));
    }
    outcome = r.exit;
  };
  const verb = verbOf(argv);
  let built = buildProgram(settings, reply, verb);
  if (!built.declared) built = buildProgram(settings, reply);
  const { program } = built;
  try {
    if (argv.length === 0) {
      out(terminalSafe(`${program.helpInformation()}${examplesText('') ?? ''}`));
      return;
    }
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    await sayCreated(settings);
    let e: unknown = err;
    if (err instanceof CommanderError) {
      const mapped = commanderToKbError(err, built.declared ? verb : undefined);
      if (!mapped) {
        process.exitCode = 0;
        return;
      }
      e = mapped;
    }
    await report(e, settings);
    return;
  }
  await sayCreated(settings);
  if (outcome) process.exitCode = EXIT_CODES[outcome];
}

/**
 * Ctrl-C while a write holds the lock of `dir`: the write is finished first, then the process stops (exit 130;
 * spec/cli.md, "Writes"). Says so at once.
 */
function interrupted(dir: string, settings: Settings, stop?: { committed: boolean }): void {
  const where = terminalSafe(homeShort(dir, settings.home));
  if (!stop) process.stderr.write(`\ngit-kb: stopping once the write under way in ${where} is done, so nothing is left half written (Ctrl-C again stops at once; the next git-kb write then finishes or undoes what it left)\n`);
  else if (stop.committed) process.stderr.write(`git-kb: stopped after the write, which finished and is committed ("git -C ${where} log -1" shows it); the rest of the command did not run\n`);
  else process.stderr.write(`git-kb: stopped after the write, which made no commit\n`);
}

/**
 * Says where the data went when a write made the data repo (the embedded default on first use, or a --data folder
 * that was empty): one line on stderr, once, in text and --json mode alike (stdout keeps only the result).
 */
async function sayCreated(settings: Settings): Promise<void> {
  for (const dir of takeCreatedRepos()) {
    process.stderr.write(`git-kb: created a new knowledge base at ${terminalSafe(homeShort(dir, settings.home))} (a git repo; "git-kb status" shows it, "${terminalSafe(initCommand(dir))} --remote URL" syncs it)\n`);
  }
}

/**
 * Prints an error. Its message and data pass the secret scanner's redaction first: an error may quote what the user
 * typed (commander's "unknown option '-----BEGIN ... PRIVATE KEY-----...'", a bad tag or marker), and no message
 * may echo a secret (spec/secrets.md). The scanner loads only here, on the error path.
 */
async function report(err: unknown, settings: Settings): Promise<void> {
  const { redactSecrets } = await import('../core/secrets/scan.js');
  const kb = err instanceof KbError ? err : systemRefusal(err);
  const code = kb?.code ?? 'INTERNAL';
  const message = redactSecrets(kb ? kb.message : `internal error: ${(err as Error)?.stack ?? String(err)}`).text;
  if (isJson()) {
    const data = kb && Object.keys(kb.data).length ? { data: redactedData(kb.data, redactSecrets) } : {};
    process.stderr.write(`${JSON.stringify({ error: { code, message, ...data } })}\n`);
  } else {
    process.stderr.write(finish(`git-kb: ${paint('red', 'error:')} ${terminalSafe(message)}\n`, colourOn(2, noColorFlag, settings.color)));
  }
  process.exitCode = kb ? kb.exitCode : 1;
}

/** An error's data with each secret in it redacted (its JSON text redacted and read back; dropped if it breaks). */
function redactedData(data: Record<string, unknown>, redact: (text: string) => { text: string; count: number }): unknown {
  const r = redact(JSON.stringify(data));
  if (r.count === 0) return data;
  try {
    return JSON.parse(r.text);
  } catch {
    return { redacted: true };
  }
}
