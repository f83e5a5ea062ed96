// Builds dist/ with esbuild (type checking is `tsc`, npm run typecheck):
// - the CLI, split into chunks so a verb loads only its code, plus the hook handlers that load on demand under
//   stable names (dist/hooks/*.js). esbuild splits ES modules only, so each file of that build is then turned
//   into CommonJS (dist/package.json says so): Node's ES module loader resolves and reads every module through
//   promises and its thread pool, about 7 ms of every command at 25 modules, where require reads them in turn;
// - dist/code-cache.cjs, which the bin/ scripts install first: V8's compiled code of every built file kept between
//   processes (src/adapters/system/code-cache.ts);
// - the hook entry dist/hook.cjs as ONE file holding the prompt handler: the prompt hook runs on every prompt, and
//   each module Node loads costs about half a millisecond. The host signal's matcher is in it too (it runs on
//   every prompt of a repo with hosts). The PreToolUse handler is in it too, so the calls it passes at once (a
//   tool or command that cannot publish prose, git-kb's own reads) start no ESM loader. Its on-demand imports (the
//   session events, the prose gate, and the index builder, which is also what the background builder process
//   runs) point at the stable files of the first build.
// dist/ is committed (the plugin is installed as the repository is committed, with no build step), so the output
// is deterministic and holds nothing but this build: `node build.mjs --out DIR` writes a fresh build into DIR only,
// and test/dist.test.ts checks that it is byte for byte the committed dist/ (spec/plugin.md).
// `node build.mjs` writes the new build beside dist/ and swaps it in with renames, so a process started during a
// rebuild never sees half a dist/. The chunks of the previous build (and only those: one generation) are copied
// in for processes that started before the swap; dist/chunks/.gitignore, written by every build, lists the
// build's own chunks, so git ignores the kept ones and they are never committed.
import { build, transform } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';

