/**
 * Contract: what every command file shares: the --json switch, the global flags, what a verb hands back to main
 * (a Reply: main alone prints it and picks the exit code), how a verb is declared (errors are never printed by
 * commander: src/cli/main.ts reports them), and reading bodies from files or stdin.
 */
import fs from 'node:fs';
import { MAX_INPUT_BYTES, readRegularFile, readStdin } from '../adapters/system/read-bounded.js';
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

/** True when --no-color is given (anywhere before `--`): no colour on either stream (render/colour.ts). */
export const noColorFlag = process.argv.slice(0, dashdash === -1 ? undefined : dashdash).includes('--no-color');

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
  const data = globals(cmd).data;
  // NOTE: an empty --data (an unset shell variable) must not fall back to the default repo: that would write elsewhere.
  if (data !== undefined && data.trim() === '') throw new KbError('USAGE', '--data needs a folder; it was given an empty value');
  return { data, settings: ctx.settings };
}

const quiet = { writeErr: () => undefined, outputError: () => undefined };

/** Makes a command report through main's error handler, and take --json and --data. */
export function declare(cmd: Command, common = true): Command {
  const c = cmd.exitOverride().configureOutput(quiet);
  return common ? c.option('--json', 'machine-readable output on stdout').option('--data <dir>', "the data repo (default: GIT_KB_DATA, a config file's data_dir, else ~/.git-kb/data)").option('--no-color', 'no colour (also NO_COLOR=1; colour is off when output is not a terminal)') : c;
}

/** Accumulates a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses an integer option of at least `min` (default 1: `--limit 0` is refused), with a usage error naming the flag. */
export function intArg(name: string, min = 1) {
  return (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min) throw new KbError('USAGE', `${name} must be ${min === 1 ? 'a positive integer' : `an integer of at least ${min}`}, got "${v}"`);
    return Number(v);
  };
}

/** Stdin as text when it is a pipe or a file (never waits on a terminal). */
export async function readStdinIfPiped(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const st = fs.fstatSync(0);
  if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return undefined;
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const c of process.stdin) {
    total += (c as Buffer).length;
    if (total > MAX_INPUT_BYTES) throw new KbError('USAGE', `stdin is more than ${MAX_INPUT_BYTES / 2 ** 20} MB; the limit is ${MAX_INPUT_BYTES / 2 ** 20} MB`);
    chunks.push(c as Buffer);
  }
  return decodeUtf8(Buffer.concat(chunks), 'stdin');
}

/** Reads a --file argument (`-` for stdin), with a clear error. */
export function readFileArg(file: string): string {
  const bytes = file === '-' ? readStdin('--file - (stdin)') : readRegularFile(file, '--file');
  return decodeUtf8(bytes, file === '-' ? '--file - (stdin)' : `--file ${file}`);
}
