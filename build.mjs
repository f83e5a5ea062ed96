// Builds dist/ with esbuild (type checking is `tsc`, npm run typecheck):
// - the CLI, split into chunks so a verb loads only its code, plus the hook handlers that load on demand under
//   stable names (dist/hooks/*.js);
// - the hook entry dist/hook.js as ONE file holding the prompt handler: the prompt hook runs on every prompt, and
//   each module Node loads costs about half a millisecond. The host signal's matcher is in it too (it runs on
//   every prompt of a repo with hosts). Its on-demand imports (the other events, the index builder, which is also
//   what the background builder process runs, and the recent-sessions signal) point at the stable files of the
//   first build.
// The new build is written beside dist/ and swapped in with renames, so a process started during a rebuild never
// sees half a dist/; chunks of the previous build are kept for processes that started before the swap.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const tmp = `dist.tmp-${process.pid}`;
const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.GIT_KB_BUILD_MINIFY !== '0',
  alias: { 'js-yaml': './build-shims/js-yaml.cjs' },
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
};
// The on-demand modules of the hook entry, by source file: each is built once as a stable file, and the hook
// entry's dynamic imports of it point there.
const lazyHooks = {
  'src/hooks/pretool.ts': 'pretool',
  'src/hooks/session.ts': 'session',
  'src/adapters/index/prompt/build.ts': 'prompt-build',
  'src/hooks/prompt/signals/sessions.ts': 'signals-sessions',
};
const stable = { cli: 'src/cli/entry.ts' };
for (const [src, name] of Object.entries(lazyHooks)) stable[`hooks/${name}`] = src;
await build({ ...common, entryPoints: stable, outdir: tmp, splitting: true, chunkNames: 'chunks/[name]-[hash]' });
await build({
  ...common,
  entryPoints: { hook: 'src/hooks/entry.ts' },
  outdir: tmp,
  splitting: false,
  plugins: [
    {
      name: 'lazy-hooks',
      setup(b) {
        b.onResolve({ filter: /^\.\.?\// }, (args) => {
          if (args.kind !== 'dynamic-import') return undefined;
          const src = path.relative(process.cwd(), path.resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts'))).split(path.sep).join('/');
          const name = lazyHooks[src];
          return name ? { path: `./hooks/${name}.js`, external: true } : undefined;
        });
      },
    },
  ],
});
if (fs.existsSync('dist/chunks')) {
  for (const f of fs.readdirSync('dist/chunks')) if (!fs.existsSync(`${tmp}/chunks/${f}`)) fs.copyFileSync(`dist/chunks/${f}`, `${tmp}/chunks/${f}`);
}
const old = `dist.old-${process.pid}`;
if (fs.existsSync('dist')) fs.renameSync('dist', old);
fs.renameSync(tmp, 'dist');
fs.rmSync(old, { recursive: true, force: true });
