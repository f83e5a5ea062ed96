// Builds dist/ with esbuild (type checking is `tsc`, npm run typecheck):
// - the CLI, split into chunks so a verb loads only its code, plus the hook handlers that load on demand under
//   stable names (dist/hooks/*.js);
// - the hook entry dist/hook.js as ONE file holding the prompt handler: the prompt hook runs on every prompt, and
//   each module Node loads costs about half a millisecond. The host signal's matcher is in it too (it runs on
//   every prompt of a repo with hosts). Its on-demand imports (the other events, the index builder, the
//   recent-sessions signal, the hosts.yaml loader) point at the stable files of the first build.
// The new build is written beside dist/ and swapped in with renames, so a process started during a rebuild never
// sees half a dist/; chunks of the previous build are kept for processes that started before the swap.
import { build } from 'esbuild';
import fs from 'node:fs';

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
const lazyHooks = {
  './pretool.js': { name: 'pretool', src: 'src/hooks/pretool.ts' },
  './session.js': { name: 'session', src: 'src/hooks/session.ts' },
  './prompt-build.js': { name: 'prompt-build', src: 'src/hooks/prompt-build.ts' },
  './signals/sessions.js': { name: 'signals-sessions', src: 'src/hooks/signals/sessions.ts' },
  '../../hosts.js': { name: 'hosts', src: 'src/hosts.ts' },
};
const stable = { cli: 'src/cli/entry.ts', 'hooks/prompt': 'src/hooks/prompt.ts' };
for (const h of Object.values(lazyHooks)) stable[`hooks/${h.name}`] = h.src;
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
          const h = args.kind === 'dynamic-import' ? lazyHooks[args.path] : undefined;
          return h ? { path: `./hooks/${h.name}.js`, external: true } : undefined;
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
