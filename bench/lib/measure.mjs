// Whole-process timing: commands run alternately (so machine noise hits all alike) and reported as medians.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import fs from 'node:fs';

/** Runs each named command `runs` times, interleaved, and returns { name: { median, p90, runs } } in ms. */
export function timeSideBySide(commands, { runs = 21, warmup = 2, env = process.env } = {}) {
  const samples = Object.fromEntries(Object.keys(commands).map((k) => [k, []]));
  for (let i = 0; i < runs + warmup; i++) {
    for (const [name, c] of Object.entries(commands)) {
      if (c.before) c.before(i);
      const t = process.hrtime.bigint();
      const r = spawnSync(c.cmd, c.args, { env: c.env ?? env, input: c.input ?? '', cwd: c.cwd, stdio: ['pipe', 'pipe', 'pipe'], shell: c.shell ?? false });
      const ms = Number(process.hrtime.bigint() - t) / 1e6;
      if (r.status !== 0 && !c.allowFail) throw new Error(`${name} failed (${r.status}): ${r.stderr}`);
      if (c.after) c.after(i);
      if (i >= warmup) samples[name].push(ms);
    }
  }
  const out = {};
  for (const [k, v] of Object.entries(samples)) {
    v.sort((a, b) => a - b);
    out[k] = { median: v[Math.floor(v.length / 2)], p90: v[Math.floor(v.length * 0.9)], runs: v.length };
  }
  return out;
}

/** Peak RSS (KiB) of a command, the median of `runs` runs, by GNU time. */
export function peakRss(cmd, args, { env, input = '' } = {}, runs = 7) {
  const out = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync('/usr/bin/time', ['-f', '%M', cmd, ...args], { env, input, encoding: 'utf8' });
    const m = /(\d+)\s*$/.exec(r.stderr.trim());
    if (m) out.push(Number(m[1]));
  }
  out.sort((a, b) => a - b);
  return out[Math.floor(out.length / 2)];
}

/** One line describing the machine, for RESULTS.md. */
export function machine() {
  const cpu = (fs.readFileSync('/proc/cpuinfo', 'utf8').match(/model name\s*:\s*(.+)/) ?? [])[1] ?? os.cpus()[0]?.model ?? 'unknown cpu';
  return `${os.cpus().length} cores, ${cpu.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`;
}

/** Replaces (or appends) the section `## title` of bench/RESULTS.md with `body`. */
export function writeSection(file, title, body) {
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmark results\n\nEach section is written by the script named in it; rerun it to refresh the figures.\n';
  const head = `## ${title}`;
  const start = text.indexOf(`\n${head}\n`);
  const section = `\n${head}\n\n${body.trim()}\n`;
  if (start === -1) text = `${text.replace(/\s*$/, '\n')}${section}`;
  else {
    const next = text.indexOf('\n## ', start + 1);
    text = text.slice(0, start) + section + (next === -1 ? '' : text.slice(next));
  }
  fs.writeFileSync(file, text);
}
