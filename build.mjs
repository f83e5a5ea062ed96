// Builds dist/: the CLI and the hook entry as ESM bundles with shared chunks, so a verb loads only its code.
// Type checking is `tsc` (npm run typecheck); esbuild only strips types and bundles. The new build is written
// beside dist/ and swapped in with renames, so a process started during a rebuild never sees half a dist/.
import { build } from 'esbuild';
import fs from 'node:fs';

const tmp = `dist.tmp-${process.pid}`;
await build({
  entryPoints: { cli: 'src/cli/entry.ts', hook: 'src/hooks/entry.ts' },
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.GIT_KB_BUILD_MINIFY !== '0',
  chunkNames: 'chunks/[name]-[hash]',
  alias: { 'js-yaml': './build-shims/js-yaml.cjs' },
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});
// Chunks of the previous build are kept beside the new ones (their names are content hashes, so nothing clashes):
// a process started before the swap may still load one lazily.
if (fs.existsSync('dist/chunks')) {
  for (const f of fs.readdirSync('dist/chunks')) if (!fs.existsSync(`${tmp}/chunks/${f}`)) fs.copyFileSync(`dist/chunks/${f}`, `${tmp}/chunks/${f}`);
}
const old = `dist.old-${process.pid}`;
if (fs.existsSync('dist')) fs.renameSync('dist', old);
fs.renameSync(tmp, 'dist');
fs.rmSync(old, { recursive: true, force: true });
