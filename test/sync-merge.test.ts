/**
 * The merge policy (src/core/merge/merge.ts) as pure functions, and the cases a sync must merge without loss against real
 * repositories: edit against delete, criss-cross histories with two merge bases, unrelated histories, files that
 * are not entries, uncommitted changes in the way, a killed checkout, and a push that keeps losing its race.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  conflictForm,
  conflictProblems,
  mergeDataFile,
  mergeEntryText,
  mergeLines,
  mergeValues,
  resolveConflictText,
  splitConflict,
} from '../src/core/merge/merge.js';
import { findConflicts } from '../src/core/merge/marks.js';
import { splitEntry } from '../src/core/format/entry.js';
import { readSettings } from '../src/adapters/config/settings.js';
import { expectCleanRepo, git, kb, makeSandbox, type RunResult, type Sandbox } from './helpers/cli.js';
import { cleanGitEnv, startGitServer, type GitServer } from './helpers/git-server.js';

const entry = (fields: string, body: string): string => `---\n${fields}---\n\n${body}\n`;
const OPEN = '<<<<<<< git-kb conflict: theirs (origin/main at 12345678) is below, ours is above';

describe('line merge (diff3)', () => {
  const base = ['a', 'b', 'c', 'd', 'e'];
  it('combines changes to different lines, and identical changes', () => {
    expect(mergeLines(base, ['A', 'b', 'c', 'd', 'e'], ['a', 'b', 'c', 'd', 'E'])).toEqual(['A', 'b', 'c', 'd', 'E']);
    expect(mergeLines(base, ['a', 'B', 'c', 'd', 'e'], ['a', 'B', 'c', 'd', 'e'])).toEqual(['a', 'B', 'c', 'd', 'e']);
    expect(mergeLines(base, ['a', 'b', 'c', 'd', 'e', 'f'], ['x', 'a', 'b', 'c', 'd', 'e'])).toEqual(['x', 'a', 'b', 'c', 'd', 'e', 'f']);
    expect(mergeLines(base, ['a', 'c', 'd', 'e'], ['a', 'b', 'c', 'd'])).toEqual(['a', 'c', 'd']);
  });
  it('reports overlapping, adjacent and same-place changes as conflicts', () => {
    expect(mergeLines(base, ['a', 'X', 'c', 'd', 'e'], ['a', 'Y', 'c', 'd', 'e'])).toBeUndefined();
    expect(mergeLines(base, ['a', 'X', 'c', 'd', 'e'], ['a', 'b', 'Y', 'd', 'e'])).toBeUndefined();
    expect(mergeLines(base, [...base, 'one'], [...base, 'two'])).toBeUndefined();
  });
});

describe('field merge', () => {
  it('merges maps key by key, lists as sets; updated takes the later date, next_id the larger', () => {
    const m = mergeValues(
      { title: 'T', tags: ['a', 'z'], updated: '2026-01-01T00:00:00Z', next_id: 5 },
      { title: 'T2', tags: ['a', 'z', 'x'], updated: '2026-02-01T00:00:00Z', next_id: 7 },
      { title: 'T', tags: ['a', 'y'], updated: '2026-03-01T00:00:00Z', next_id: 6, url: 'https://x.example' },
    );
    expect(m.conflicts).toEqual([]);
    expect(m.value).toEqual({ title: 'T2', tags: ['a', 'x', 'y'], updated: '2026-03-01T00:00:00Z', next_id: 7, url: 'https://x.example' });
    expect(mergeValues({ title: 'T' }, { title: 'A' }, { title: 'B' }).conflicts).toEqual(['title']);
  });
});

describe('entry merge and the conflict form', () => {
  const base = entry('id: kb-1\ntitle: Note\ntype: decision\ntags:\n  - a\nupdated: 2026-01-01T00:00:00Z\n', 'First.\n\nSecond.');
  it('merges a front matter change on one side with a body change on the other, keeping comments', () => {
    const ours = entry('id: kb-1\ntitle: Note # keep this comment\ntype: decision\ntags:\n  - a\n  - ours\nupdated: 2026-01-02T00:00:00Z\n', 'First.\n\nSecond.');
    const theirs = entry('id: kb-1\ntitle: Note\ntype: decision\ntags:\n  - a\nupdated: 2026-01-03T00:00:00Z\n', 'First.\n\nSecond.\n\nThird, theirs.');
    const m = mergeEntryText(base, ours, theirs, 'entries/kb-1-note.md', OPEN);
    expect(m.conflict).toBe(false);
    expect(m.text).toContain('# keep this comment');
    expect(m.text).toContain('  - ours');
    expect(m.text).toContain('updated: 2026-01-03T00:00:00Z');
    expect(m.text).toContain('Third, theirs.');
  });
  it('keeps both versions of a real conflict, readable and round-tripping exactly', () => {
    const ours = entry('id: kb-1\ntitle: Ours\ntype: decision\n', 'Ours wrote this.');
    const theirs = entry('id: kb-1\ntitle: Theirs\ntype: decision\n', 'Theirs wrote that.');
    const m = mergeEntryText(base, ours, theirs, 'entries/kb-1-note.md', OPEN);
    expect(m.conflict).toBe(true);
    expect(m.text.startsWith(ours)).toBe(true);
    expect(m.text).toContain(`\n${OPEN}\n${theirs}>>>>>>> git-kb conflict end\n`);
    expect(splitConflict(m.text)).toEqual({ ours, blocks: [theirs] });
    const marks = findConflicts(m.text);
    expect(marks).toEqual([{ line: m.text.split('\n').indexOf(OPEN) + 1, kind: 'git-kb' }]);
    expect(conflictProblems(m.text, 'entries/kb-1-note.md')).toMatchObject([{ rule: 'conflict-unresolved', file: 'entries/kb-1-note.md', line: marks[0]!.line, id: 'kb-1' }]);
    expect(resolveConflictText(m.text, 'ours', 'f.md')).toBe(ours);
    expect(resolveConflictText(m.text, 'theirs', 'f.md')).toBe(theirs);
    const both = resolveConflictText(m.text, 'both', 'entries/kb-1-note.md', '2026-05-05T00:00:00Z')!;
    expect(both).toContain('Ours wrote this.\n\nTheirs wrote that.');
    expect(both).toContain('updated: 2026-05-05T00:00:00Z');
    expect(findConflicts(both)).toEqual([]);
    // Two machines that merged the same pair at once converge on one form instead of nesting blocks.
    const mirrored = conflictForm(theirs, ours, OPEN);
    const again = mergeEntryText(base, m.text, mirrored, 'entries/kb-1-note.md', OPEN);
    expect(again.text).toBe(m.text < mirrored ? m.text : mirrored);
    expect(findConflicts(again.text)).toHaveLength(1);
  });
  it('--keep both reads a note once: shared paragraphs once, where the sides differ ours then theirs, a code block whole', () => {
    const shared = 'Deploys go through the pipeline.\n\n```sh\nmake deploy\n\nmake verify\n```\n\nAsk in #ops first.';
    const ours = entry('id: kb-1\ntitle: Deploys\ntype: decision\n', shared.replace('Ask in #ops first.', 'Ask in #ops first.\n\nOurs: never on Fridays.'));
    const theirs = entry('id: kb-1\ntitle: Deploys\ntype: decision\n', shared.replace('Deploys go through the pipeline.', 'Deploys go through the new pipeline.'));
    const m = mergeEntryText(entry('id: kb-1\ntitle: Deploys\ntype: decision\n', 'Old.'), ours, theirs, 'entries/kb-1-note.md', OPEN);
    expect(m.conflict).toBe(true);
    const both = resolveConflictText(m.text, 'both', 'entries/kb-1-note.md', '2026-05-05T00:00:00Z')!;
    const body = splitEntry(both, 'entries/kb-1-note.md').body.trim();
    expect(body).toBe('Deploys go through the pipeline.\n\nDeploys go through the new pipeline.\n\n```sh\nmake deploy\n\nmake verify\n```\n\nAsk in #ops first.\n\nOurs: never on Fridays.');
    // Nothing in common: ours, then theirs.
    const apart = resolveConflictText(mergeEntryText(entry('id: kb-1\ntitle: D\ntype: decision\n', 'Old.'), entry('id: kb-1\ntitle: D\ntype: decision\n', 'A.'), entry('id: kb-1\ntitle: D\ntype: decision\n', 'B.'), 'entries/kb-1-note.md', OPEN).text, 'both', 'entries/kb-1-note.md')!;
    expect(splitEntry(apart, 'entries/kb-1-note.md').body.trim()).toBe('A.\n\nB.');
  });

  it("flags git's own conflict markers too", () => {
    expect(findConflicts('a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> other\n')).toEqual([{ line: 2, kind: 'git' }]);
  });
});

describe('files that are not entries', () => {
  it('kb.json and hosts.yaml merge structurally when lines collide; a real conflict is reported', () => {
    const kbBase = '{\n  "schema_version": 2,\n  "next_id": 10\n}\n';
    const k = mergeDataFile(kbBase, '{\n  "schema_version": 2,\n  "next_id": 12\n}\n', '{\n  "schema_version": 2,\n  "next_id": 11\n}\n', 'kb.json');
    expect(k.conflict).toBe(false);
    expect(JSON.parse(k.text).next_id).toBe(12);
    const hBase = 'hosts:\n  web:\n    aliases: [w]\n';
    const h = mergeDataFile(hBase, `${hBase}  db:\n    aliases: [d]\n`, `${hBase}  cache:\n    aliases: [c]\n`, 'hosts.yaml');
    expect(h.conflict).toBe(false);
    expect(h.text).toContain('db:');
    expect(h.text).toContain('cache:');
    expect(mergeDataFile('x: 1\n', 'x: 2\n', 'x: 3\n', 'hosts.yaml')).toMatchObject({ conflict: true, text: 'x: 2\n' });
  });
});

// ---- against real repositories ----

let server: GitServer | undefined;
const sandboxes: Sandbox[] = [];

afterEach(async () => {
  vi.unstubAllEnvs();
  try {
    if (server) for (const name of fs.readdirSync(server.root)) expect((await git(path.join(server.root, name), ['fsck', '--strict', '--no-dangling', '--no-progress'], cleanGitEnv())).trim()).toBe('');
  } finally {
    await server?.stop();
    server = undefined;
    for (const sb of sandboxes.splice(0)) sb.cleanup();
  }
});

function machine(): Sandbox {
  const sb = makeSandbox('gkb-merge-');
  sandboxes.push(sb);
  return sb;
}

async function run(sb: Sandbox, args: string[]): Promise<RunResult> {
  return kb(sb, ['--data', sb.data, ...args]);
}

async function json<T = any>(sb: Sandbox, args: string[]): Promise<T> {
  const r = await run(sb, ['--json', ...args]); // before the verb's arguments: a body after -- may follow
  if (r.code !== 0 && !(args[0] === 'sync' && r.code === 4)) throw new Error(`git-kb ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

const g = (sb: Sandbox, args: string[], dir = sb.data): Promise<string> => git(dir, args, sb.env);

async function add(sb: Sandbox, title: string, body = 'body'): Promise<{ id: string; path: string }> {
  return json(sb, ['add', '--type', 'decision', '--title', title, '--', body]);
}

/** A remote on the loopback server and two machines cloned from it, with `n` shared entries. */
async function twoMachines(n: number): Promise<{ a: Sandbox; b: Sandbox; shared: { id: string; path: string }[]; url: string }> {
  server = await startGitServer();
  server.createBare('kb');
  const url = server.repoUrl('kb');
  const a = machine();
  const b = machine();
  await json(a, ['init', '--clone', url]);
  const shared = [];
  for (let i = 0; i < n; i++) shared.push(await add(a, `Shared ${i}`, `Original ${i}.`));
  await json(a, ['sync']);
  await json(b, ['init', '--clone', url]);
  return { a, b, shared, url };
}

