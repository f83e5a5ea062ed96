/**
 * Contract: long human output on a terminal goes through a pager, as git does: `$PAGER` (through `sh -c`), else
 * `less -FRX` (which quits at once when the text fits the screen, keeps colours, and leaves the text on the
 * screen); `LESS=FRX` is set when LESS is unset. No pager when stdout is not a terminal, when the text fits the
 * terminal's height, or when PAGER is empty or `cat`. A pager that cannot be started falls back to printing.
 */
import fs from 'node:fs';
import { childProcess, tty } from '../adapters/system/builtins.js';
import { writeToFd1 } from '../adapters/system/stdout.js';
import type { Settings } from '../adapters/config/settings.js';

/**
 * Whether stdout is a terminal. Only a character device can be one, so a pipe or a file is told apart with one
 * fstat, without building process.stdout (Node's streams and sockets, a few ms of a short command).
 */
function stdoutIsTerminal(): boolean {
  try {
    if (!fs.fstatSync(1).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return tty().isatty(1);
}

/**
 * Writes `text` to stdout: to a terminal through process.stdout, else straight to the descriptor
 * (adapters/system/stdout.ts; a reader that goes away, `git-kb list | head`, ends the output quietly).
 */
export function writeStdout(text: string): void {
  if (stdoutIsTerminal()) process.stdout.write(text);
  else writeToFd1(text);
}

/** Writes `text` to stdout, through the pager when it is long and stdout is a terminal. */
export function writeOut(text: string, settings: Settings): void {
  const pager = settings.pager === undefined ? 'less -FRX' : settings.pager.trim();
  if (!stdoutIsTerminal()) {
    writeToFd1(text);
    return;
  }
  if (!pager || pager === 'cat' || text.split('\n').length < (process.stdout.rows || 24)) {
    process.stdout.write(text);
    return;
  }
  const r = childProcess().spawnSync('sh', ['-c', pager], { input: text, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...settings.env } });
  if (r.error || r.status === 126 || r.status === 127) process.stdout.write(text);
}
