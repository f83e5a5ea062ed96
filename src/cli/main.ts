/**
 * Contract: the command line of spec/cli.md, and its container. main reads the environment once (Settings) and
 * hands each verb what its use case needs; it is the one place that prints results and errors and chooses exit
 * codes: a verb's reply prints as JSON (--json) or as its text, and an outcome it names (lint problems, a sync
 * conflict left) exits with that code's status; a KbError exits with its code's status (spec/errors.md), usage
 * mistakes exit 2, anything else exits 1. With --json, results go to stdout as JSON and errors to stderr as
 * {"error":{"code","message"}}. Each verb's use case loads only when that verb runs.
 */
import { Command, CommanderError } from 'commander';
import { readSettings, type Settings } from '../adapters/config/settings.js';
import { EXIT_CODES, KbError, type ErrorCode } from '../core/errors.js';
import * as add from './commands/add.js';
import * as compact from './commands/compact.js';
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
import * as pruneCmd from './commands/prune.js';
import * as search from './commands/search.js';
import * as session from './commands/session.js';
import * as status from './commands/status.js';
import * as sync from './commands/sync.js';
import { declare, isJson, type Cli, type Reply } from './io.js';
import { terminalSafe } from './render/safe.js';

/** Builds the command tree; `reply` receives each verb's result. */
function buildProgram(settings: Settings, reply: (r: Reply) => void): Command {
  const program = new Command('git-kb')
    .description('A personal knowledge base in plain markdown and git, for you and your coding agents.')
    .version('2.0.0')
    .option('--json', 'machine-readable output on stdout')
    .option('--data <dir>', 'the data repo')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, outputError: () => undefined });

  const cli: Cli = {
    program,
    settings,
    reply,
    verb: (name, description) => declare(program.command(name).description(description)),
    group: (name, description) => {
      const parent = declare(program.command(name).description(description), false);
      return (sub, d) => declare(parent.command(sub).description(d));
    },
  };
  // One file per verb (src/cli/commands/); each use case module loads only when its verb runs.
  for (const c of [init, add, edit, get, search, list, lint, importCmd, history, status, doctor, sync, install, host, session, compact, promote, pruneCmd, mcp]) c.register(cli);
  // The optional push after each CLI write (spec/sync.md, auto_sync; hooks never wait for one).
  program.hook('postAction', async (_p: Command, action: Command) => {
    if (action.name() === 'sync') return;
    const { autoSyncCommitted } = await import('../app/auto-sync.js');
    for (const line of await autoSyncCommitted({ settings })) process.stderr.write(`git-kb: ${terminalSafe(line)}\n`);
  });
  return program;
}

/** Writes a line (or lines) to stdout. */
function out(text: string): void {
  if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function commanderToKbError(err: CommanderError): KbError | undefined {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return undefined;
  const msg = err.message.replace(/^error: /, '');
  if (err.code === 'commander.unknownCommand') return new KbError('UNKNOWN_VERB', `${msg}; run "git-kb --help" for the verbs`);
  if (err.code === 'commander.unknownOption') return new KbError('UNKNOWN_OPTION', `${msg}; run "git-kb <verb> --help" for its flags`);
  return new KbError('USAGE', msg);
}

/** Runs the CLI with argv (without node and script). Sets process.exitCode; never calls process.exit. */
export async function main(argv: string[]): Promise<void> {
  let outcome: ErrorCode | undefined;
  const program = buildProgram(readSettings(), (r) => {
    out(isJson() ? JSON.stringify(r.json, null, 2) : terminalSafe(r.text()));
    outcome = r.exit;
  });
  try {
    if (argv.length === 0) {
      out(terminalSafe(program.helpInformation()));
      return;
    }
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    let e: unknown = err;
    if (err instanceof CommanderError) {
      const mapped = commanderToKbError(err);
      if (!mapped) {
        process.exitCode = 0;
        return;
      }
      e = mapped;
    }
    report(e);
    return;
  }
  if (outcome) process.exitCode = EXIT_CODES[outcome];
}

function report(err: unknown): void {
  const kb = err instanceof KbError ? err : undefined;
  const code = kb?.code ?? 'INTERNAL';
  const message = kb ? kb.message : `internal error: ${(err as Error)?.stack ?? String(err)}`;
  if (isJson()) {
    const data = kb && Object.keys(kb.data).length ? { data: kb.data } : {};
    process.stderr.write(`${JSON.stringify({ error: { code, message, ...data } })}\n`);
  } else {
    process.stderr.write(`git-kb: error: ${terminalSafe(message)}\n`);
  }
  process.exitCode = kb ? kb.exitCode : 1;
}
