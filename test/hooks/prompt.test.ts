/**
 * The prompt hook as Claude Code runs it: the exact command of hooks/hooks.json through `sh -c`, JSON on stdin.
 * Kernel budget and order, pointers and the fetch line, the per-session ledger, and freshness after every kind
 * of change to the data (git-kb add, plain-git commit, uncommitted hand edit).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOOK_OUTPUT_MAX, KERNEL_BUDGET } from '../../src/core/budget.js';
import { checkFreshness, indexFile } from '../../src/adapters/index/fresh.js';
import { openIndexFile } from '../../src/adapters/index/prompt/format.js';
import { deltaFile, openPromptIndex } from '../../src/adapters/index/prompt/delta.js';
import { MS_PER_FILE_COLD, refreshPromptIndex, SYNC_BUILD_BUDGET_MS } from '../../src/adapters/index/prompt/load.js';
import { kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitAll, contextOf, entryRel, entryText, makeRepo, payload, pointerIds, runPromptHook, tid, writeEntries, type TestEntry } from './prompt-support.js';

const STASH_PROMPT = 'git stash pop gave me merge conflicts and now other files are staged, how do I finish the pop?';

const base: TestEntry[] = [
  { id: tid(1), title: 'Resolve a merge conflict from stash pop', tags: ['git'] },
  { id: tid(2), title: 'Create an index without locking the table', tags: ['postgres'] },
  { id: tid(3), title: 'The black hole register', tags: ['vim'] },
  { id: tid(4), title: 'House style for prose', tags: ['writing'], appliesTo: ['writing'] },
  { id: tid(5), title: 'Always-on rule', tags: ['style'], kernel: true, body: 'Write plain sentences. No em dashes.' },
];

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-prompt-');
});
afterEach(() => sb.cleanup());

describe('prompt hook output', () => {
  it('points to matching entries by id and title, after the kernel body, with one fetch line', async () => {
    await makeRepo(sb, base);
    const ctx = contextOf(await runPromptHook(sb, payload(STASH_PROMPT)));
    expect(ctx).toBeDefined();
    expect(pointerIds(ctx)).toEqual([tid(1)]);
    expect(ctx).toContain(`- ${tid(1)} — Resolve a merge conflict from stash pop`);
    expect(ctx).toContain('Write plain sentences. No em dashes.');
    expect(ctx!.indexOf('Write plain sentences')).toBeLessThan(ctx!.indexOf(`- ${tid(1)}`));
    expect(ctx!.match(/git-kb get <id>/g)).toHaveLength(1);
    // Bodies of pointed entries are never included.
    expect(ctx).not.toContain('Body of Resolve');
  });

  it('is silent on skipped prompts, even with kernel entries', async () => {
    await makeRepo(sb, base);
    for (const p of ['yes', 'continue', '/clear', 'git status', 'commit this', 'thanks!', '!ls -la', 'run the tests']) {
      const r = await runPromptHook(sb, payload(p));
      expect(r.code).toBe(0);
      expect(r.stdout, p).toBe('');
    }
  });

  it('gives the kernel alone when nothing matches, and nothing at all without kernel entries', async () => {
    await makeRepo(sb, base);
    const off = 'My sourdough starter smells like acetone after each feeding; should I change the flour ratio?';
    const ctx = contextOf(await runPromptHook(sb, payload(off)));
    expect(ctx).toContain('Write plain sentences.');
    expect(pointerIds(ctx)).toEqual([]);
    expect(ctx).not.toContain('git-kb get');
    const sb2 = makeSandbox('gkb-prompt-');
    try {
      await makeRepo(sb2, base.filter((e) => !e.kernel));
      expect((await runPromptHook(sb2, payload(off))).stdout).toBe('');
    } finally {
      sb2.cleanup();
    }
  });

  it('points to applies_to entries by activity, at zero keyword overlap', async () => {
    await makeRepo(sb, base);
    const ctx = contextOf(await runPromptHook(sb, payload('Draft a polite email to my landlord about the broken heating in the apartment.')));
    expect(pointerIds(ctx)).toContain(tid(4));
    expect(ctx).toContain(`- ${tid(4)} — House style for prose (applies to writing)`);
  });

  it('fences a kernel body that itself holds code fences so it cannot break out', async () => {
    const body = 'Rules:\n```js\nconsole.log(1)\n```\nEnd of rules.';
    await makeRepo(sb, [{ id: tid(9), title: 'Fenced kernel', kernel: true, body }]);
    const ctx = contextOf(await runPromptHook(sb, payload(STASH_PROMPT)))!;
    expect(ctx).toContain(`\`\`\`\`markdown\n${body}\n\`\`\`\``);
  });
});

describe('kernel budget', () => {
  it('40 kernel entries of 2 KB and 30 matches stay under 9,000 characters, bodies whole and first, overflow as pointers', async () => {
    const entries: TestEntry[] = [];
    const bodies = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const id = tid(100 + i);
      const line = `Kernel rule ${i}: keep this invariant in mind. `;
      const body = `${line.repeat(Math.ceil(2048 / line.length))}`.slice(0, 2047) + '.';
      bodies.set(id, body);
      entries.push({ id, title: `Kernel invariant number ${i}`, kernel: true, body, created: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z` });
    }
    for (let i = 0; i < 30; i++) entries.push({ id: tid(200 + i), title: `Postgres index locking migration note ${i}`, tags: ['postgres'] });
    // Unrelated entries, so that the matching keywords are distinctive (as in any real data repo).
    const topics = ['vim', 'tmux', 'css', 'ruby', 'rails', 'bash', 'docker', 'react', 'python', 'go'];
    for (let i = 0; i < 300; i++) entries.push({ id: tid(400 + i), title: `${topics[i % 10]} tip ${i} about buffers and panes`, tags: [topics[i % 10]!] });
    await makeRepo(sb, entries);
    const r = await runPromptHook(sb, payload('postgres index locking during a migration: what does the note say?'));
    expect(r.stdout.length).toBeLessThan(HOOK_OUTPUT_MAX);
    const ctx = contextOf(r)!;
    const whole = [...bodies].filter(([, b]) => ctx.includes(b)).map(([id]) => id);
    const pointers = pointerIds(ctx);
    // Kernel bodies within the budget, in creation order, whole; every other kernel entry as a pointer.
    expect(whole.length).toBe(Math.floor(KERNEL_BUDGET / 2048));
    expect(whole).toEqual([...bodies.keys()].slice(0, whole.length));
    for (const id of bodies.keys()) expect(whole.includes(id) || pointers.includes(id), id).toBe(true);
    for (const id of whole) expect(pointers).not.toContain(id);
    // No body is cut: every "Kernel rule" run in the output belongs to a whole body.
    const runs = ctx.match(/Kernel rule \d+:/g) ?? [];
    expect(runs.length).toBe(whole.reduce((n, id) => n + (bodies.get(id)!.match(/Kernel rule/g) ?? []).length, 0));
    // Bodies first: the last body ends before the first pointer line.
    const lastBody = Math.max(...whole.map((id) => ctx.indexOf(bodies.get(id)!) + bodies.get(id)!.length));
    expect(lastBody).toBeLessThan(ctx.indexOf('\n- kb-'));
    // Keyword pointers come too, at most five.
    const matches = pointers.filter((id) => id >= tid(200) && id < tid(300));
    expect(matches.length).toBeGreaterThan(0);
    expect(matches.length).toBeLessThanOrEqual(5);
  });
});

describe('dedup ledger', () => {
  it('points once per session, again after git-kb add and after a plain-git commit, kernel every time, new session fresh', async () => {
    await makeRepo(sb, base);
    const first = contextOf(await runPromptHook(sb, payload(STASH_PROMPT)));
    expect(pointerIds(first)).toEqual([tid(1)]);

    const second = contextOf(await runPromptHook(sb, payload(STASH_PROMPT)));
    expect(pointerIds(second)).toEqual([]);
    expect(second).toContain('Write plain sentences.');

    const added = await kb(sb, ['--data', sb.data, 'add', '--type', 'factual_reference', '--title', 'Unrelated sourdough note', '--tags', 'baking', 'flour and water']);
    expect(added.code, added.stderr).toBe(0);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT))))).toEqual([tid(1)]);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT))))).toEqual([]);

    writeEntries(sb.data, [{ id: tid(50), title: 'Another unrelated note about bread', tags: ['baking'] }]);
    await commitAll(sb, 'by hand');
    const afterGit = contextOf(await runPromptHook(sb, payload(STASH_PROMPT)));
    expect(pointerIds(afterGit)).toEqual([tid(1)]);
    expect(afterGit).toContain('Write plain sentences.');

    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'session-b'))))).toEqual([tid(1)]);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'session-b'))))).toEqual([]);
  });

  it('does not point again because a session summary was written (the Stop hook commits those often)', async () => {
    await makeRepo(sb, base);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT))))).toEqual([tid(1)]);
    const summary = path.join(sb.data, 'sessions', '2026', '11', `${tid(60)}.md`);
    fs.mkdirSync(path.dirname(summary), { recursive: true });
    fs.writeFileSync(summary, `---\nid: ${tid(60)}\ntitle: A session about baking\ntype: session_summary\ncreated: 2026-11-29T10:00:00Z\n---\n\nTurns.\n`);
    await commitAll(sb, 'session summary');
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT))))).toEqual([]);
  });

  it('without a session id every prompt points afresh', async () => {
    await makeRepo(sb, base);
    for (let i = 0; i < 2; i++) expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, null))))).toEqual([tid(1)]);
  });
});

describe('freshness', () => {
  it('sees an uncommitted in-place hand edit of a recent entry at once', async () => {
    await makeRepo(sb, base);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 's1'))))).toEqual([tid(1)]);
    const file = path.join(sb.data, entryRel(base[0]!));
    const dirMtime = fs.statSync(path.dirname(file)).mtimeMs;
    // In place: same inode, the directory is not touched.
    fs.writeFileSync(file, entryText({ ...base[0]!, title: 'Resolve a merge conflict from stash pop (edited)' }));
    expect(fs.statSync(path.dirname(file)).mtimeMs).toBe(dirMtime);
    const ctx = contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 's2')));
    expect(ctx).toContain(`- ${tid(1)} — Resolve a merge conflict from stash pop (edited)`);
  });

  it('sees a kernel body edited in place', async () => {
    await makeRepo(sb, base);
    contextOf(await runPromptHook(sb, payload(STASH_PROMPT)));
    const k = base[4]!;
    fs.writeFileSync(path.join(sb.data, entryRel(k)), entryText({ ...k, body: 'A brand new kernel rule.' }));
    const ctx = contextOf(await runPromptHook(sb, payload(STASH_PROMPT)));
    expect(ctx).toContain('A brand new kernel rule.');
    expect(ctx).not.toContain('Write plain sentences.');
  });

  it('sees an old entry edited in place within one rotation of the window', async () => {
    const many: TestEntry[] = [];
    for (let i = 0; i < 300; i++) many.push({ id: tid(1000 + i), title: `Filler note ${i} about gardening`, tags: ['garden'], created: `2025-01-01T00:00:00Z` });
    await makeRepo(sb, [...base, ...many]);
    contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'w0')));
    // Make the stash entry old (out of the hot list) by touching many others later, then rebuild.
    const now = Date.now() / 1000;
    for (const e of many) fs.utimesSync(path.join(sb.data, entryRel(e)), now, now);
    const target = path.join(sb.data, entryRel(base[0]!));
    fs.utimesSync(target, now - 3600, now - 3600);
    await kb(sb, ['--data', sb.data, 'list']); // a catalog-reading command: the index is rebuilt at the next prompt
    contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'w1')));
    const st = fs.statSync(target);
    fs.writeFileSync(target, entryText({ ...base[0]!, title: 'Resolve a stash pop merge conflict, edited long after' }));
    fs.utimesSync(target, st.atime, new Date(st.mtimeMs + 1000));
    let seen = false;
    for (let i = 0; i < 6 && !seen; i++) {
      const ctx = contextOf(await runPromptHook(sb, payload(STASH_PROMPT, `w-${i}`)));
      seen = (ctx ?? '').includes('Resolve a stash pop merge conflict, edited long after');
    }
    expect(seen).toBe(true);
  });

  it('a git-kb command that reads the catalog makes the next prompt see any edit', async () => {
    const many: TestEntry[] = [];
    for (let i = 0; i < 400; i++) many.push({ id: tid(2000 + i), title: `Filler note ${i} about birds`, tags: ['birds'] });
    await makeRepo(sb, [...base, ...many]);
    contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'c0')));
    const target = path.join(sb.data, entryRel(many[7]!));
    const st = fs.statSync(target);
    fs.writeFileSync(target, entryText({ ...many[7]!, title: 'Resolve a stash pop merge conflict filler', tags: ['git'] }));
    fs.utimesSync(target, st.atime, st.mtime); // same mtime: only size and catalog notice
    const listed = await kb(sb, ['--data', sb.data, 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const ctx = contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'c1')));
    expect(ctx).toContain('Resolve a stash pop merge conflict filler');
  });
});

describe('large rebuilds', () => {
  it('a first build too big for the prompt runs in one background builder; the prompt stays silent until it is done', async () => {
    const many: TestEntry[] = [];
    const count = Math.ceil(SYNC_BUILD_BUDGET_MS / MS_PER_FILE_COLD) + 500;
    for (let i = 0; i < count; i++) many.push({ id: tid(10_000 + i), title: `Filler ${i} on gardening and soil`, tags: ['garden'] });
    await makeRepo(sb, [...base, ...many]);
    const debugFile = path.join(sb.root, 'debug.jsonl');
    const env = { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debugFile };
    const first = await runPromptHook(sb, payload(STASH_PROMPT, 'bg'), { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe('');
    const second = await runPromptHook(sb, payload(STASH_PROMPT, 'bg'), { env });
    expect(second.stdout).toBe('');
    const records = fs.readFileSync(debugFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records[0].index).toMatch(/started in the background/);
    expect(records[1].index).toMatch(/background build is running|started in the background/);
    let ctx: string | undefined;
    for (let i = 0; i < 120 && !ctx; i++) {
      await new Promise((r) => setTimeout(r, 250));
      if (fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'prompt', 'build.lock'))) continue;
      ctx = contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'bg2')));
    }
    expect(pointerIds(ctx)).toEqual([tid(1)]);
    expect(ctx).toContain('Write plain sentences.');
  });
});

describe('never blind during a rebuild', () => {
  it('a prompt typed right after a change, while the rebuild runs in the background, is answered from the previous index', async () => {
    await makeRepo(sb, base);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'nb0'))))).toEqual([tid(1)]);
    // A change (a new note by hand), then a prompt at once, with every rebuild sent to the background.
    writeEntries(sb.data, [{ id: tid(90), title: 'Kubernetes pod eviction under memory pressure', tags: ['k8s'] }]);
    const debugFile = path.join(sb.root, 'debug-nb.jsonl');
    const env = { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debugFile, KB_PROMPT_BUILD_BUDGET_MS: '0' };
    const during = contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'nb1'), { env }));
    expect(pointerIds(during)).toEqual([tid(1)]);
    expect(during).toContain('Write plain sentences.');
    const record = JSON.parse(fs.readFileSync(debugFile, 'utf8').trim().split('\n')[0]!);
    expect(record.index).toMatch(/started in the background; the previous index answers meanwhile/);
    // Once the builder is done, the new note is found too.
    let ctx: string | undefined;
    for (let i = 0; i < 120; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'prompt', 'build.lock'))) continue;
      ctx = contextOf(await runPromptHook(sb, payload('pods get evicted under memory pressure on kubernetes, why?', `nb2-${i}`), { env }));
      if (pointerIds(ctx).includes(tid(90))) break;
    }
    expect(pointerIds(ctx)).toContain(tid(90));
  });

  it('a prompt typed right after a change in a small repo is answered with the change: the index is updated in the prompt', async () => {
    await makeRepo(sb, base);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'nu0'))))).toEqual([tid(1)]);
    const debugFile = path.join(sb.root, 'debug-nu.jsonl');
    const env = { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debugFile };
    // a new note by hand, an edit of another and a deletion, then a prompt at once
    writeEntries(sb.data, [{ id: tid(91), title: 'Kubernetes pod eviction under memory pressure', tags: ['k8s'] }]);
    fs.rmSync(path.join(sb.data, entryRel(base[0]!)));
    const during = contextOf(await runPromptHook(sb, payload('pods get evicted under memory pressure on kubernetes, why?', 'nu1'), { env }));
    expect(pointerIds(during)).toContain(tid(91));
    const records = fs.readFileSync(debugFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { index: string });
    expect(records[0]!.index).toMatch(/^updated \(key\) in \d+ ms$/);
    expect(fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'prompt', 'build.lock'))).toBe(false);
    // the deleted note is pointed to no more, and the next prompt finds the index fresh
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'nu2'), { env })))).not.toContain(base[0]!.id);
    expect((JSON.parse(fs.readFileSync(debugFile, 'utf8').trim().split('\n').at(-1)!) as { index: string }).index).toBe('fresh');
  });

  it('a change an update declines (an id claimed twice) is rebuilt in the prompt of a small repo', async () => {
    await makeRepo(sb, base);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'nd0'))))).toEqual([tid(1)]);
    const debugFile = path.join(sb.root, 'debug-nd.jsonl');
    fs.writeFileSync(path.join(sb.data, 'entries', `${tid(1)}-aaa-first-by-path.md`), entryText({ id: tid(1), title: 'Kubernetes pod eviction under memory pressure', tags: ['k8s'] }));
    const ctx = contextOf(await runPromptHook(sb, payload('pods get evicted under memory pressure on kubernetes, why?', 'nd1'), { env: { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debugFile } }));
    // the first file by path serves the id, as the catalog says
    expect(pointerIds(ctx)).toEqual([tid(1)]);
    expect((JSON.parse(fs.readFileSync(debugFile, 'utf8').trim()) as { index: string }).index).toMatch(/^rebuilt \(key\) in \d+ ms$/);
    expect(fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'prompt', 'delta.v1'))).toBe(false);
  });

  it('does not answer from the previous index once hosts.yaml or a kernel entry changed', async () => {
    await makeRepo(sb, base);
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'nc0'))))).toEqual([tid(1)]);
    const env = { KB_PROMPT_BUILD_BUDGET_MS: '0' };
    fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), 'hosts:\n  web:\n    forbidden: true\n    markers: [webspace]\n');
    expect((await runPromptHook(sb, payload(STASH_PROMPT, 'nc1'), { env })).stdout).toBe('');
    // The kernel entry edited: its old body is never injected (silence, or the new body once a build landed).
    writeEntries(sb.data, [{ ...base[4]!, body: 'Write short sentences. Never use em dashes.' }]);
    const out = (await runPromptHook(sb, payload(STASH_PROMPT, 'nc2'), { env })).stdout;
    expect(out).not.toContain('Write plain sentences.');
    // The background builder these prompts started still writes under .git: let it finish before the cleanup.
    for (let i = 0; i < 120 && fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'prompt', 'build.lock')); i++) await new Promise((r) => setTimeout(r, 100));
  });
});

describe('hosts.yaml fails closed', () => {
  const facts: TestEntry[] = [
    { id: tid(70), title: 'Webspace deploy quirks of the webroot', type: 'host_fact', host: 'hssh' },
    { id: tid(71), title: 'Webroot deploy quirks on the NAS', type: 'host_fact', host: 'dssh' },
  ];
  const HOST_PROMPT = 'the webroot deploy quirks bite again on webspace and on debian-nas, what was the fix?';
  const hostsYaml = (hsshMarkers: string): string => `hosts:\n  hssh:\n    forbidden: true\n    markers: [${hsshMarkers}]\n  dssh:\n    markers: [debian-nas]\n`;

  it('points to no host fact and no host while hosts.yaml is malformed or holds a regex that does not compile', async () => {
    await makeRepo(sb, [...base, ...facts]);
    fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), hostsYaml('webspace'));
    await commitAll(sb, 'hosts');
    // Valid: the allowed host's fact and its host pointer, never the forbidden host's fact.
    const valid = contextOf(await runPromptHook(sb, payload(HOST_PROMPT, 'h0')));
    expect(pointerIds(valid)).toEqual([tid(71)]);
    expect(valid).toContain('- host:dssh — 1 fact about host dssh');
    expect(valid).not.toContain(tid(70));

    const broken = {
      'malformed YAML': `${hostsYaml('webspace')}  hssh: [forbidden: true\n`,
      'a regex that does not compile': hostsYaml('"/web(space/"'),
    };
    for (const [i, [why, text]] of Object.entries(broken).entries()) {
      fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), text);
      const ctx = contextOf(await runPromptHook(sb, payload(HOST_PROMPT, `h${i + 1}`)));
      expect(ctx, why).toContain('Write plain sentences.');
      expect(pointerIds(ctx), why).toEqual([]);
      expect(ctx, why).not.toMatch(/host:|Webspace|Webroot/);
    }
  });
});

describe('refreshPromptIndex', () => {
  it('brings an existing index up to date after a write, and builds none where the hook never ran', async () => {
    await makeRepo(sb, base);
    await refreshPromptIndex(sb.data);
    expect(fs.existsSync(indexFile(sb.data))).toBe(false);
    contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'r0')));
    writeEntries(sb.data, [{ id: tid(60), title: 'Finish a stash pop: merge conflicts and staged files', tags: ['git'] }]);
    await commitAll(sb, 'by hand');
    const stale = openIndexFile(indexFile(sb.data))!;
    expect(checkFreshness(sb.data, stale).fresh).toBe(false);
    stale.close();
    await refreshPromptIndex(sb.data);
    // with its delta: the change was written as one (update.ts), not as a rebuilt index file
    expect(fs.existsSync(deltaFile(sb.data))).toBe(true);
    expect(checkFreshness(sb.data, openIndexFile(indexFile(sb.data))!).fresh).toBe(false);
    const fresh = openPromptIndex(sb.data, indexFile(sb.data))!;
    expect(checkFreshness(sb.data, fresh).fresh).toBe(true);
    fresh.close();
    expect(pointerIds(contextOf(await runPromptHook(sb, payload(STASH_PROMPT, 'r1'))))).toContain(tid(60));
  });
});
