/**
 * Contract: what every command file shares: the --json switch, the global flags, what a verb hands back to main
 * (a Reply: main alone prints it and picks the exit code), how a verb is declared (errors are never printed by
 * commander: src/cli/main.ts reports them), and reading bodies from files or stdin.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import type { Settings } from '../adapters/config/settings.js';
import type { RepoOptions } from '../app/repo.js';
import { KbError, type ErrorCode } from '../core/errors.js';
import { decodeUtf8 } from '../core/text/utf8.js';

/** The flags every verb takes. */
export interface Globals {
  json?: boolean;
  data?: string;
}

/** What a verb's action hands back to main: the result as --json prints it, its text, and its outcome. */
export interface Reply {
  json: unknown;
  text: () => string;
  /** The error code of EXIT_CODES naming an outcome that is not plain success (problems found, a conflict left). */
  exit?: ErrorCode;
  /** Warnings for a person, on stderr after the output (not with --json, whose result carries them). */
  warnings?: string[];
}

/** What a command file gets to declare its verbs and run them: built by main, the CLI's container. */
export interface Cli {
  program: Command;
  verb: (name: string, description: string) => Command;
  group: (name: string, description: string) => (sub: string, description: string) => Command;
  /** The environment, parsed once by main. */
  settings: Settings;
  /** Hands a verb's reply to main, which prints it and keeps its outcome for the exit code. */
  reply: (r: Reply) => void;
}

// Known before parsing, so even a usage error is reported as JSON; arguments after `--` are not flags.
const dashdash = process.argv.indexOf('--');
let jsonMode = process.argv.slice(0, dashdash === -1 ? undefined : dashdash).includes('--json');

/** True when output is JSON (--json anywhere before `--`, or seen while parsing). */
export function isJson(): boolean {
  return jsonMode;
}

/** The global flags as seen by a command (and notes --json). */
export function globals(cmd: Command): Globals {
  const o = cmd.optsWithGlobals() as Globals;
  if (o.json) jsonMode = true;
  return o;
}

/** The options every use case takes: the command's --data and the settings (and notes --json). */
export function repoOptions(ctx: Cli, cmd: Command): RepoOptions {
  return { data: globals(cmd).data, settings: ctx.settings };
}

const quiet = { writeErr: () => undefined, outputError: () => undefined };

/** Makes a command report through main's error handler, and take --json and --data. */
export function declare(cmd: Command, common = true): Command {
  const c = cmd.exitOverride().configureOutput(quiet);
  return common ? c.option('--json', 'machine-readable output on stdout').option('--data <dir>', 'the data repo (default: see "Data repo" in the README)') : c;
}

/** Accumulates a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses a positive integer option, with a usage error naming the flag. */
export function intArg(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v)) throw new KbError('USAGE', `${name} must be a positive integer, got "${v}"`);
    return Number(v);
  };
}

/** Stdin as text when it is a pipe or a file (never waits on a terminal). */
export async function readStdinIfPiped(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const st = fs.fstatSync(0);
  if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return decodeUtf8(Buffer.concat(chunks), 'stdin');
}

/** Reads a --file argument (`-` for stdin), with a clear error. */
export function readFileArg(file: string): string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file === '-' ? 0 : file);
  } catch (err) {
    throw new KbError('NOT_FOUND', `cannot read --file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return decodeUtf8(bytes, file === '-' ? '--file - (stdin)' : `--file ${file}`);
}
