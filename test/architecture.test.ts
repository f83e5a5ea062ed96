/**
 * Guards the layering (DESIGN.md, "Layers") by parsing the imports of every file under src/ with the TypeScript
 * parser, so multi-line, `export ... from`, type-only and dynamic imports are all told apart:
 * - every file lives in a folder of FOLDERS, and imports only its own folder or the folders listed for it;
 * - there is no import cycle (type-only imports aside: they load nothing);
 * - packages are imported only where they belong (isomorphic-git by the git adapter, commander by the CLI,
 *   minisearch by the index adapter, node:fs and friends never by the pure core);
 * - nothing the hook entry loads statically pulls in isomorphic-git, commander, minisearch or a use case,
 *   and the built bundle dist/hook.cjs imports nothing but Node's own modules and its on-demand handlers.
 * The rules are plain functions over an import graph, and are first shown to catch a graph that breaks them.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');

/** One import of a module: what it names, and whether it loads code when the importer loads. */
interface Edge {
  spec: string;
  /** Resolved repo-relative file for a relative import (`src/x.ts`), else the package name as written. */
  target: string;
  kind: 'static' | 'dynamic' | 'type';
}
type Graph = Map<string, Edge[]>;

function listTs(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listTs(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolveTarget(fromFile: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  const abs = path.resolve(path.dirname(path.join(ROOT, fromFile)), spec).replace(/\.js$/, '.ts');
  return path.relative(ROOT, abs).split(path.sep).join('/');
}

/** Every import of one source file. */
export function importsOf(file: string, text: string): Edge[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const edges: Edge[] = [];
  const add = (spec: string, kind: Edge['kind']): void => {
    edges.push({ spec, target: resolveTarget(file, spec), kind });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        !!clause &&
        (clause.isTypeOnly ||
          (!clause.name && !!clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)));
      add(node.moduleSpecifier.text, typeOnly ? 'type' : 'static');
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly ? 'type' : 'static');
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      add(node.moduleReference.expression.text, 'static');
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      add(node.arguments[0].text, 'dynamic');
    } else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'require' && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      add(node.arguments[0].text, 'static');
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

function buildGraph(): Graph {
  const graph: Graph = new Map();
  for (const abs of listTs(SRC)) {
    const rel = path.relative(ROOT, abs).split(path.sep).join('/');
    graph.set(rel, importsOf(rel, fs.readFileSync(abs, 'utf8')));
  }
  return graph;
}

/** The modules a module loads with it: itself and everything reachable through imports of the given kinds. */
export function staticClosure(graph: Graph, start: string, kinds: Edge['kind'][] = ['static']): Set<string> {
  const seen = new Set<string>();
  const stack = [start];
  while (stack.length) {
    const m = stack.pop()!;
    if (seen.has(m)) continue;
    seen.add(m);
    for (const e of graph.get(m) ?? []) if (kinds.includes(e.kind)) stack.push(e.target);
  }
  return seen;
}

/** A path from `start` to `goal` through runtime imports, for error messages. */
function chain(graph: Graph, start: string, goal: string, kinds: Edge['kind'][] = ['static']): string {
  const prev = new Map<string, string>();
  const queue = [start];
  const seen = new Set([start]);
  while (queue.length) {
    const m = queue.shift()!;
    if (m === goal) break;
    for (const e of graph.get(m) ?? []) {
      if (!kinds.includes(e.kind) || seen.has(e.target)) continue;
      seen.add(e.target);
      prev.set(e.target, m);
      queue.push(e.target);
    }
  }
  const steps = [goal];
  while (prev.has(steps[0]!)) steps.unshift(prev.get(steps[0]!)!);
  return steps.join(' -> ');
}

/**
 * The folders and what each may import besides itself. Lower folders come first; a folder never imports one
 * listed after it, so dependencies point one way: cli, hooks -> app -> adapters -> core.
 */
export const FOLDERS: [folder: string, mayImport: string[]][] = [
  ['src/core', []],
  ['src/adapters/config', ['src/core']],
  ['src/adapters/system', ['src/core']],
  ['src/adapters/store', ['src/core', 'src/adapters/system']],
  ['src/adapters/git', ['src/core', 'src/adapters/system', 'src/adapters/store']],
  // The write transaction: lock, journal and files (store) around objects, refs and index (git), in one place.
  // It also keeps derived state in step with what it wrote (the id map of adapters/index).
  ['src/adapters/write', ['src/core', 'src/adapters/system', 'src/adapters/store', 'src/adapters/git', 'src/adapters/index']],
  ['src/adapters/index', ['src/core', 'src/adapters/system', 'src/adapters/store']],
  ['src/adapters/claude', ['src/core', 'src/adapters/system', 'src/adapters/store']],
  ['src/app', ['src/core', 'src/adapters']],
  ['src/hooks', ['src/core', 'src/adapters', 'src/app']],
  ['src/mcp', ['src/core', 'src/adapters/config', 'src/app']],
  // cli reaches adapters only for settings (config) and Node's lazily loaded built-ins (system/builtins.ts).
  ['src/cli', ['src/core', 'src/adapters/config', 'src/adapters/system', 'src/app', 'src/mcp']],
];

/** The folder of FOLDERS a file belongs to (the longest prefix), or undefined. */
export function folderOf(file: string, folders = FOLDERS): string | undefined {
  let best: string | undefined;
  for (const [f] of folders) if ((file.startsWith(`${f}/`) || file === f) && (!best || f.length > best.length)) best = f;
  return best;
}

const within = (file: string, folder: string): boolean => file === folder || file.startsWith(`${folder}/`);

/** Rule: every file is in a folder of the table, and imports only its own folder or one the table allows. */
export function folderViolations(graph: Graph, folders = FOLDERS): string[] {
  const out: string[] = [];
  const allowed = new Map(folders);
  for (const [file, edges] of graph) {
    const from = folderOf(file, folders);
    if (!from) {
      out.push(`${file} is in no folder of the table`);
      continue;
    }
    for (const e of edges) {
      if (!e.target.startsWith('src/')) continue;
      const to = folderOf(e.target, folders);
      if (to === from) continue;
      if (to && (allowed.get(from) ?? []).some((a) => within(to, a))) continue;
      out.push(`${file} (${from}) imports ${e.target} (${to ?? 'no folder'})`);
    }
  }
  return out;
}

/** Rule: no import cycle through runtime imports (static or dynamic). Returns each cycle found once. */
export function cycles(graph: Graph): string[] {
  const out: string[] = [];
  const state = new Map<string, 1 | 2>();
  const stack: string[] = [];
  const visit = (m: string): void => {
    state.set(m, 1);
    stack.push(m);
    for (const e of graph.get(m) ?? []) {
      if (e.kind === 'type' || !graph.has(e.target)) continue;
      const s = state.get(e.target);
      if (s === 1) out.push([...stack.slice(stack.indexOf(e.target)), e.target].join(' -> '));
      else if (!s) visit(e.target);
    }
    stack.pop();
    state.set(m, 2);
  };
  for (const m of [...graph.keys()].sort()) if (!state.has(m)) visit(m);
  return out;
}

/** Where each package may be imported (runtime or type): a list of folders, or everywhere when absent. */
export const PACKAGES: [test: (spec: string) => boolean, name: string, folders: string[]][] = [
  [(s) => s === 'isomorphic-git' || s.startsWith('isomorphic-git/'), 'isomorphic-git', ['src/adapters/git']],
  [(s) => s === 'commander', 'commander', ['src/cli']],
  [(s) => s.startsWith('@modelcontextprotocol/') || s === 'zod', 'the MCP SDK', ['src/mcp']],
  [(s) => s === 'minisearch', 'minisearch', ['src/adapters/index']],
  [(s) => /^node:(fs|os|child_process|net|http|https|worker_threads|v8|zlib)(\/|$)/.test(s), 'node I/O modules', ['src/adapters', 'src/app', 'src/hooks', 'src/cli']],
  [(s) => s === 'diff', 'diff', ['src/core', 'src/app']],
];

/** Rule: each package only where PACKAGES allows it. */
export function packageViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, edges] of graph) {
    for (const e of edges) {
      for (const [test, name, folders] of PACKAGES) {
        if (test(e.spec) && !folders.some((f) => within(file, f))) out.push(`${file} imports ${e.spec} (${name} belongs to ${folders.join(', ')})`);
      }
    }
  }
  return out;
}