describe('merges against real repositories', () => {
  it('edit against delete keeps the edit, whichever side merges', async () => {
    const { a, b, shared } = await twoMachines(2);
    // shared[0]: deleted on A, edited on B (B merges). shared[1]: edited on A, deleted on B (A merges second).
    await g(a, ['rm', '--quiet', shared[0]!.path]);
    await g(a, ['commit', '--quiet', '-m', 'delete 0 by hand']);
    await json(a, ['edit', shared[1]!.id, '--body', 'Edited on A.']);
    await json(b, ['edit', shared[0]!.id, '--body', 'Edited on B.']);
    await g(b, ['rm', '--quiet', shared[1]!.path]);
    await g(b, ['commit', '--quiet', '-m', 'delete 1 by hand']);
    await json(a, ['sync']);
    const r = await json(b, ['sync']);
    expect(r.merge).toBe('merge');
    expect(r.notes.join('\n')).toMatch(new RegExp(`${shared[0]!.id}: deleted on origin/main at [0-9a-f]{8} but edited here; kept the edit`));
    expect(r.notes.join('\n')).toMatch(new RegExp(`${shared[1]!.id}: deleted here but edited on origin/main`));
    await json(a, ['sync']);
    for (const sb of [a, b]) {
      expect(fs.readFileSync(path.join(sb.data, shared[0]!.path), 'utf8')).toContain('Edited on B.');
      expect(fs.readFileSync(path.join(sb.data, shared[1]!.path), 'utf8')).toContain('Edited on A.');
      await expectCleanRepo(sb.data);
    }
  });

  it('criss-cross history (two merge bases) merges file by file without loss', async () => {
    const { a, b, shared } = await twoMachines(2);
    await json(a, ['edit', shared[0]!.id, '--body', 'X: edited on A.']);
    await json(b, ['edit', shared[1]!.id, '--body', 'Y: edited on B.']);
    const x = (await g(a, ['rev-parse', 'HEAD'])).trim();
    const y = (await g(b, ['rev-parse', 'HEAD'])).trim();
    // Each machine merges the other's commit with plain git, so the two merges cross.
    await g(a, ['fetch', '--quiet', b.data, 'main']);
    await g(a, ['merge', '--quiet', '--no-edit', 'FETCH_HEAD']);
    await g(b, ['fetch', '--quiet', a.data, x]);
    await g(b, ['merge', '--quiet', '--no-edit', x]);
    const e3 = await add(a, 'After the cross on A', 'three');
    const e4 = await add(b, 'After the cross on B', 'four');
    await g(b, ['push', '--quiet', 'origin', 'main']);
    // The real git agrees that there are two merge bases.
    await g(b, ['fetch', '--quiet', a.data, 'main']);
    expect((await g(b, ['merge-base', '--all', 'HEAD', 'FETCH_HEAD'])).trim().split('\n').sort()).toEqual([x, y].sort());
    const r = await json(a, ['sync']);
    expect(r).toMatchObject({ merge: 'merge', pushed: true, conflicts: [] });
    expect(r.notes.join('\n')).toMatch(/2 merge bases/);
    await json(b, ['sync']);
    for (const sb of [a, b]) {
      expect(fs.readFileSync(path.join(sb.data, shared[0]!.path), 'utf8')).toContain('X: edited on A.');
      expect(fs.readFileSync(path.join(sb.data, shared[1]!.path), 'utf8')).toContain('Y: edited on B.');
      for (const e of [e3, e4]) expect(fs.existsSync(path.join(sb.data, e.path))).toBe(true);
      await expectCleanRepo(sb.data);
    }
    expect((await g(a, ['rev-parse', 'HEAD'])).trim()).toBe((await g(b, ['rev-parse', 'HEAD'])).trim());
  });

  it('a repo started separately merges into the remote with no common base', async () => {
    const { a, url } = await twoMachines(1);
    const c = machine();
    await json(c, ['init']);
    const mine = await add(c, 'Started on its own', 'solo');
    await json(c, ['init', '--remote', url]);
    const r = await json(c, ['sync']);
    expect(r).toMatchObject({ merge: 'merge', pushed: true, conflicts: [] });
    expect(r.notes.join('\n')).toMatch(/unrelated/);
    const back = await json(a, ['sync']);
    expect(back.merge).toBe('fast-forward');
    expect(fs.existsSync(path.join(a.data, mine.path))).toBe(true);
    await expectCleanRepo(c.data);
  });

  it('a conflicting kb.json keeps ours in place and theirs beside it; lint flags it; resolve settles it', async () => {
    const { a, b } = await twoMachines(0);
    fs.writeFileSync(path.join(a.data, 'kb.json'), '{\n  "schema_version": 2,\n  "owner": "alpha"\n}\n');
    await g(a, ['commit', '--quiet', '-am', 'owner alpha']);
    fs.writeFileSync(path.join(b.data, 'kb.json'), '{\n  "schema_version": 2,\n  "owner": "bravo"\n}\n');
    await g(b, ['commit', '--quiet', '-am', 'owner bravo']);
    await json(a, ['sync']);
    const r = await run(b, ['sync', '--json']);
    expect(r.code).toBe(4);
    const out = JSON.parse(r.stdout);
    expect(out.unresolved).toMatchObject([{ kind: 'file', of: 'kb.json', line: 1 }]);
    const sibling = out.unresolved[0].path as string;
    expect(sibling).toMatch(/^kb\.json\.conflict-[0-9a-f]{8}$/);
    expect(JSON.parse(fs.readFileSync(path.join(b.data, 'kb.json'), 'utf8')).owner).toBe('bravo');
    expect(JSON.parse(fs.readFileSync(path.join(b.data, sibling), 'utf8')).owner).toBe('alpha');
    const lint = JSON.parse((await run(b, ['lint', '--json'])).stdout);
    expect(lint.problems).toMatchObject([{ rule: 'conflict-unresolved', file: sibling, line: 1 }]);
    const res = await json(b, ['resolve', 'kb.json', '--keep', 'theirs']);
    expect(res.unresolved).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(b.data, 'kb.json'), 'utf8')).owner).toBe('alpha');
    expect(fs.existsSync(path.join(b.data, sibling))).toBe(false);
    expect((await json(b, ['sync'])).pushed).toBe(true);
    await expectCleanRepo(b.data);
  });

  it('a hand edit that lints clean is committed before the pull and merged; one that does not stops sync, nothing changed', async () => {
    const { a, b, shared } = await twoMachines(1);
    await json(a, ['edit', shared[0]!.id, '--body', 'Newer, from A.']);
    await json(a, ['sync']);
    const file = path.join(b.data, shared[0]!.path);
    const clean = fs.readFileSync(file, 'utf8');
    // A hand edit that breaks the entry: sync stops before pulling (exit 5), with the problem and nothing changed.
    fs.writeFileSync(file, clean.replace(/^type: .*$/m, 'type: memo'));
    const head = (await g(b, ['rev-parse', 'HEAD'])).trim();
    const bad = await run(b, ['sync', '--json']);
    expect(bad.code).toBe(5);
    const err = JSON.parse(bad.stderr).error;
    expect(err.code).toBe('INVALID_ENTRY');
    expect(err.message).toContain(`${shared[0]!.path}:`);
    expect(err.message).toMatch(/sync stopped before pulling/);
    expect((await g(b, ['rev-parse', 'HEAD'])).trim()).toBe(head);
    // A good hand edit: committed first (one commit), then merged with A's change.
    fs.writeFileSync(file, `${clean}\nA hand edit, not committed.\n`);
    const ok = await run(b, ['sync', '--json']);
    expect([0, 4]).toContain(ok.code);
    expect(JSON.parse(ok.stdout).notes.join('\n')).toMatch(/committed 1 hand edit\(s\) first/);
    expect(fs.readFileSync(file, 'utf8')).toContain('Newer, from A.');
    expect(fs.readFileSync(file, 'utf8')).toContain('A hand edit, not committed.');
  });

  it('a sync killed between moving the branch and writing the files is finished by the next one', async () => {
    const { a, b, shared } = await twoMachines(1);
    const before = fs.readFileSync(path.join(b.data, shared[0]!.path), 'utf8');
    const from = (await g(b, ['rev-parse', 'HEAD'])).trim();
    await json(a, ['edit', shared[0]!.id, '--body', 'Pulled after a crash.']);
    await json(a, ['sync']);
    await json(b, ['sync']);
    // Rewind the working file and replay the journal a killed process would have left (the one write journal).
    fs.writeFileSync(path.join(b.data, shared[0]!.path), before);
    const to = (await g(b, ['rev-parse', 'HEAD'])).trim();
    fs.writeFileSync(path.join(b.data, '.git', 'git-kb', 'journal.json'), JSON.stringify({ kind: 'checkout', from, to, paths: [shared[0]!.path] }));
    const r = await json(b, ['sync']);
    expect(r.notes.join('\n')).toMatch(/finished an interrupted sync: 1 file/);
    expect(fs.readFileSync(path.join(b.data, shared[0]!.path), 'utf8')).toContain('Pulled after a crash.');
    await expectCleanRepo(b.data);
  });

  it('a killed checkout is finished by whichever write comes next (one journal for every write)', async () => {
    const { a, b, shared } = await twoMachines(1);
    const before = fs.readFileSync(path.join(b.data, shared[0]!.path), 'utf8');
    const from = (await g(b, ['rev-parse', 'HEAD'])).trim();
    await json(a, ['edit', shared[0]!.id, '--body', 'Pulled before an add.']);
    await json(a, ['sync']);
    await json(b, ['sync', '--no-push']);
    fs.writeFileSync(path.join(b.data, shared[0]!.path), before);
    const to = (await g(b, ['rev-parse', 'HEAD'])).trim();
    fs.writeFileSync(path.join(b.data, '.git', 'git-kb', 'journal.json'), JSON.stringify({ kind: 'checkout', from, to, paths: [shared[0]!.path] }));
    await add(b, 'Written after a killed sync');
    expect(fs.readFileSync(path.join(b.data, shared[0]!.path), 'utf8')).toContain('Pulled before an add.');
    expect(fs.existsSync(path.join(b.data, '.git', 'git-kb', 'journal.json'))).toBe(false);
    // Finishing a checkout writes files only: the add's commit sits right on the commit checked out.
    expect((await g(b, ['rev-parse', 'HEAD~1'])).trim()).toBe(to);
    await expectCleanRepo(b.data);
  });

  it('a killed checkout whose file was edited by hand since: the replay leaves the edit, and git status still shows it', async () => {
    const { a, b, shared } = await twoMachines(1);
    const file = path.join(b.data, shared[0]!.path);
    const from = (await g(b, ['rev-parse', 'HEAD'])).trim();
    await json(a, ['edit', shared[0]!.id, '--body', 'Pulled before a hand edit.']);
    await json(a, ['sync']);
    await json(b, ['sync', '--no-push']);
    const to = (await g(b, ['rev-parse', 'HEAD'])).trim();
    const edited = fs.readFileSync(file, 'utf8').replace('Pulled before a hand edit.', 'Edited by hand, not committed.');
    fs.writeFileSync(file, edited);
    const past = new Date(Date.now() - 3600_000);
    fs.utimesSync(file, past, past); // older than any index written next: git trusts the stat data it records
    fs.writeFileSync(path.join(b.data, '.git', 'git-kb', 'journal.json'), JSON.stringify({ kind: 'checkout', from, to, paths: [shared[0]!.path] }));
    await add(b, 'Written after a killed sync');
    expect(fs.readFileSync(file, 'utf8')).toBe(edited);
    expect(fs.existsSync(path.join(b.data, '.git', 'git-kb', 'journal.json'))).toBe(false);
    // Before: the index entry took the HEAD blob with the edited file's stat data, so git took the file for
    // unchanged: git status was clean and git commit -a would have left the edit out.
    expect(await g(b, ['status', '--porcelain'])).toBe(` M ${shared[0]!.path}\n`);
    expect((await g(b, ['diff', '--', shared[0]!.path]))).toContain('+Edited by hand, not committed.');
  });

  it('a push that keeps losing its race: retried, then PUSH_REJECTED (exit 6) with local commits kept', async () => {
    const { a, b } = await twoMachines(0);
    for (const [k, v] of Object.entries(a.env)) if (k === 'HOME' || k === 'XDG_CONFIG_HOME' || k.startsWith('GIT_')) vi.stubEnv(k, v!);
    const { syncRepo } = await import('../src/app/sync.js');
    const { KbError } = await import('../src/core/errors.js');
    const mine = await add(a, 'Pushed after losing once', 'one');
    // B wins the first race only: A fetches, merges again and lands.
    let landed = 0;
    const once = await syncRepo({
      data: a.data,
      settings: readSettings(a.env),
      beforePush: async (attempt) => {
        if (attempt > 1) return;
        await add(b, `B wins round ${attempt}`);
        expect((await kb(b, ['--data', b.data, 'sync', '--json'])).code).toBe(0);
        landed++;
      },
    });
    expect(once).toMatchObject({ pushed: true, attempts: 2, merge: 'merge' });
    expect(landed).toBe(1);
    // B wins every time: A gives up after its attempts, with everything kept locally.
    const mine2 = await add(a, 'Never pushed', 'two');
    const err = await syncRepo({
      data: a.data,
      settings: readSettings(a.env),
      maxAttempts: 3,
      beforePush: async (attempt) => {
        await add(b, `B wins again ${attempt}`);
        expect((await kb(b, ['--data', b.data, 'sync', '--json'])).code).toBe(0);
      },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(KbError);
    expect((err as InstanceType<typeof KbError>).code).toBe('PUSH_REJECTED');
    expect((err as InstanceType<typeof KbError>).exitCode).toBe(6);
    expect((err as Error).message).toMatch(/lost the race 3 times.*kept/);
    for (const e of [mine, mine2]) expect(fs.existsSync(path.join(a.data, e.path))).toBe(true);
    expect((await g(a, ['log', '--format=%s'])).includes(`add ${mine2.id}`)).toBe(true);
    const { syncStatus } = await import('../src/app/sync-status.js');
    const before = await syncStatus({ data: a.data, settings: readSettings(a.env) });
    expect(before).toMatchObject({ remote: 'origin', branch: 'main', unresolved: 0, auto_sync: false });
    expect(before.ahead).toBeGreaterThanOrEqual(1);
    const done = await json(a, ['sync']);
    expect(done.pushed).toBe(true);
    expect(await syncStatus({ data: a.data, settings: readSettings(a.env) })).toMatchObject({ ahead: 0, behind: 0 });
    await expectCleanRepo(a.data);
  });
});
