/**
 * Guards the layering by parsing the import statements of src/**\/*.ts (with the TypeScript parser, so multi-line,
 * `export ... from`, type-only and dynamic imports are all told apart):
 * - the modules that parse and validate entries (and the other pure ones) reach neither the CLI, nor src/kb, nor
 *   commander, nor git (isomorphic-git or src/git.ts), even indirectly;
 * - only the git layer (src/git.ts, src/git-*.ts, src/sync.ts) imports isomorphic-git;
 * - nothing the hook entry loads statically pulls in isomorphic-git, commander, minisearch, src/git.ts or src/kb;
 * - dependencies point one way: errors <- schema/entry <- store/catalog/search/git <- kb <- cli.
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

const isIsoGit = (t: string): boolean => t === 'isomorphic-git' || t.startsWith('isomorphic-git/');
const isCli = (t: string): boolean => t.startsWith('src/cli/');
const isKb = (t: string): boolean => t.startsWith('src/kb/');
const isGitModule = (t: string): boolean => t === 'src/git.ts';

/** The pure modules: entry parsing and validation, errors, config, secrets, prose, transcript. */
const PURE = ['src/entry.ts', 'src/schema.ts', 'src/errors.ts', 'src/config.ts', 'src/secrets.ts', 'src/prose.ts', 'src/transcript.ts'];

/**
 * Rule: nothing a pure module loads at run time (directly or not, statically or lazily) is the CLI, src/kb,
 * commander, isomorphic-git or src/git.ts. Type-only imports load nothing (the direction rule still sees them).
 */
export function purityViolations(graph: Graph, pure = PURE): string[] {
  const out: string[] = [];
  for (const m of pure) {
    if (!graph.has(m)) continue;
    const loaded = staticClosure(graph, m, ['static', 'dynamic']);
    for (const [file, edges] of graph) {
      if (!loaded.has(file)) continue;
      for (const e of edges) {
        if (e.kind === 'type') continue;
        if (isCli(e.target) || isKb(e.target) || e.target === 'commander' || isIsoGit(e.target) || isGitModule(e.target)) {
          out.push(`${m} reaches ${e.target} (${chain(graph, m, file, ['static', 'dynamic'])} -> ${e.target})`);
        }
      }
    }
  }
  return out;
}

/** Rule: only the git layer (src/git.ts, src/git-*.ts, src/sync.ts) imports isomorphic-git. */
export function isoGitViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, edges] of graph) {
    for (const e of edges) {
      if (!isIsoGit(e.target)) continue;
      if (file === 'src/git.ts' || /^src\/git-[a-z-]+\.ts$/.test(file) || file === 'src/sync.ts') continue;
      out.push(`${file} imports ${e.spec} (${e.kind})`);
    }
  }
  return out;
}

/** Rule: what the hook entry loads statically stays light. */
export function hookViolations(graph: Graph, entry = 'src/hooks/entry.ts'): string[] {
  const out: string[] = [];
  const closure = staticClosure(graph, entry);
  for (const m of closure) {
    for (const e of graph.get(m) ?? []) {
      if (e.kind !== 'static') continue;
      if (isIsoGit(e.target) || e.target === 'commander' || e.target === 'minisearch' || isGitModule(e.target) || isKb(e.target)) {
        out.push(`${entry} loads ${e.target} (${chain(graph, entry, m)} -> ${e.target})`);
      }
    }
  }
  return out;
}

/** Layers, lowest first; a module may import its own layer or lower ones, never a higher one. */
const LAYERS: [string, (f: string) => boolean][] = [
  ['errors', (f) => f === 'src/errors.ts'],
  ['entry', (f) => f === 'src/schema.ts' || f === 'src/entry.ts'],
  ['store/search', (f) => ['src/store.ts', 'src/catalog.ts', 'src/search.ts', 'src/fsutil.ts', 'src/git.ts', 'src/git-index.ts', 'src/config.ts'].includes(f)],
  ['kb', (f) => isKb(f)],
  ['cli', (f) => isCli(f)],
];
function layerOf(f: string): number {
  return LAYERS.findIndex(([, is]) => is(f));
}

/** Rule: dependencies point one way (errors <- entry <- store/search <- kb <- cli), type imports included. */
export function directionViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, edges] of graph) {
    for (const e of edges) {
      if (!e.target.startsWith('src/')) continue;
      const from = layerOf(file);
      const to = layerOf(e.target);
      if (to !== -1 && from !== -1 && to > from) out.push(`${file} (${LAYERS[from]![0]}) imports ${e.target} (${LAYERS[to]![0]})`);
      // Outside the layers (hooks, gate, sync, merge...), nothing but the CLI itself may import the CLI.
      if (from === -1 && isCli(e.target)) out.push(`${file} imports the CLI module ${e.target}`);
    }
  }
  return out;
}

const real = buildGraph();