const outArg = process.argv.indexOf('--out');
const fresh = outArg >= 0 ? path.resolve(process.argv[outArg + 1] ?? '') : undefined;
if (fresh !== undefined && (!process.argv[outArg + 1] || fs.existsSync(fresh))) {
  console.error('build.mjs: --out takes a directory that does not exist yet');
  process.exit(2);
}
const tmp = fresh ?? `dist.tmp-${process.pid}`;
const common = {
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.GIT_KB_BUILD_MINIFY !== '0',
  alias: { 'js-yaml': './build-shims/js-yaml.cjs' },
  logLevel: 'warning',
};
// import() of our own files and of Node's modules becomes require: no ES module loader in any process. Only where
// the output is CommonJS: in the split build, esbuild would route it through a require helper of a shared chunk,
// which resolves paths from that chunk's folder.
const noImport = { 'dynamic-import': false };
// The on-demand modules of the hook entry, by source file: each is built once as a stable file, and the hook
// entry's dynamic imports of it point there.
const lazyHooks = {
  'src/app/gate.ts': 'gate',
  'src/hooks/session.ts': 'session',
  'src/adapters/index/prompt/update.ts': 'prompt-build',
};
// The counting worker of a search rebuild (src/adapters/index/count-thread.ts), under a stable name.
const stable = { cli: 'src/cli/entry.ts', 'workers/count': 'src/adapters/index/count-worker.ts' };
for (const [src, name] of Object.entries(lazyHooks)) stable[`hooks/${name}`] = src;
// commander's child_process, loaded only if commander uses it (build-shims/lazy-child-process.cjs).
const lazyChildProcess = {
  name: 'lazy-child-process',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: path.resolve('build-shims/lazy-child-process.cjs') } : undefined,
    );
  },
};
// simple-get's url.parse, which warns on Node 24 (build-shims/simple-get-url.cjs).
const simpleGetUrl = {
  name: 'simple-get-url',
  setup(b) {
    b.onResolve({ filter: /^(node:)?url$/ }, (args) =>
      /[\\/]node_modules[\\/]simple-get[\\/]/.test(args.importer) ? { path: path.resolve('build-shims/simple-get-url.cjs') } : undefined,
    );
  },
};
await build({ ...common, entryPoints: stable, outdir: tmp, splitting: true, chunkNames: 'chunks/[name]-[hash]', plugins: [lazyChildProcess, simpleGetUrl] });
// The split build as CommonJS, file by file: an import between chunks becomes a require of the same file, an
// export a getter on module.exports, import.meta.url the file's own URL. Strict mode, as the ES modules were.
// NOTE: nothing may await at the top level of a module (esbuild refuses it here): src/cli/entry.ts does not.
for (const file of fs.readdirSync(tmp, { recursive: true }).map(String).filter((f) => f.endsWith('.js')).sort()) {
  const at = path.join(tmp, file);
  const text = fs.readFileSync(at, 'utf8');
  const url = text.includes('import.meta');
  const out = await transform(text, {
    format: 'cjs',
    loader: 'js',
    target: 'node20',
    minify: common.minify,
    supported: noImport,
    define: url ? { 'import.meta.url': '__module_url' } : {},
    banner: `"use strict";${url ? 'const __module_url=require("node:url").pathToFileURL(__filename).href;' : ''}`,
    logLevel: 'warning',
  });
  fs.writeFileSync(at, out.code);
}
fs.writeFileSync(`${tmp}/package.json`, '{\n  "type": "commonjs"\n}\n');
// NOTE: the hook entry is CommonJS (dist/hook.cjs, run by bin/git-kb-hook, which the root package.json, naming no
// "type", makes CommonJS too): an ES module entry loads Node's ESM loader (about 3 ms a process, measured against an empty
// .cjs); its on-demand handlers are the CommonJS files of the split build above, reached with require.
await build({
  ...common,
  format: 'cjs',
  supported: noImport,
  banner: { js: 'const __hook_url = require("node:url").pathToFileURL(__filename).href;' },
  define: { 'import.meta.url': '__hook_url' },
  outExtension: { '.js': '.cjs' },
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
// NOTE: esbuild's CommonJS interop (__toESM) gives each default import of a Node module a fresh object with a
// getter per property (about 160 KB for fs, path, os and url, and a young-generation collection a prompt); the
// hook and the code cache import nothing but Node's modules (test/architecture.test.ts), so an object that
// inherits from the module and adds `default` does the same job. The helper's minified shape is fixed by the
// pinned esbuild; a new shape fails the build here rather than passing unnoticed.
function plainInterop(file) {
  const text = fs.readFileSync(file, 'utf8');
  const helper = /=\((\w+),(\w+),(\w+)\)=>\(\3=\1!=null\?[\w$]+\([\w$]+\(\1\)\):\{\},[\w$]+\(\2\|\|!\1\|\|!\1\.__esModule\?([\w$]+)\(\3,"default",\{value:\1,enumerable:!0\}\):\3,\1\)\)/g;
  const found = text.match(helper) ?? [];
  if (process.env.GIT_KB_BUILD_MINIFY !== '0' && found.length !== 1) {
    console.error(`build.mjs: expected esbuild's __toESM helper once in ${path.basename(file)}, found it ${found.length} times`);
    process.exit(1);
  }
  fs.writeFileSync(file, text.replace(helper, '=($1,$2,$3)=>($3=Object.create($1),$4($3,"default",{value:$1,enumerable:!0}),$3)'));
}
plainInterop(`${tmp}/hook.cjs`);
// The code cache (src/adapters/system/code-cache.ts) as one CommonJS file of its own: bin/git-kb and
// bin/git-kb-hook install it before they require the CLI or the hook, so every file they load is in its reach.
await build({ ...common, format: 'cjs', outExtension: { '.js': '.cjs' }, entryPoints: { 'code-cache': 'src/adapters/system/code-cache.ts' }, outdir: tmp, splitting: false });
plainInterop(`${tmp}/code-cache.cjs`);
/** The chunks a build wrote itself, from its dist/chunks/.gitignore (undefined when there is none). */
function ownChunks(dir) {
  try {
    return fs.readFileSync(`${dir}/chunks/.gitignore`, 'utf8').split('\n').filter((l) => l.startsWith('!') && l !== '!.gitignore').map((l) => l.slice(1));
  } catch {
    return undefined;
  }
}
const chunks = fs.readdirSync(`${tmp}/chunks`).sort();
fs.writeFileSync(
  `${tmp}/chunks/.gitignore`,
  ['# Written by build.mjs: the chunks of this build. Others here are kept from the previous build for running processes.', '*', '!.gitignore', ...chunks.map((f) => `!${f}`), ''].join('\n'),
);
if (fresh) process.exit(0);
if (fs.existsSync('dist/chunks')) {
  const previous = ownChunks('dist') ?? fs.readdirSync('dist/chunks').filter((f) => f !== '.gitignore');
  for (const f of previous) if (!fs.existsSync(`${tmp}/chunks/${f}`) && fs.existsSync(`dist/chunks/${f}`)) fs.copyFileSync(`dist/chunks/${f}`, `${tmp}/chunks/${f}`);
}
const old = `dist.old-${process.pid}`;
if (fs.existsSync('dist')) fs.renameSync('dist', old);
fs.renameSync(tmp, 'dist');
fs.rmSync(old, { recursive: true, force: true });
