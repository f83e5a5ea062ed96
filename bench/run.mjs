// Runs every benchmark in bench/ one after another (each writes its own section of bench/RESULTS.md).
// Run on a quiet machine: the figures are whole-process times.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const scripts = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
  .sort();
for (const s of scripts) {
  console.log(`\n=== ${s}`);
  const r = spawnSync(process.execPath, [path.join(dir, s), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
}
