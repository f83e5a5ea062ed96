// Writes the "## Prompt hook" section of bench/RESULTS.md from the last runs of bench/hook-speed.mjs and
// bench/hook-retrieval.mjs (each leaves its part in bench/.work/). Run by both scripts at their end.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeSection } from './lib/measure.mjs';

const WORK = path.join(import.meta.dirname, '.work');
const part = (name) => {
  const f = path.join(WORK, name);
  return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim() : `(not run yet: \`node bench/${name.replace('.md', '.mjs')}\`)`;
};

/** Writes the section. */
export function writePromptHookSection() {
  const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.+)/) ?? [])[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  const nproc = execFileSync('nproc', { encoding: 'utf8' }).trim();
  const body = [
    `Written by \`bench/hook-speed.mjs\` and \`bench/hook-retrieval.mjs\` on ${new Date().toISOString().slice(0, 10)}: nproc ${nproc}, node ${process.version}, ${cpu}, load average at write time ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}.`,
    '',
    part('hook-speed.md'),
    '',
    part('hook-retrieval.md'),
  ].join('\n');
  writeSection(path.join(import.meta.dirname, 'RESULTS.md'), 'Prompt hook', body);
}

if (process.argv[1] === import.meta.filename) writePromptHookSection();
