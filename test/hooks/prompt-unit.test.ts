/**
 * The prompt hook's pure parts: skip rules, keywords and stemming, activities, the index file format, the
 * output layout under the budgets, the ledger, and the import graph of the hot path.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_OUTPUT_MAX, KERNEL_BUDGET } from '../../src/core/budget.js';
import { ledgerName, readLedger, writeLedger } from '../../src/adapters/index/ledger.js';
import { assembleContext } from '../../src/hooks/prompt/prompt.js';
import { keyDirs } from '../../src/adapters/index/fresh.js';
import { encodeIndex, FIELD_TAG, FIELD_TITLE, lookupTerms, openIndexFile, postingsHave, readDoc, readerFromBuffer, readAllFiles, readKernelBody, readWindow, WINDOW_SIZE, type IndexFile, type IndexModel } from '../../src/adapters/index/prompt/format.js';
import { scoreKeywords, type Pointer } from '../../src/hooks/prompt/signals.js';
import { specificity } from '../../src/core/text/relevance.js';
import { BACKGROUND } from '../../src/core/text/background.js';
import { analyzePrompt, classifyActivities, keywords, MAX_PROMPT_CHARS, skipReason, tagKeywords } from '../../src/core/text/prompt-text.js';
import { stem } from '../../src/core/text/terms.js';
import { ROOT } from '../helpers/cli.js';

describe('skip rules', () => {
  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['/clear', 'slash-command'],
    ['/git-kb search postgres locks', 'slash-command'],
    ['!ls -la', 'shell-command'],
    ['git status', 'shell-command'],
    ['npm test', 'shell-command'],
    ['yes', 'mechanical'],
    ['continue', 'mechanical'],
    ['yes, commit and push', 'mechanical'],
    ['looks good, ship it', 'mechanical'],
    ['run the tests', 'mechanical'],
    ['thanks!', 'mechanical'],
    ['why?', 'mechanical'],
    ['fix the css', 'short'],
    ['explain', 'short'],
    ['no, the other file', 'short'],
  ])('%j is skipped as %s', (prompt, reason) => {
    expect(skipReason(prompt)).toBe(reason);
  });

  it('looks at real questions, including ones that start with a command name', () => {
    expect(skipReason('git stash pop gave me merge conflicts and now other files are staged, how do I finish?')).toBeUndefined();
    expect(skipReason('make the ruby code retry the network call a few times when it raises')).toBeUndefined();
    expect(skipReason('how do I vacuum a postgres table?')).toBeUndefined();
  });

  it('keeps its work bounded on a huge prompt: it reads the first MAX_PROMPT_CHARS characters only', () => {
    const huge = `git ${'merge conflict '.repeat(400_000)}`;
    const a = analyzePrompt(huge);
    expect(a.skip).toBeUndefined();
    expect(a).toEqual(analyzePrompt(huge.slice(0, MAX_PROMPT_CHARS)));
  });
});

describe('keywords', () => {
  it('stems alike on both sides', () => {
    for (const [a, b] of [
      ['commits', 'commit'],
      ['committed', 'commit'],
      ['committing', 'commit'],
      ['rebasing', 'rebase'],
      ['branches', 'branch'],
      ['aliases', 'alias'],
      ['databases', 'database'],
      ['caching', 'cache'],
      ['bisecting', 'bisect'],
      ['settings', 'setting'],
    ]) {
      expect(stem(a), `${a} ~ ${b}`).toBe(stem(b));
    }
    expect(stem('status')).toBe('status');
    expect(stem('class')).toBe('class');
    expect(stem('vim')).toBe('vim');
  });

  it('drops stop words, numbers and giant tokens, keeps non-ASCII words (Latin letters folded)', () => {
    expect(keywords('How do I use the 2 branches of this Repo?')).toEqual(['branch', 'repo']);
    expect(keywords(`x${'a'.repeat(60)} café Straße`)).toEqual(['cafe', 'strasse']);
    expect(keywords("don't can't it's")).toEqual([]);
  });

  it('splits tags into parts', () => {
    expect(tagKeywords('github-actions')).toEqual(['github', 'action']);
    expect(tagKeywords('vim')).toEqual(['vim']);
  });

  it('classifies activities', () => {
    expect(classifyActivities('Draft a reply to this email thread')).toEqual(['writing']);
    expect(classifyActivities('Review this PR diff')).toContain('reviewing');
    expect(classifyActivities('Plan the roadmap for Q3')).toEqual(['planning']);
    expect(classifyActivities('fix the bug in this function')).toEqual(['coding']);
    expect(classifyActivities('what a lovely day')).toEqual([]);
  });
});

function model(docs: { id: string; title: string; terms: [string, number][] }[], extra: Partial<IndexModel> = {}): IndexModel {
  return {
    key: 'k',
    generation: 'g',
    dirs: ['.', 'entries'],
    docs: docs.map((d) => ({ ...d, terms: new Map(d.terms) })),
    kernel: [],
    activity: {},
    files: [],
    hot: [],
    extras: {},
    built: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

describe('index file', () => {
  it('round-trips documents, postings, kernel bodies and windows', () => {
    // a path may hold a tab: the columns are read from the right
    const files: IndexFile[] = Array.from({ length: WINDOW_SIZE + 5 }, (_, i) => [`entries/kb-${i}-x${i === 3 ? '\tt' : ''}.md`, `${i}.5:10:${i}`, i % 2 ? 'p' : 'S', `kb-${i}`]);
    const buf = encodeIndex(
      model(
        [
          { id: 'kb-a', title: 'Stash pop conflicts', terms: [['stash', FIELD_TITLE], ['pop', FIELD_TITLE], ['git', FIELD_TAG]] },
          { id: 'kb-b', title: 'Tab\there', terms: [['git', FIELD_TAG | FIELD_TITLE], ['ünïcode', FIELD_TITLE]] },
        ],
        { kernel: [{ id: 'kb-k', title: 'K', path: 'entries/kb-k-k.md', sig: '1:2:3', body: 'Body with ünïcode ✓', rules: [{ pattern: '\\bleverage\\b', message: 'Say "use".' }] }], files, extras: { host: { v: 1, error: 'x' } } },
      ),
    );
    const r = readerFromBuffer(buf);
    expect(r.header.n).toBe(2);
    expect(r.header.extras).toEqual({ host: { v: 1, error: 'x' } });
    expect(r.header.kernel[0]!.rules).toEqual([{ pattern: '\\bleverage\\b', message: 'Say "use".' }]);
    const post = lookupTerms(r, ['git', 'stash', 'ünïcode', 'absent']);
    const docs = (t: string): number[] => { const p = post.get(t)!; return Array.from({ length: p.count }, (_, i) => p.cells[2 * i]!); };
    expect(docs('git')).toEqual([0 * 8 + FIELD_TAG, 1 * 8 + (FIELD_TAG | FIELD_TITLE)]);
    expect([post.get('git')!.weights[1], post.get('git')!.weights[3]]).toEqual([1, 1]);
    expect(docs('stash')).toEqual([FIELD_TITLE]);
    expect(docs('ünïcode')).toEqual([8 + FIELD_TITLE]);
    expect(postingsHave(post.get('git')!, 1)).toBe(true);
    expect(postingsHave(post.get('stash')!, 1)).toBe(false);
    expect(post.has('absent')).toBe(false);
    expect(readDoc(r, 1)).toEqual({ id: 'kb-b', title: 'Tab here', size: 2 });
    expect(readDoc(r, 0).size).toBe(3);
    expect(readKernelBody(r, r.header.kernel[0]!)).toBe('Body with ünïcode ✓');
    expect(r.header.windows).toHaveLength(2);
    expect(readWindow(r, 1)).toEqual(files.slice(WINDOW_SIZE));
  });

  it('keeps offsets exact however long the header gets', () => {
    const files: IndexFile[] = Array.from({ length: 60_000 }, (_, i) => [`entries/kb-${i}.md`, '1:1:1', '-', '']);
    const r = readerFromBuffer(encodeIndex(model([{ id: 'kb-a', title: 'A', terms: [['alpha', 1]] }], { files })));
    expect(readWindow(r, r.header.windows.length - 1).at(-1)).toEqual(['entries/kb-59999.md', '1:1:1', '-', '']);
    expect(readAllFiles(r)).toEqual(files);
    expect(readDoc(r, 0).id).toBe('kb-a');
  });

  it('refuses files that are not indexes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-idx-'));
    try {
      for (const content of ['', 'GKBPIX01', 'GKBPIX01\u00ff\u00ff\u00ff\u00ff{}', 'hello world, not an index at all']) {
        fs.writeFileSync(path.join(dir, 'i'), content, 'latin1');
        expect(openIndexFile(path.join(dir, 'i'))).toBeUndefined();
      }
      expect(openIndexFile(path.join(dir, 'missing'))).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the folders of the key', () => {
    expect(keyDirs(['entries', 'hosts/web1', 'sessions/2026/05'])).toEqual(['.', 'entries', 'hosts', 'hosts/web1', 'sessions', 'sessions/2026', 'sessions/2026/05']);
  });
});

describe('keyword scoring', () => {
  const docs = [
    { id: 'kb-1', title: 'Resolve a merge conflict from stash pop', terms: [['resolve', 1], ['merge', 1], ['conflict', 1], ['stash', 1], ['pop', 1], ['git', 2]] as [string, number][] },
    { id: 'kb-2', title: 'Staging stashes', terms: [['stage', 1], ['stash', 1], ['git', 2]] as [string, number][] },
    ...Array.from({ length: 5 }, (_, i) => ({ id: `kb-c${i}`, title: `Compose copy ${i}`, terms: [['docker', 1], ['compose', 1], ['volume', 1]] as [string, number][] })),
    ...Array.from({ length: 50 }, (_, i) => ({ id: `kb-f${i}`, title: `Filler ${i}`, terms: [[`filler${i}`, 1], ['git', 2]] as [string, number][] })),
  ];
  const r = readerFromBuffer(encodeIndex(model(docs)));
  const ids = (fired: { doc: number }[]) => fired.map((s) => readDoc(r, s.doc).id);

  it('fires on distinctive shared keywords, best first', () => {
    expect(ids(scoreKeywords(r, ['git', 'stash', 'pop', 'merge', 'conflict']).fired)).toEqual(['kb-1']);
  });

  it('a single keyword never fires, however rare', () => {
    expect(scoreKeywords(r, ['resolve']).fired).toEqual([]);
  });

  it('counts the prompt words no entry has against the match: a prompt about a subject the notes lack stays quiet', () => {
    // Two of its words are the note's, but its subject (words no entry holds) is not.
    const { fired, miss, near } = scoreKeywords(r, ['stash', 'pop', 'liquibase', 'godot', 'respawn', 'changelog']);
    expect(fired).toEqual([]);
    expect(miss).toBe('coverage');
    expect(ids(near.slice(0, 1))).toEqual(['kb-1']);
    expect(near[0]!.coverage).toBeLessThan(0.5);
  });

  it('asks that the shared words be a fair part of the entry too: a long page holding every word of a domain stays quiet', () => {
    const wide = [
      { id: 'kb-hub', title: 'Handbook', terms: [...['deploy', 'pipeline', 'staging', 'rollback'].map((t) => [t, 0]), ...Array.from({ length: 400 }, (_, i) => [`topic${i}`, 0])] as [string, number][] },
      ...Array.from({ length: 30 }, (_, i) => ({ id: `kb-o${i}`, title: `Other ${i}`, terms: [[`other${i}`, 1]] as [string, number][] })),
    ];
    const rw = readerFromBuffer(encodeIndex(model(wide)));
    const { fired, miss, near } = scoreKeywords(rw, ['deploy', 'pipeline', 'staging', 'rollback']);
    expect(fired).toEqual([]);
    expect(miss).toBe('focus');
    expect(near[0]!.focus).toBeCloseTo(4 / Math.sqrt(4 * 404), 6);
    // The same words in a page about them fire.
    const narrow = readerFromBuffer(encodeIndex(model([{ ...wide[0]!, terms: wide[0]!.terms.slice(0, 6) }, ...wide.slice(1)])));
    expect(scoreKeywords(narrow, ['deploy', 'pipeline', 'staging', 'rollback']).fired).toHaveLength(1);
  });

  it('lists at most three pointers, the best first', () => {
    const { fired } = scoreKeywords(r, ['docker', 'compose', 'volume']);
    expect(fired).toHaveLength(3);
    expect(ids(fired).every((id) => id.startsWith('kb-c'))).toBe(true);
  });

  it('a keyword of every entry weighs little but never nothing; the best miss says which bar it failed', () => {
    const { fired, near, miss } = scoreKeywords(r, ['git', 'nowhere']);
    expect(fired).toEqual([]);
    expect(miss).toBe('hits');
    expect(near[0]!.terms).toEqual(['git']);
    expect(near[0]!.evidence).toBeGreaterThan(0);
    // A word of one entry, matched once, weighs several times a word of nearly every entry.
    const rare = scoreKeywords(r, ['filler3', 'nowhere']).near[0]!;
    expect(rare.evidence).toBeGreaterThan(3 * near[0]!.evidence);
  });
});

describe('background specificity', () => {
  it('ranks ordinary developer words below specific ones, and an unlisted word as fully specific', () => {
    for (const w of ['add', 'file', 'test', 'error', 'run']) expect(specificity(w)).toBeLessThan(0.35);
    for (const w of ['liquibase', 'godot', 'zzzunlisted']) expect(specificity(w)).toBe(1);
    expect(specificity('tmux')).toBeGreaterThan(specificity('branch'));
    expect(specificity('branch')).toBeGreaterThan(specificity('add'));
  });

  it('finds every listed word by its binary search (the list is sorted as JavaScript compares strings)', () => {
    const lines = BACKGROUND.slice(1, -1).split(';');
    for (let i = 1; i < lines.length; i++) expect(lines[i - 1]!.split(' ')[0]! < lines[i]!.split(' ')[0]!).toBe(true);
    for (const line of lines) {
      const [w, v] = line.split(' ');
      expect(specificity(w!)).toBeCloseTo(Number(v) / 100, 9);
    }
  });
});

describe('layout', () => {
  const ptr = (i: number): Pointer => ({ id: `kb-p${i}`, title: `Pointer ${i}`, signal: 'keyword' });

  it('puts whole kernel bodies first within the budget and the rest as pointers', () => {
    const kernel = Array.from({ length: 10 }, (_, i) => ({ id: `kb-k${i}`, title: `K${i}`, body: `${i}`.repeat(2500) }));
    const a = assembleContext(kernel, [ptr(1), ptr(2)]);
    expect(a.kernelBodies).toEqual(['kb-k0', 'kb-k1']);
    expect(a.kernelPointers).toHaveLength(8);
    expect(a.text.indexOf('1'.repeat(2500))).toBeLessThan(a.text.indexOf('- kb-k2'));
    expect(JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: a.text } }).length).toBeLessThanOrEqual(HOOK_OUTPUT_MAX);
    expect(a.pointers.map((p) => p.id)).toEqual(['kb-p1', 'kb-p2']);
  });

  it('fits a later small body when a big one does not', () => {
    const a = assembleContext(
      [
        { id: 'kb-big', title: 'big', body: 'x'.repeat(KERNEL_BUDGET + 1) },
        { id: 'kb-small', title: 'small', body: 'tiny rule' },
      ],
      [],
    );
    expect(a.kernelBodies).toEqual(['kb-small']);
    expect(a.kernelPointers).toEqual(['kb-big']);
  });

  it('demotes bodies whose escaping would break the output cap, and drops pointers that do not fit', () => {
    const quotes = '"'.repeat(2900);
    const kernel = [0, 1].map((i) => ({ id: `kb-q${i}`, title: 'q', body: quotes }));
    const many = Array.from({ length: 200 }, (_, i) => ptr(i));
    const a = assembleContext(kernel, many);
    const out = JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: a.text } });
    expect(out.length).toBeLessThanOrEqual(HOOK_OUTPUT_MAX);
    expect(a.kernelBodies.length).toBeLessThan(2);
    expect(a.dropped.length).toBeGreaterThan(0);
    expect(a.pointers.length + a.dropped.length).toBe(200);
  });

  it('says nothing about fetching when there is nothing to fetch', () => {
    expect(assembleContext([{ id: 'kb-k', title: 'k', body: 'rule' }], []).text).not.toContain('git-kb get');
    expect(assembleContext([], [ptr(1)]).text).toContain('`git-kb get <id> ...`');
  });
});

describe('ledger', () => {
  it('stores ids per session and generation, resets on a new generation', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-ledger-'));
    try {
      expect(readLedger(dir, 's1', 'g1')).toEqual({ generation: 'g1', ids: [], exists: false });
      writeLedger(dir, 's1', { generation: 'g1', ids: ['kb-a', 'kb-b'] });
      expect(readLedger(dir, 's1', 'g1').ids).toEqual(['kb-a', 'kb-b']);
      writeLedger(dir, 's1', { generation: 'g1', ids: ['kb-a'] }); // shorter: no stale tail
      expect(readLedger(dir, 's1', 'g1').ids).toEqual(['kb-a']);
      expect(readLedger(dir, 's1', 'g2')).toEqual({ generation: 'g2', ids: [], exists: true });
      expect(readLedger(dir, 's2', 'g1').exists).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names files safely', () => {
    expect(ledgerName('abc-123_x')).toBe('abc-123_x.json');
    expect(ledgerName('../../etc/passwd')).toMatch(/^etcpasswd-[0-9a-z]+\.json$/);
    expect(ledgerName('')).toMatch(/^-[0-9a-z]+\.json$/);
    expect(ledgerName('x'.repeat(500)).length).toBeLessThan(80);
  });
});

// NOTE: test/architecture.test.ts checks the hook entry's closure (no package but Node's, no use case) and the
// built dist/hook.cjs; this checks the modules of the index layer the prompt path must not load either.
describe('the prompt path loads little', () => {
  it('the handler imports statically neither the builder nor what it reads (catalog, entry parser, hosts.yaml)', () => {
    const src = path.join(ROOT, 'src');
    const graph = new Set<string>();
    const visit = (file: string): void => {
      if (graph.has(file)) return;
      graph.add(file);
      if (!file.startsWith('/')) return;
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm)) {
        const spec = m[1]!;
        visit(spec.startsWith('.') ? path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts')) : spec);
      }
    };
    visit(path.join(src, 'hooks', 'prompt', 'prompt.ts'));
    const packages = [...graph].filter((f) => !f.startsWith('/'));
    expect(packages.every((p) => p.startsWith('node:')), packages.join(', ')).toBe(true);
    const local = [...graph].filter((f) => f.startsWith('/')).map((f) => path.relative(ROOT, f));
    expect(local).toContain('src/adapters/index/prompt/load.ts');
    for (const banned of [
      'src/adapters/index/prompt/build.ts',
      'src/adapters/index/prompt/update.ts',
      'src/adapters/index/catalog.ts',
      'src/adapters/index/search.ts',
      'src/core/format/entry.ts',
      'src/core/hosts/hosts.ts',
      'src/adapters/store/hosts-file.ts',
    ]) expect(local).not.toContain(banned);
  });
});
