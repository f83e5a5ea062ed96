// Runs every benchmark, one after another (each writes its own section of bench/RESULTS.md). Run it on a quiet
// machine: the figures are whole-process times. Extra arguments are passed to every script.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const scripts = ['core.mjs', 'hook-speed.mjs', 'hook-tune.mjs', 'hook-scale.mjs', 'retrieval.mjs', 'gate-speed.mjs', 'hosts-sessions-speed.mjs', 'session-first-prompt.mjs', 'sync-bench.mjs', 'mcp-bench.mjs', 'judge-child.mjs'];
for (const s of scripts) {
  console.log(`\n=== ${s}`);
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, s), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (r.status !== 0) process.exitCode = 1;
}
