/**
 * Kill harness (issue 16): every write verb SIGKILLed at seeded random points, KB_HOSTILE_KILLS times each
 * (default 20). Half the kill points are spread over the time an unkilled run of the verb takes here, half over
 * the time after it takes the write lock (where the writing happens). After every kill: `git fsck --strict` is
 * clean (no error, no "bad sha1 file" warning), and after the next git-kb command `git status --porcelain` is
 * empty and no temp file is left. Verbs: add, edit, import, sync, host add, session record, adopt and
 * init --clone (each run again after its kill: no note adopted twice, a clone that completes), restore.
 * Some verbs may pass today; the harness stays as a guard for the refactor.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, kb, makeSandbox, ROOT, type RunResult, type Sandbox } from '../helpers/cli.js';
import { cleanGitEnv, startGitServer, type GitServer } from '../helpers/git-server.js';
import { tid, writeEntries } from '../hooks/prompt-support.js';
import { copyTree, fsckOutput, kbKilledAfter, KillWindow, lockPath, tempFiles } from './support.js';

const KILLS = Number(process.env.KB_HOSTILE_KILLS ?? 20);
const SEED = Number(process.env.KB_HOSTILE_SEED ?? 0x5eed);
const CORPUS = '/work/shared/corpus/jbranchaud-til';
const TRANSCRIPT = path.join(ROOT, 'test', 'fixtures', 'transcripts', 'coding-session.jsonl');

let sb: Sandbox;
beforeAll(() => {
  sb = makeSandbox('gkb-harness-');
});
afterAll(() => sb.cleanup());

async function ok(args: string[]): Promise<RunResult> {
  const r = await kb(sb, args);
  if (r.code !== 0) throw new Error(`git-kb ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
}

/** What one verb's harness needs. */
interface Verb {
  name: string;
  /** Makes the repo the rounds start from (returns its dir). */
  setup(): Promise<string>;
  /** The repo a round runs on: the shared one, or a fresh copy when the verb cannot repeat on one repo. */
  repoFor?(round: number): Promise<string>;
  /** Waits for whatever the killed command left running outside the repo (a server's receive-pack). */
  afterKill?(): Promise<void>;
  /** The killed command's arguments. */
  args(dir: string, round: number): string[];
  /** The next git-kb command, after the kill. */
  next(dir: string, round: number): string[];
  /** Exit codes the next command may end with. */
  nextCodes?: number[];
  /**
   * Kill points only from spawn: the verb makes its repo elsewhere and renames it into place, so there is no lock at
   * the repo to wait for (and watching for one would make the folder).
   */
  fromSpawnOnly?: boolean;
  /** What must hold after the next command (undefined: it does), e.g. no note adopted twice. */
  check?(dir: string, round: number): Promise<string | undefined>;
}

async function baseRepo(name: string, entries = 3): Promise<string> {
  const dir = path.join(sb.root, name);
  await ok(['--data', dir, 'init']);
  for (let i = 0; i < entries; i++) await ok(['--data', dir, 'add', '--type', 'decision', '--title', `Existing ${name} ${i}`, '--', `Body of existing entry ${i}. `.repeat(20)]);
  return dir;
}

const addNext = (dir: string, round: number): string[] => ['--data', dir, 'add', '--type', 'decision', '--title', `Next after round ${round}`, '--', 'A body.'];

let server: GitServer | undefined;
afterAll(async () => {
  await server?.stop();
});

