// Builds dist/: the CLI and the hook entry as ESM bundles with shared chunks, so a verb loads only its code.
// Type checking is `tsc --noEmit` (npm run typecheck); esbuild only strips types and bundles.
import { build } from 'esbuild';
import fs from 'node:fs';

fs.rmSync('dist', { recursive: true, force: true });
const entryPoints = { cli: 'src/cli/entry.ts' };
if (fs.existsSync('src/hooks/entry.ts')) entryPoints.hook = 'src/hooks/entry.ts';
await build({
  entryPoints,
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: false,
  chunkNames: 'chunks/[name]-[hash]',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});