const HEAVY = (t: string): boolean => t === 'isomorphic-git' || t.startsWith('isomorphic-git/') || t === 'commander' || t === 'minisearch' || t.startsWith('src/app/') || t.startsWith('src/adapters/git/');

/** Rule: what a hook module loads statically stays light (no isomorphic-git, commander, minisearch, use cases). */
export function hookViolations(graph: Graph, entry = 'src/hooks/entry.ts'): string[] {
  const out: string[] = [];
  for (const m of staticClosure(graph, entry)) {
    for (const e of graph.get(m) ?? []) {
      if (e.kind === 'static' && HEAVY(e.target)) out.push(`${entry} loads ${e.target} (${chain(graph, entry, m)} -> ${e.target})`);
    }
  }
  return out;
}

const real = buildGraph();

describe('the rules catch a graph that breaks them', () => {
  const bad: Graph = new Map(
    Object.entries({
      'src/core/format/entry.ts': importsOf('src/core/format/entry.ts', "import { helper } from '../util.js';\nimport type { X } from '../../ui/main.js';\nimport fs from 'node:fs';"),
      'src/core/util.ts': importsOf('src/core/util.ts', "import {\n  commitChanges,\n} from '../adapters/git/git.js';"),
      'src/adapters/git/git.ts': importsOf('src/adapters/git/git.ts', "import git from 'isomorphic-git';\nimport { x } from '../../core/util.js';"),
      'src/adapters/store/layout.ts': importsOf('src/adapters/store/layout.ts', "export { x } from '../../app/add.js';\nconst lazy = () => import('../index/catalog.js');"),
      'src/adapters/index/catalog.ts': importsOf('src/adapters/index/catalog.ts', "import { y } from '../store/layout.js';"),
      'src/app/add.ts': importsOf('src/app/add.ts', "import { render } from '../cli/render/render.js';\nimport http from 'isomorphic-git/http/node';"),
      'src/hooks/entry.ts': importsOf('src/hooks/entry.ts', "import './protocol.js';\nconst later = () => import('../app/add.js');"),
      'src/hooks/protocol.ts': importsOf('src/hooks/protocol.ts', "import MiniSearch from 'minisearch';\nimport { store } from '../adapters/store/layout.js';"),
      'src/cli/render/render.ts': [],
      'src/loose.ts': [],
    }),
  );

  it('tells static, dynamic and type-only imports apart, multi-line ones included', () => {
    expect(importsOf('src/a.ts', "import type { A } from './b.js';\nimport { type C, type D } from './c.js';\nimport { e, type F } from './e.js';\nexport * from './g.js';\nexport type { H } from './h.js';\nconst x = await import('./i.js');\ntype T = typeof import('./j.js').k;\nimport {\n  l,\n  m,\n} from 'pkg';")).toEqual([
      { spec: './b.js', target: 'src/b.ts', kind: 'type' },
      { spec: './c.js', target: 'src/c.ts', kind: 'type' },
      { spec: './e.js', target: 'src/e.ts', kind: 'static' },
      { spec: './g.js', target: 'src/g.ts', kind: 'static' },
      { spec: './h.js', target: 'src/h.ts', kind: 'type' },
      { spec: './i.js', target: 'src/i.ts', kind: 'dynamic' },
      { spec: './j.js', target: 'src/j.ts', kind: 'type' },
      { spec: 'pkg', target: 'pkg', kind: 'static' },
    ]);
  });

  it('finds each kind of violation', () => {
    expect(folderViolations(bad).sort()).toEqual([
      'src/adapters/store/layout.ts (src/adapters/store) imports src/adapters/index/catalog.ts (src/adapters/index)',
      'src/adapters/store/layout.ts (src/adapters/store) imports src/app/add.ts (src/app)',
      'src/app/add.ts (src/app) imports src/cli/render/render.ts (src/cli)',
      'src/core/format/entry.ts (src/core) imports src/ui/main.ts (no folder)',
      'src/core/util.ts (src/core) imports src/adapters/git/git.ts (src/adapters/git)',
      'src/loose.ts is in no folder of the table',
    ]);
    expect(cycles(bad)).toEqual(['src/adapters/git/git.ts -> src/core/util.ts -> src/adapters/git/git.ts', 'src/adapters/index/catalog.ts -> src/adapters/store/layout.ts -> src/adapters/index/catalog.ts']);
    expect(packageViolations(bad).sort()).toEqual([
      'src/app/add.ts imports isomorphic-git/http/node (isomorphic-git belongs to src/adapters/git)',
      'src/core/format/entry.ts imports node:fs (node I/O modules belongs to src/adapters, src/app, src/hooks, src/cli)',
      'src/hooks/protocol.ts imports minisearch (minisearch belongs to src/adapters/index)',
    ]);
    expect(hookViolations(bad).sort()).toEqual([
      'src/hooks/entry.ts loads isomorphic-git/http/node (src/hooks/entry.ts -> src/hooks/protocol.ts -> src/adapters/store/layout.ts -> src/app/add.ts -> isomorphic-git/http/node)',
      'src/hooks/entry.ts loads minisearch (src/hooks/entry.ts -> src/hooks/protocol.ts -> minisearch)',
      'src/hooks/entry.ts loads src/app/add.ts (src/hooks/entry.ts -> src/hooks/protocol.ts -> src/adapters/store/layout.ts -> src/app/add.ts)',
    ]);
  });
});