const verbs: Verb[] = [
  {
    name: 'add',
    setup: () => baseRepo('add'),
    args: (dir, n) => ['--data', dir, 'add', '--type', 'lesson_learned', '--title', `Killed add ${n}`, '--', `Body of killed add ${n}. `.repeat(60)],
    next: addNext,
  },
  {
    // 4,000 entries: the folder's tree is over BIG_TREE, so each add writes it in segments and keeps it
    // (src/adapters/git/big-tree.ts); a kill between the object and the kept copy, or inside either, is safe.
    name: 'add to a big folder',
    setup: async () => {
      const dir = await baseRepo('add-big', 1);
      fs.mkdirSync(path.join(dir, 'entries'), { recursive: true });
      for (let i = 0; i < 4000; i++) {
        const id = `kb-big${String(i).padStart(6, '0')}`;
        fs.writeFileSync(path.join(dir, 'entries', `${id}-a-filler-note-about-subject-${i}.md`), `---\nid: ${id}\ntitle: Filler ${i}\ntype: decision\ncreated: 2026-01-01T00:00:00Z\n---\nFiller ${i}.\n`);
      }
      await git(dir, ['add', '-A'], sb.env);
      await git(dir, ['commit', '-q', '-m', 'filler'], sb.env);
      await ok(['--data', dir, 'add', '--type', 'decision', '--title', 'Keeps the big tree', '--', 'First segmented write.']);
      expect(fs.readdirSync(path.join(dir, '.git', 'git-kb', 'trees'))).toHaveLength(1);
      return dir;
    },
    args: (dir, n) => ['--data', dir, 'add', '--type', 'lesson_learned', '--title', `Killed big add ${n}`, '--', `Body of killed add ${n}. `.repeat(20)],
    next: addNext,
  },
  (() => {
    let id = '';
    return {
      name: 'edit',
      setup: async () => {
        const dir = await baseRepo('edit', 1);
        id = JSON.parse((await ok(['--data', dir, '--json', 'add', '--type', 'decision', '--title', 'Edited over and over', '--', 'First body.'])).stdout).id;
        return dir;
      },
      args: (dir, n) => ['--data', dir, 'edit', id, '--body', `Body number ${n}. `.repeat(50), '--add-tag', `round-${n}`],
      next: addNext,
    } satisfies Verb;
  })(),
  (() => {
    let template = '';
    return {
      name: 'import',
      setup: async () => {
        // 66 notes: over the 64 at which new blobs go into one pack.
        fs.cpSync(path.join(CORPUS, 'python'), path.join(sb.root, 'harness-notes', 'python'), { recursive: true });
        template = await baseRepo('import-template', 1);
        return template;
      },
      repoFor: async (n) => {
        const dir = path.join(sb.root, `import-${n}`);
        await copyTree(template, dir);
        return dir;
      },
      args: (dir) => ['--data', dir, 'import', '--redact', path.join(sb.root, 'harness-notes')],
      next: addNext,
    } satisfies Verb;
  })(),
  (() => {
    let template = '';
    let bare = '';
    let tip = '';
    return {
      name: 'sync',
      setup: async () => {
        server = await startGitServer();
        bare = server.createBare('kb');
        const url = server.repoUrl('kb');
        const ad = path.join(sb.root, 'sync-a');
        const bd = path.join(sb.root, 'sync-b');
        await ok(['--data', ad, 'init', '--clone', url]);
        const shared = JSON.parse((await ok(['--data', ad, '--json', 'add', '--type', 'decision', '--title', 'Shared entry', '--', 'Original.'])).stdout);
        await ok(['--data', ad, 'sync']);
        await ok(['--data', bd, 'init', '--clone', url]);
        writeEntries(bd, Array.from({ length: 30 }, (_, i) => ({ id: tid(5000 + i), title: `From bravo ${i}`, body: `Bravo text ${i}. `.repeat(10) })));
        await git(bd, ['add', '-A'], sb.env);
        await git(bd, ['commit', '-q', '-m', 'bravo notes'], sb.env);
        await ok(['--data', bd, 'edit', shared.id, '--body', 'Bravo version.']);
        await ok(['--data', bd, 'sync']);
        tip = (await git(bare, ['rev-parse', 'main'], cleanGitEnv())).trim();
        await ok(['--data', ad, 'edit', shared.id, '--body', 'Alpha version.']);
        template = ad;
        return ad;
      },
      repoFor: async (n) => {
        const dir = path.join(sb.root, `sync-${n}`);
        await copyTree(template, dir);
        await git(bare, ['update-ref', 'refs/heads/main', tip], cleanGitEnv());
        return dir;
      },
      // A killed push leaves the server's receive-pack finishing (and holding HEAD.lock) a moment
      // longer; the next sync, like a user's, comes after it.
      afterKill: () => server!.idle(),
      args: (dir) => ['--data', dir, 'sync'],
      next: (dir) => ['--data', dir, 'sync'],
      nextCodes: [0, 4],
    } satisfies Verb;
  })(),
  {
    name: 'host add',
    setup: async () => {
      const dir = await baseRepo('host', 1);
      await ok(['--data', dir, 'host', 'register', 'pop-os', '--marker', '192.168.1.20']);
      return dir;
    },
    args: (dir, n) => ['--data', dir, 'host', 'add', 'pop-os', `Fact number ${n}: the gallery is served from /srv/gallery-${n}.`],
    next: addNext,
  },
  {
    name: 'session record',
    setup: () => baseRepo('session', 1),
    args: (dir, n) => ['--data', dir, 'session', 'record', '--transcript', TRANSCRIPT, '--session-id', `harness-session-${n}`],
    next: addNext,
  },
  (() => {
    let template = '';
    const notes = ['Gallery cache', 'Thumbnail sizes', 'Deploy steps', 'Backup rotation', 'Font loading'];
    return {
      // Notes made outside git-kb (Obsidian): untracked files without front matter. A kill after the commit and
      // before the leftovers are removed must not make the rerun adopt them twice.
      name: 'adopt',
      setup: async () => {
        template = await baseRepo('adopt-template', 1);
        return template;
      },
      repoFor: async (n) => {
        const dir = path.join(sb.root, `adopt-${n}`);
        await copyTree(template, dir);
        for (const t of notes) fs.writeFileSync(path.join(dir, 'entries', `${t}.md`), `# ${t}\n\nNotes on ${t.toLowerCase()}, written by hand. `.repeat(30));
        return dir;
      },
      args: (dir) => ['--data', dir, 'adopt'],
      next: (dir) => ['--data', dir, 'adopt'],
      check: async (dir) => {
        const titles = (JSON.parse((await ok(['--data', dir, '--json', 'list'])).stdout) as { entries: { title: string }[] }).entries.map((e) => e.title);
        const twice = notes.filter((t) => titles.filter((x) => x === t).length !== 1);
        const left = fs.readdirSync(path.join(dir, 'entries')).filter((f) => !f.startsWith('kb-'));
        return twice.length || left.length ? `adopted twice or not at all: ${twice.join(', ') || '-'}; left as notes: ${left.join(', ') || '-'}` : undefined;
      },
    } satisfies Verb;
  })(),
  (() => {
    let url = '';
    return {
      // A killed clone must leave nothing that stops the same command from simply being run again.
      name: 'init --clone',
      setup: async () => {
        server ??= await startGitServer();
        server.createBare('clone-src');
        url = server.repoUrl('clone-src');
        const src = path.join(sb.root, 'clone-seed');
        await ok(['--data', src, 'init', '--clone', url]);
        for (let i = 0; i < 40; i++) await ok(['--data', src, 'add', '--type', 'decision', '--title', `Cloned entry ${i}`, '--', `Body ${i}. `.repeat(30)]);
        await ok(['--data', src, 'sync']);
        return src;
      },
      repoFor: async (n) => path.join(sb.root, `clone-${n}`),
      fromSpawnOnly: true,
      afterKill: () => server!.idle(),
      args: (dir) => ['--data', dir, 'init', '--clone', url],
      next: (dir) => ['--data', dir, 'init', '--clone', url],
      check: async (dir) => {
        const n = (JSON.parse((await ok(['--data', dir, '--json', 'list'])).stdout) as { entries: unknown[] }).entries.length;
        const strays = fs.readdirSync(sb.root).filter((f) => f.startsWith(`.${path.basename(dir)}.clone-`));
        return n === 40 && strays.length === 0 ? undefined : `${n} entries after the rerun (40 expected); stray clone folders: ${strays.join(', ') || '-'}`;
      },
    } satisfies Verb;
  })(),
  (() => {
    let id = '';
    return {
      name: 'restore',
      setup: async () => {
        const dir = await baseRepo('restore', 1);
        id = JSON.parse((await ok(['--data', dir, '--json', 'add', '--type', 'decision', '--title', 'Restored over and over', '--', 'Version one. '.repeat(40)])).stdout).id;
        await ok(['--data', dir, 'edit', id, '--body', 'Version two. '.repeat(40)]);
        return dir;
      },
      args: (dir) => ['--data', dir, 'restore', id],
      next: addNext,
    } satisfies Verb;
  })(),
];

