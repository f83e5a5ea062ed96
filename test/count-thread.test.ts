// The second core of a search rebuild (src/adapters/index/count-thread.ts, the built dist/workers/count.js): an
// index counted on two threads is exactly the one counted on one (the same JSON, so the same terms in the same
// order, postings, field lengths and average), whichever documents each thread took; a worker that cannot run
// makes the indexer say so at once, and the CLI's rebuild then counts on one thread with the same result.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bulkIndexer, emptyIndex, openSearchStore } from '../src/adapters/index/search-store.js';
import { CountingFailed } from '../src/adapters/index/count-thread.js';
import { stateDir } from '../src/adapters/store/layout.js';
import { corpusNotes, hasCorpus } from './helpers/corpus.js';
import { CLI, ROOT } from './helpers/cli.js';

const WORKER = path.join(ROOT, 'dist', 'workers', 'count.js');
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-count-thread-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

type Doc = { path: string; parts: [string, number][] };

/** Documents as a rebuild gives them (title three times, tags twice, the body once), real notes and edges. */
function documents(): Doc[] {
  const notes = [...corpusNotes('jbranchaud-til', 1), ...corpusNotes('tldr-pages', 3)];
  const docs: Doc[] = notes.map((n, i) => {
    const title = /^#\s+(.+)$/m.exec(n.text)?.[1] ?? n.name;
    return { path: `entries/${String(i).padStart(5, '0')}.md`, parts: [[title, 3], [n.folder, 2], [n.text, 1]] };
  });
  const edges: [string, number][][] = [
    [['', 1]],
    [['the and of to', 3], ['', 1]],
    [["Ελληνικά ΟΔΟΣ don't won’t naïve café 東京 emoji 🎉 a-word-far-longer-than-forty-characters-in-one-token", 1]],
    [['rebase rebasing rebased rebases REBASE', 3], ['index indexes indexing', 2], ['x '.repeat(5000), 1]],
    [['0 1 2 3000 8080 v1.2.3', 1]],
  ];
  for (let i = 0; i < 400; i++) docs.splice((i * 37) % docs.length, 0, { path: `entries/edge-${i}.md`, parts: edges[i % edges.length]! });
  return docs;
}

