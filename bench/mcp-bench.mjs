// The MCP server's cost: a server start (spawn to the answer of `initialize`) against one `git-kb search`
// process, and `search` calls on a warm server, at 1,871 and 10,000 entries of the replicated corpus. The
// client is the MCP SDK's own, over stdio. Writes the "MCP server" section of bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { copyRepo, replicatedRepo, WORK } from './lib/corpus.mjs';
import { machine, timeSideBySide, writeSection } from './lib/measure.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'bin', 'git-kb');
const sizes = (process.argv.find((a) => a.startsWith('--sizes='))?.slice(8) ?? '1871,10000').split(',').map(Number);
const runs = Number(process.argv.find((a) => a.startsWith('--runs='))?.slice(7) ?? 15);
const QUERIES = ['rebase onto main', 'postgres index', 'vim split window', 'react hooks state', 'docker compose volume', 'ruby hash default', 'git stash pop conflict', 'css grid center'];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function startServer(data) {
  const t0 = performance.now();
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--data', data], env: { ...process.env, HOME: WORK } }));
  return { client, ms: performance.now() - t0 };
}

const rows = [];
for (const n of sizes) {
  const data = copyRepo(replicatedRepo(n), path.join(WORK, `mcp-${n}`));
  spawnSync(process.execPath, [CLI, '--data', data, 'search', 'warm the caches'], { encoding: 'utf8' });
  const starts = [];
  for (let i = 0; i < runs; i++) {
    const { client, ms } = await startServer(data);
    starts.push(ms);
    await client.close();
  }
  const cli = timeSideBySide({ search: { cmd: process.execPath, args: [CLI, '--data', data, 'search', 'rebase onto main'] } }, { runs, warmup: 2 }).search.median;
  const { client } = await startServer(data);
  await client.callTool({ name: 'search', arguments: { query: 'first call' } });
  const calls = [];
  for (let i = 0; i < runs * 2; i++) {
    const t = performance.now();
    const r = await client.callTool({ name: 'search', arguments: { query: QUERIES[i % QUERIES.length] } });
    calls.push(performance.now() - t);
    if (r.isError) throw new Error(JSON.stringify(r));
  }
  await client.close();
  rows.push({ n, start: median(starts), cli, warm: median(calls), warmP90: [...calls].sort((a, b) => a - b)[Math.floor(calls.length * 0.9)] });
  console.log(rows.at(-1));
}

const body = `Measured ${new Date().toISOString().slice(0, 10)} on ${machine()} by \`node bench/mcp-bench.mjs\` (${runs} runs each).

A server start is spawn to the answer of \`initialize\` (the SDK's client over stdio); \`git-kb search\` is one whole
process; a warm call is one \`search\` tool call on a server that has answered one already (8 queries in turn).

| entries | server start ms | \`git-kb search\` ms | start / search | warm \`search\` call ms (median) | p90 |
|---|---:|---:|---:|---:|---:|
${rows.map((r) => `| ${r.n.toLocaleString('en-US')} | ${r.start.toFixed(1)} | ${r.cli.toFixed(1)} | ${(r.start / r.cli).toFixed(2)} | ${r.warm.toFixed(1)} | ${r.warmP90.toFixed(1)} |`).join('\n')}`;
console.log(body);
if (!process.argv.includes('--no-write')) writeSection(path.join(ROOT, 'bench', 'RESULTS.md'), 'MCP server', body);