describe('the layering of src/', () => {
  it('parses every file and resolves every relative import to a file that exists', () => {
    expect(real.size).toBeGreaterThan(40);
    for (const [file, edges] of real) {
      for (const e of edges) if (e.target.startsWith('src/')) expect(fs.existsSync(path.join(ROOT, e.target)), `${file} imports ${e.spec}`).toBe(true);
    }
  });

  it('src/ holds folders only, and every file is in a folder of the table that lets it import what it imports', () => {
    // package.json only says "type": "module" (the root's names none, so bin/ is CommonJS: spec/plugin.md)
    expect(fs.readdirSync(SRC).filter((f) => fs.statSync(path.join(SRC, f)).isFile())).toEqual(['package.json']);
    expect(folderViolations(real)).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(cycles(real)).toEqual([]);
  });

  it('imports each package only where it belongs', () => {
    // git.ts loads isomorphic-git on demand (the commit path of a write is native): the scan sees that import.
    expect(real.get('src/adapters/git/git.ts')!.some((e) => e.target === 'isomorphic-git' && e.kind === 'dynamic')).toBe(true);
    expect(packageViolations(real)).toEqual([]);
  });

  it('the hook entry, and each handler it loads on demand, load statically nothing heavy', () => {
    expect(hookViolations(real)).toEqual([]);
    const handlers = real.get('src/hooks/entry.ts')!.filter((e) => e.kind === 'dynamic').map((e) => e.target);
    expect(handlers.length).toBeGreaterThan(0);
    for (const h of handlers) expect(hookViolations(real, h), h).toEqual([]);
  });

  it('the built hook bundle is CommonJS and loads only Node modules and its on-demand handlers, and the code cache only Node modules', () => {
    const file = path.join(ROOT, 'dist', 'hook.cjs');
    expect(fs.existsSync(file), 'dist/hook.cjs is built by npm run bundle').toBe(true);
    const text = fs.readFileSync(file, 'utf8');
    // CommonJS all the way from bin/: an ES module anywhere on the way loads Node's ESM loader on every prompt.
    expect(text).not.toMatch(/^\s*(?:import|export)\s[^(]/m);
    // bin/ is CommonJS by the root package.json, which names no "type" (src/, test/ and bench/ say "module" in their
    // own); bin/ holds the two commands alone, since Claude Code takes every file of a plugin's bin/ for a command.
    expect(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    expect(fs.readdirSync(path.join(ROOT, 'bin')).sort()).toEqual(['git-kb', 'git-kb-hook']);
    for (const d of ['src', 'test', 'bench']) expect(JSON.parse(fs.readFileSync(path.join(ROOT, d, 'package.json'), 'utf8')).type, d).toBe('module');
    expect(fs.readFileSync(path.join(ROOT, 'bin', 'git-kb-hook'), 'utf8')).toContain("require('../dist/hook.cjs')");
    const specs = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(specs.length).toBeGreaterThan(0);
    for (const s of specs) expect(/^node:[a-z_/]+$/.test(s) || /^\.\/hooks\/[a-z-]+\.js$/.test(s), s).toBe(true);
    expect(text).not.toMatch(/isomorphic-git|MiniSearch|commander/);
    // The code cache both commands install first loads Node's modules alone too (build.mjs gives both files the
    // plain interop that holds only for those).
    const cache = fs.readFileSync(path.join(ROOT, 'dist', 'code-cache.cjs'), 'utf8');
    const cacheSpecs = [...cache.matchAll(/\brequire\s*\(\s*["']([^"']+)["']/g)].map((m) => m[1]!);
    expect(cacheSpecs.length).toBeGreaterThan(0);
    for (const s of cacheSpecs) expect(s, s).toMatch(/^node:[a-z_/]+$/);
  });

  it('the built CLI is CommonJS from bin/ to its last chunk: no command starts the ES module loader', () => {
    const dist = path.join(ROOT, 'dist');
    expect(JSON.parse(fs.readFileSync(path.join(dist, 'package.json'), 'utf8')).type).toBe('commonjs');
    expect(fs.readFileSync(path.join(ROOT, 'bin', 'git-kb'), 'utf8')).toContain("require('../dist/cli.js')");
    const files = fs.readdirSync(dist, { recursive: true }).map(String).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) {
      const text = fs.readFileSync(path.join(dist, f), 'utf8');
      expect(text.startsWith('"use strict";'), f).toBe(true);
      expect(text, f).not.toMatch(/^\s*(?:import|export)\s[^(]/m);
      // a require of our own files names a file beside this one (a shared helper would resolve from its own folder)
      for (const m of text.matchAll(/\brequire\("(\.[^"]+)"\)/g)) expect(fs.existsSync(path.join(dist, path.dirname(f), m[1]!)), `${f}: ${m[1]}`).toBe(true);
    }
  });
});