describe('kill harness', () => {
  for (const verb of verbs) {
    it(`kills "${verb.name}" ${KILLS} times at seeded random points: fsck clean after each kill, status clean after the next command`, { timeout: 60_000 + 3 * KILLS * 6_000 }, async () => {
      const shared = await verb.setup();
      // Timing probe: unkilled runs, noting when the lock appears; the fastest of three, so a probe slowed by a
      // busy machine does not spread the kill points past the end of the runs that follow.
      let probe: Awaited<ReturnType<typeof kbKilledAfter>> | undefined;
      for (let j = 1; j <= 3; j++) {
        const probeDir = verb.repoFor ? await verb.repoFor(-j) : shared;
        const p = await kbKilledAfter(sb, verb.args(probeDir, -j), 60_000, verb.fromSpawnOnly ? {} : { afterFile: lockPath(probeDir) });
        expect([0, 4], `probe run of ${verb.name}: ${p.stderr}`).toContain(p.code);
        if (!probe || p.ms < probe.ms) probe = p;
      }
      probe = probe!;
      const total = Math.max(50, probe.ms);
      const afterLock = Math.max(10, probe.ms - (probe.lockAtMs ?? 0));
      // Kill points follow the machine's load (KillWindow): a run that ends before its kill narrows its window, and
      // rounds go on until KILLS were run and a third of KILLS really killed (at most 3 x KILLS).
      const seed = SEED ^ (verb.name.length * 7919) ^ verb.name.charCodeAt(0);
      const fromSpawn = new KillWindow(total, KILLS, seed, 10);
      const fromLockWindow = new KillWindow(afterLock, KILLS, seed + 1, 5);
      const failures: string[] = [];
      let killed = 0;
      const seenTemp = new Set<string>();
      for (let n = 0; n < 3 * KILLS && (n < KILLS || killed < Math.ceil(KILLS / 3)) && failures.length < 10; n++) {
        const dir = verb.repoFor ? await verb.repoFor(n) : shared;
        const fromLock = !verb.fromSpawnOnly && n % 2 === 1;
        const w = fromLock ? fromLockWindow : fromSpawn;
        const delay = w.delay(n);
        const windowMs = w.windowMs;
        const k = await kbKilledAfter(sb, verb.args(dir, n), delay, fromLock ? { afterFile: lockPath(dir) } : {});
        if (k.signal === 'SIGKILL') killed++;
        w.observe(k.signal === 'SIGKILL', fromLock ? k.ms - (k.lockAtMs ?? k.ms) : k.ms);
        const what = `${verb.name} round ${n}: killed ${delay} ms after ${fromLock ? 'the lock appeared' : 'spawn'} (~${windowMs} ms window; ${k.signal ?? `exit ${k.code}`})`;
        await verb.afterKill?.();
        const fsck = fs.existsSync(path.join(dir, '.git')) ? await fsckOutput(dir, sb.env) : { code: 0, text: '' };
        const fsckText = fsck.text.split('\n').filter((l) => l.trim() && ![...seenTemp].some((f) => l.includes(f))).join('\n');
        if (fsck.code !== 0 || /bad sha1 file|error|warning/i.test(fsckText)) failures.push(`${what}: git fsck --strict right after the kill: ${(fsckText || fsck.text).trim().split('\n')[0]}`);
        const next = await kb(sb, verb.next(dir, n));
        if (!(verb.nextCodes ?? [0]).includes(next.code)) failures.push(`${what}: the next command exited ${next.code}: ${next.stderr.trim().slice(0, 200)}`);
        else {
          const bad = await verb.check?.(dir, n);
          if (bad) failures.push(`${what}: ${bad}`);
        }
        const status = fs.existsSync(path.join(dir, '.git')) ? (await git(dir, ['status', '--porcelain'], sb.env).catch((e: Error) => e.message)).trim() : 'no repo at all';
        if (status) failures.push(`${what}: git status after the next command: ${status.split('\n').length} line(s), e.g. ${status.split('\n')[0]}`);
        // A temp file is reported once, by the round that left it (a shared repo keeps it for later rounds).
        const left = tempFiles(path.join(dir, '.git')).filter((f) => !seenTemp.has(f));
        for (const f of left) seenTemp.add(f);
        if (left.length) failures.push(`${what}: temp file(s) left under .git after the next command: ${left.join(', ')}`);
        if (verb.repoFor && failures.length === 0) fs.rmSync(dir, { recursive: true, force: true });
      }
      expect(failures).toEqual([]);
      expect(killed, `${verb.name}: most rounds should really be killed`).toBeGreaterThanOrEqual(Math.ceil(KILLS / 3));
    });
  }
});
