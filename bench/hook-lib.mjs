// Shared by the prompt-hook benchmarks: TypeScript modules of src/ loaded through esbuild, the real corpus
// imported with `git-kb import --tags-from-folders` (cached under bench/.work/), and hook runs.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { CORPUS, WORK } from './lib/corpus.mjs';
import { cleanEnv } from './lib/sets.mjs';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const CLI = path.join(ROOT, 'bin', 'git-kb');
export const HOOK = path.join(ROOT, 'bin', 'git-kb-hook');

/** Imports a TypeScript module of src/ (bundled by esbuild into bench/.work/ts/). */
export async function importTs(rel) {
  const out = path.join(WORK, 'ts', `${rel.replace(/[\\/]/g, '_')}.mjs`);
  await build({
    entryPoints: [path.join(ROOT, rel)],
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  return import(`${pathToFileURL(out).href}?t=${Date.now()}`);
}

/** An env for git-kb runs that never touches the real HOME. */
export function benchEnv(extra = {}) {
  const home = path.join(WORK, 'home');
  fs.mkdirSync(home, { recursive: true });
  return cleanEnv(home, extra);
}

/**
 * The real corpus as a data repo, imported by `git-kb import DIR --tags-from-folders`. When the import refuses
 * the corpus for secret-shaped demo values, the lines that carry them are removed from a copy (reported in
 * `removed`) and the copy is imported instead.
 */
export async function tilRepo({ fresh = false } = {}) {
  const dir = path.join(WORK, 'til-data');
  const meta = path.join(WORK, 'til-data.json');
  if (!fresh && fs.existsSync(path.join(dir, '.git')) && fs.existsSync(meta)) return { dir, ...JSON.parse(fs.readFileSync(meta, 'utf8')) };
  fs.rmSync(dir, { recursive: true, force: true });
  const env = benchEnv();
  let source = CORPUS;
  let removed = [];
  let r = spawnSync(process.execPath, [CLI, '--data', dir, 'import', source, '--tags-from-folders', '--json'], { env, encoding: 'utf8' });
  if (r.status !== 0 && /SECRET_DETECTED/.test(r.stderr)) {
    const { findSecrets } = await importTs('src/core/secrets/scan.ts');
    source = path.join(WORK, 'til-src');
    fs.rmSync(source, { recursive: true, force: true });
    execFileSync('cp', ['-a', CORPUS, source]);
    for (const rel of walk(source)) {
      const file = path.join(source, rel);
      const text = fs.readFileSync(file, 'utf8');
      const bad = new Set(findSecrets(text).map((f) => f.line));
      if (bad.size === 0) continue;
      const lines = text.split('\n');
      for (const l of bad) removed.push({ file: rel, line: l });
      fs.writeFileSync(file, lines.filter((_, i) => !bad.has(i + 1)).join('\n'));
    }
    fs.rmSync(dir, { recursive: true, force: true });
    r = spawnSync(process.execPath, [CLI, '--data', dir, 'import', source, '--tags-from-folders', '--json'], { env, encoding: 'utf8' });
  }
  if (r.status !== 0) throw new Error(`import failed: ${r.stderr}`);
  const result = JSON.parse(r.stdout);
  const info = { imported: result.imported, removed, refusedOriginal: removed.length > 0 };
  fs.writeFileSync(meta, JSON.stringify(info));
  return { dir, ...info };
}

function walk(root, rel = '') {
  const out = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (d.name.startsWith('.')) continue;
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...walk(root, p));
    else if (d.name.endsWith('.md')) out.push(p);
  }
  return out;
}

/** Runs the prompt hook once as Claude Code does; returns { stdout, ms }. */
export function runPromptHook(dataDir, prompt, { session = 'bench', env = {} } = {}) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [HOOK, 'prompt'], {
    env: benchEnv({ GIT_KB_DATA: dataDir, ...env }),
    input: JSON.stringify({ session_id: session, hook_event_name: 'UserPromptSubmit', cwd: os.tmpdir(), prompt }),
    encoding: 'utf8',
  });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status, ms: Number(process.hrtime.bigint() - t) / 1e6 };
}