describe('the rules catch a graph that breaks them', () => {
  const bad: Graph = new Map(
    Object.entries({
      'src/entry.ts': importsOf('src/entry.ts', "import { helper } from './util.js';\nimport type { X } from './cli/main.js';"),
      'src/util.ts': importsOf('src/util.ts', "import {\n  commitChanges,\n} from './git.js';"),
      'src/git.ts': importsOf('src/git.ts', "import git from 'isomorphic-git';"),
      'src/store.ts': importsOf('src/store.ts', "export { x } from './kb/add.js';\nconst lazy = () => import('./cli/main.js');"),
      'src/kb/add.ts': importsOf('src/kb/add.ts', "import { render } from '../cli/render.js';\nimport http from 'isomorphic-git/http/node';"),
      'src/hooks/entry.ts': importsOf('src/hooks/entry.ts', "import './main.js';\nconst later = () => import('../kb/add.js');"),
      'src/hooks/main.ts': importsOf('src/hooks/main.ts', "import MiniSearch from 'minisearch';\nimport { store } from '../store.js';"),
      'src/cli/main.ts': [],
      'src/cli/render.ts': [],
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
    const purity = purityViolations(bad, ['src/entry.ts']);
    expect(purity.some((v) => v.startsWith('src/entry.ts reaches src/git.ts (src/entry.ts -> src/util.ts'))).toBe(true);
    expect(purity.some((v) => v.startsWith('src/entry.ts reaches isomorphic-git'))).toBe(true);
    expect(purity.some((v) => v.includes('src/cli/main.ts'))).toBe(false); // a type import loads nothing...
    expect(directionViolations(bad)).toContain('src/entry.ts (entry) imports src/cli/main.ts (cli)'); // ...but still points the wrong way
    expect(isoGitViolations(bad)).toEqual(['src/kb/add.ts imports isomorphic-git/http/node (static)']);
    expect(hookViolations(bad).sort()).toEqual([
      'src/hooks/entry.ts loads isomorphic-git/http/node (src/hooks/entry.ts -> src/hooks/main.ts -> src/store.ts -> src/kb/add.ts -> isomorphic-git/http/node)',
      'src/hooks/entry.ts loads minisearch (src/hooks/entry.ts -> src/hooks/main.ts -> minisearch)',
      'src/hooks/entry.ts loads src/kb/add.ts (src/hooks/entry.ts -> src/hooks/main.ts -> src/store.ts -> src/kb/add.ts)',
    ]);
    const direction = directionViolations(bad);
    expect(direction).toContain('src/store.ts (store/search) imports src/kb/add.ts (kb)');
    expect(direction).toContain('src/store.ts (store/search) imports src/cli/main.ts (cli)');
    expect(direction).toContain('src/kb/add.ts (kb) imports src/cli/render.ts (cli)');
  });
});

describe('the layering of src/', () => {
  it('parses every module and resolves every relative import to a file that exists', () => {
    expect(real.size).toBeGreaterThan(20);
    for (const [file, edges] of real) {
      for (const e of edges) if (e.target.startsWith('src/')) expect(fs.existsSync(path.join(ROOT, e.target)), `${file} imports ${e.spec}`).toBe(true);
    }
  });

  it('the entry parser and the other pure modules reach neither the CLI, nor src/kb, nor commander, nor git', () => {
    for (const m of ['src/entry.ts', 'src/errors.ts', 'src/config.ts', 'src/secrets.ts', 'src/prose.ts', 'src/transcript.ts']) expect(real.has(m), m).toBe(true);
    expect(purityViolations(real)).toEqual([]);
  });

  it('only src/git.ts imports isomorphic-git (src/sync.ts: its HTTP transport only)', () => {
    expect(real.get('src/git.ts')!.some((e) => e.target === 'isomorphic-git' && e.kind === 'static')).toBe(true);
    expect(isoGitViolations(real)).toEqual([]);
  });

  it('the hook entry loads statically nothing heavy: no isomorphic-git, commander, minisearch, src/git.ts or src/kb', () => {
    expect(real.has('src/hooks/entry.ts')).toBe(true);
    expect(hookViolations(real)).toEqual([]);
  });

  it('each hook handler the entry loads on demand stays light too (no isomorphic-git, commander, src/git.ts or src/kb)', () => {
    const handlers = real.get('src/hooks/entry.ts')!.filter((e) => e.kind === 'dynamic').map((e) => e.target);
    expect(handlers.length).toBeGreaterThan(0);
    for (const h of handlers) {
      const v = hookViolations(real, h).filter((x) => !/ loads minisearch /.test(x));
      expect(v, h).toEqual([]);
    }
  });

  it('src/kb never imports src/cli, and dependencies point one way', () => {
    for (const [file, edges] of real) if (isKb(file)) for (const e of edges) expect(isCli(e.target), `${file} imports ${e.spec}`).toBe(false);
    expect(directionViolations(real)).toEqual([]);
  });
});