describe('counting on a second thread', () => {
  it.skipIf(!hasCorpus)('gives the index one thread counts, with both threads counting', async () => {
    const docs = documents();
    expect(docs.length).toBeGreaterThan(3000);
    const one = emptyIndex();
    const a = bulkIndexer(one);
    for (const d of docs) a.add(d);
    expect((await a.finish()).counted).toBe(0);
    const two = emptyIndex();
    const b = bulkIndexer(two, { worker: WORKER, workerAfter: 10 });
    for (const d of docs) b.add(d);
    const { counted } = await b.finish();
    // The worker took documents, and so did this thread past the first ten (it counts what the worker is behind on).
    expect(counted).toBeGreaterThan(0);
    expect(counted).toBeLessThan(docs.length - 10);
    expect(JSON.stringify(two)).toBe(JSON.stringify(one));
    for (const q of ['rebase interactive', 'docker volume', 'tar extract', 'ελληνικά', '8080']) expect(two.search(q)).toEqual(one.search(q));
  });

  it('fails at once, with CountingFailed, when the worker cannot load, throws, exits or crashes', async () => {
    // each a worker file: one that cannot load, and the real one wrapped to fail, to exit, or to die on its third batch
    const real = JSON.stringify(WORKER);
    const third = (act: string): string =>
      `const { workerData } = require('node:worker_threads');\nlet n = 0;\nconst on = workerData.port.on.bind(workerData.port);\nworkerData.port.on = (e, f) => on(e, (m) => { if (++n === 3) { ${act} } f(m); });\nrequire(${real});\n`;
    const workers = {
      load: "throw new Error('no worker here');\n",
      throws: `const { workerData } = require('node:worker_threads');\nlet n = 0;\nconst on = workerData.port.on.bind(workerData.port);\nworkerData.port.on = (e, f) => on(e, (m) => f(++n === 3 ? { shorts: [1], parts: null } : m));\nrequire(${real});\n`,
      exits: third('process.exit(3);'),
      crashes: third("throw new Error('crash');"), // uncaught: the worker dies without a word
    };
    for (const [name, code] of Object.entries(workers)) {
      const file = path.join(root, `${name}.js`);
      fs.writeFileSync(file, code);
      const b = bulkIndexer(emptyIndex(), { worker: file, workerAfter: 0 });
      for (let i = 0; i < 2000; i++) b.add({ path: `entries/${i}.md`, text: `note ${i} about rebase and ${'words '.repeat(i % 50)}` });
      await expect(b.finish(), name).rejects.toThrow(CountingFailed);
    }
  });

  /** A data repo of `n` entries, committed (the CLI reads any repo; git makes it a real one). */
  function repo(name: string, n: number): string {
    const dir = path.join(root, name);
    fs.mkdirSync(path.join(dir, 'entries'), { recursive: true });
    const notes = corpusNotes('tldr-pages', 2);
    for (let i = 0; i < n; i++) {
      const note = notes[i % notes.length]!;
      const id = `kb-${(1000000 + i).toString(36)}zz`;
      const title = `${/^#\s+(.+)$/m.exec(note.text)?.[1] ?? note.name} ${i}`;
      fs.writeFileSync(path.join(dir, 'entries', `${id}-n${i}.md`), `---\nid: ${id}\ntitle: "${title.replace(/"/g, '')}"\ntype: factual_reference\ntags:\n  - ${note.folder}\n---\n\n${note.text}`);
    }
    fs.writeFileSync(path.join(dir, 'kb.json'), '{\n  "schema_version": 2\n}\n');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    // folders changed a while ago, so that each build records their names key (a key of this second is not recorded)
    const then = new Date(Date.now() - 60_000);
    for (const d of [dir, path.join(dir, 'entries')]) fs.utimesSync(d, then, then);
    return dir;
  }
  /** The stored base, its random mark (and the padding its length moves) left out. */
  const baseBytes = (dir: string): string => {
    const b = fs.readFileSync(path.join(stateDir(dir), 'search.v9'));
    const nl = b.indexOf(10);
    const magic = b.subarray(0, b.indexOf('{') - 1).toString('latin1');
    const sizes = JSON.parse(b.subarray(magic.length + 1, nl).toString('utf8')) as { h: { base: string }; pathsBytes: number };
    const paths = b.subarray(nl + 1, nl + 1 + sizes.pathsBytes);
    const pad = (8 - ((nl + 1 + sizes.pathsBytes) % 8)) % 8;
    sizes.h.base = '';
    return `${magic} ${JSON.stringify(sizes)}\n${paths.toString('latin1')}|${b.subarray(nl + 1 + sizes.pathsBytes + pad).toString('latin1')}`;
  };
  const env = { ...process.env, HOME: root, XDG_CONFIG_HOME: path.join(root, '.config') };

  it.skipIf(!hasCorpus)("writes, from the CLI's two threads, the base one thread writes", async () => {
    const dir = repo('two', 2600);
    const out = execFileSync(process.execPath, [CLI, '--data', dir, 'search', 'extract archive', '--limit', '5', '--json'], { env, encoding: 'utf8' });
    const built = baseBytes(dir);
    // from the sources there is no worker file: one thread
    await openSearchStore(dir, { rebuild: true });
    expect(baseBytes(dir) === built).toBe(true);
    expect(JSON.parse(out).results.length).toBeGreaterThan(0);
  });

  it.skipIf(!hasCorpus)('rebuilds on one thread, with the same answers, when the built worker cannot run', () => {
    const dir = repo('fallback', 2600);
    // a copy of the build whose counting worker throws as it loads
    const copy = path.join(root, 'kb-copy');
    fs.mkdirSync(copy);
    fs.cpSync(path.join(ROOT, 'bin'), path.join(copy, 'bin'), { recursive: true });
    fs.cpSync(path.join(ROOT, 'dist'), path.join(copy, 'dist'), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
    fs.writeFileSync(path.join(copy, 'dist', 'workers', 'count.js'), "throw new Error('no worker here');\n");
    const search = (cli: string): string => execFileSync(process.execPath, [cli, '--data', dir, 'search', 'extract archive', '--limit', '20', '--json'], { env, encoding: 'utf8' });
    const broken = search(path.join(copy, 'bin', 'git-kb'));
    const built = baseBytes(dir);
    fs.rmSync(stateDir(dir), { recursive: true, force: true });
    expect(search(CLI)).toBe(broken);
    expect(baseBytes(dir) === built).toBe(true);
  });
});
