/**
 * Contract: long human output on a terminal goes through a pager, as git does: `$PAGER` (through `sh -c`), else
 * `less -FRX` (which quits at once when the text fits the screen, keeps colours, and leaves the text on the
 * screen); `LESS=FRX` is set when LESS is unset. No pager when stdout is not a terminal, when the text fits the
 * terminal's height, or when PAGER is empty or `cat`. A pager that cannot be started falls back to printing.
 */
import { spawnSync } from 'node:child_process';
import type { Settings } from '../adapters/config/settings.js';

/** Writes `text` to stdout, through the pager when it is long and stdout is a terminal. */
export function writeOut(text: string, settings: Settings): void {
  const pager = settings.pager === undefined ? 'less -FRX' : settings.pager.trim();
  const rows = process.stdout.rows || 24;
  if (!process.stdout.isTTY || !pager || pager === 'cat' || text.split('\n').length < rows) {
    process.stdout.write(text);
    return;
  }
  const r = spawnSync('sh', ['-c', pager], { input: text, stdio: ['pipe', 'inherit', 'inherit'], env: { LESS: 'FRX', ...settings.env } });
  if (r.error || r.status === 126 || r.status === 127) process.stdout.write(text);
}
