/**
 * Hostile battery on content that arrives from someone else (`init --clone`, `sync`): a data repo's own files at
 * its top (.gitignore, hosts.yaml, kb.json) committed as symbolic links to the user's secrets must never be read
 * through, printed, merged or committed; an entry linked to /dev/zero or a FIFO must not hang a verb that scans
 * the working tree (status, sync, resolve).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, expectCleanRepo, git, hook, kb, makeSandbox, run, type Sandbox } from '../helpers/cli.js';
import { copyTree } from './support.js';

let sb: Sandbox;
/** The sandbox holding the data repo every test starts from (one entry, made by `git-kb add`). */
let templateSb: Sandbox;
/** A file outside the data repo that must never reach a commit, stdout or stderr. */
let secretFile: string;
const SECRET = 'Host bastion\n  IdentityFile ~/.ssh/id_ed25519_prod_SENTINEL\n';
const SENTINEL = 'SENTINEL';

// The same starting repo for every test, made once by the CLI and copied (cp -a) into each test's sandbox.
beforeAll(async () => {
  templateSb = makeSandbox('gkb-hsync-template-');
  const r = await kb(templateSb, ['--data', templateSb.data, 'add', '--title', 'Rotate the deploy key', '--type', 'lesson_learned', 'Rotate it every quarter.']);
  expect(r.code, r.stderr).toBe(0);
});
afterAll(() => templateSb?.cleanup());

beforeEach(async () => {
  sb = makeSandbox('gkb-hsync-');
  secretFile = path.join(sb.home, '.ssh', 'config');
  fs.mkdirSync(path.dirname(secretFile), { recursive: true });
  fs.writeFileSync(secretFile, SECRET);
  await copyTree(templateSb.data, sb.data);
});
afterEach(() => sb.cleanup());

/**
 * `git add` of a sparse 300 MB file of zeros, its blob streamed straight into a pack (core.bigFileThreshold): the
 * same blob, tree and commit as a plain add, but the push that sends it reuses the packed data instead of
 * compressing 300 MB once more (the receiving repo stores what it is sent as before).
 */
async function addHuge(dir: string, paths: string[]): Promise<void> {
  await git(dir, ['-c', 'core.bigFileThreshold=1m', 'add', ...paths], sb.env);
}

/**
 * `git push -q REMOTE main` of a commit holding the 300 MB blob, the remote keeping the pack it receives (as it does
 * for any push of 100 objects or more) instead of writing each object loose: the same objects and refs there, but
 * every fetch from it (the clone's, git-kb's) sends the packed blob as stored instead of deflating 300 MB again.
 */
async function pushHuge(remote: string): Promise<void> {
  await git(sb.data, ['push', '-q', '--receive-pack=git -c receive.unpackLimit=1 receive-pack', remote, 'main'], sb.env);
}

/** Replaces `name` at the top of the data repo with a link to `target` and commits that, as a cloned repo holds it. */
async function committedLink(name: string, target: string): Promise<void> {
  fs.rmSync(path.join(sb.data, name), { force: true });
  fs.symlinkSync(target, path.join(sb.data, name));
  await git(sb.data, ['add', '-A', name], sb.env);
  await git(sb.data, ['commit', '-q', '-m', `${name} as a link`], sb.env);
}

/** Every blob reachable from any ref, as text: what a push would send. */
async function everyBlob(): Promise<string> {
  return git(sb.data, ['log', '--all', '-p', '--format=%H'], sb.env);
}

describe('an entry folder that is a symbolic link', () => {
  it('entries -> a folder outside: no name in it is listed or printed; lint, status and doctor name the link', async () => {
    const outside = path.join(sb.home, '.ssh');
    fs.writeFileSync(path.join(outside, 'id_ed25519_SENTINEL'), 'key');
    fs.writeFileSync(path.join(outside, 'kb-zz-SENTINEL.md'), '---\nid: kb-zz\ntitle: t\ntype: decision\n---\nbody\n');
    expect((await kb(sb, ['--data', sb.data, 'host', 'register', 'pop-os', '--marker', '192.168.1.20'])).code).toBe(0);
    await git(sb.data, ['rm', '-r', '-q', 'entries'], sb.env);
    fs.rmSync(path.join(sb.data, 'entries'), { recursive: true, force: true });
    fs.symlinkSync(outside, path.join(sb.data, 'entries'));
    fs.mkdirSync(path.join(sb.data, 'hosts'), { recursive: true });
    fs.symlinkSync(outside, path.join(sb.data, 'hosts', 'pop-os'));
    await git(sb.data, ['add', '-A'], sb.env);
    await git(sb.data, ['commit', '-q', '-m', 'entries as a link'], sb.env);
    const lint = await kb(sb, ['--data', sb.data, 'lint']);
    // Before: lint listed entries/id_ed25519_SENTINEL (stray-file) and entries/kb-zz-SENTINEL.md; list warned of it.
    expect(lint.code).toBe(5);
    expect(`${lint.stdout}${lint.stderr}`).not.toContain(SENTINEL);
    expect(lint.stdout).toMatch(/^entries:1: entries is a symbolic link; .*\[unreadable\]$/m);
    expect(lint.stdout).toMatch(/^hosts\/pop-os:1: hosts\/pop-os is a symbolic link; /m);
    for (const verb of [['list'], ['search', 'body'], ['status'], ['doctor'], ['host', 'list', '--json'], ['host', 'show', 'pop-os', '--json']]) {
      const r = await kb(sb, ['--data', sb.data, ...verb]);
      expect(`${r.stdout}${r.stderr}`, verb.join(' ')).not.toContain(SENTINEL);
    }
    // Before: host list counted the .md files of the folder the link points to (1), with their sizes and times.
    const hosts = JSON.parse((await kb(sb, ['--data', sb.data, 'host', 'list', '--json'])).stdout) as { hosts: { key: string; facts: number }[] };
    expect(hosts.hosts.find((h) => h.key === 'pop-os')?.facts).toBe(0);
    expect((await kb(sb, ['--data', sb.data, 'status'])).stdout).toContain('problems: 2 (run git-kb lint)');
    expect((await kb(sb, ['--data', sb.data, 'doctor'])).stdout).toMatch(/warn +lint +2 problems in the entries/);
  });
});

describe('a file name built to forge output', () => {
  it('a name holding a newline is shown quoted on one line by lint, list and search, never as a line of its own', async () => {
    const name = 'entries/notes\nok: 0 problems.md';
    fs.writeFileSync(path.join(sb.data, name), 'x\n');
    await git(sb.data, ['add', '-A'], sb.env);
    await git(sb.data, ['commit', '-q', '-m', 'a forged name'], sb.env);
    const shown = JSON.stringify(name);
    const lint = await kb(sb, ['--data', sb.data, 'lint']);
    expect(lint.code).toBe(5);
    // Before: the name broke the problem line in two, and its second half read "ok: 0 problems.md:1: ...".
    expect(lint.stdout.split('\n').filter((l) => l.startsWith('ok: 0 problems'))).toEqual([]);
    expect(lint.stdout).toContain(`${shown}:1: no front matter`);
    expect(lint.stdout).toContain(`git-kb adopt ${shown}`);
    for (const verb of [['list'], ['search', 'deploy']]) {
      const r = await kb(sb, ['--data', sb.data, ...verb]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr.trim().split('\n'), verb[0]).toEqual([`git-kb: warning: 1 entry could not be read and was skipped (${shown}); "git-kb lint" says why`]);
    }
    const json = JSON.parse((await kb(sb, ['--data', sb.data, 'lint', '--json'])).stdout) as { problems: { file: string }[] };
    expect(json.problems.map((p) => p.file)).toContain(name);
  });
});

describe('a top-level file of the data repo that is a symbolic link', () => {
  it('.gitignore -> ~/.ssh/config: commit with .obsidian/ present never reads or commits what it points to', async () => {
    await committedLink('.gitignore', secretFile);
    fs.mkdirSync(path.join(sb.data, '.obsidian'));
    fs.writeFileSync(path.join(sb.data, '.obsidian', 'app.json'), '{}');
    const r = await kb(sb, ['--data', sb.data, 'commit']);
    expect(r.code, r.stderr).toBe(0);
    expect(`${r.stdout}${r.stderr}`).not.toContain(SENTINEL);
    expect(await everyBlob()).not.toContain(SENTINEL);
    // The link is left as it was: still a link, still pointing where the user's clone had it.
    expect(fs.lstatSync(path.join(sb.data, '.gitignore')).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(secretFile, 'utf8')).toBe(SECRET);
  });

  it('hosts.yaml -> ~/.ssh/config: host list, status and register refuse it, print none of it and commit nothing', async () => {
    await committedLink('hosts.yaml', secretFile);
    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    for (const args of [['host', 'list'], ['host', 'status'], ['host', 'register', 'pop-os', '--marker', '192.168.1.20'], ['host', 'add', 'pop-os', 'docker socket is in /run']]) {
      const r = await kb(sb, ['--data', sb.data, ...args]);
      expect(`${r.stdout}${r.stderr}`, args.join(' ')).not.toContain(SENTINEL);
      if (args[1] !== 'status') expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(5);
      expect(r.stderr + r.stdout, args.join(' ')).toMatch(/symbolic link/);
    }
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
    expect(await everyBlob()).not.toContain(SENTINEL);
  });

  it('kb.json -> a file outside: lint names the link and quotes none of it; add still works with the defaults', async () => {
    await committedLink('kb.json', secretFile);
    const lint = await kb(sb, ['--data', sb.data, 'lint']);
    expect(lint.code).toBe(5);
    expect(`${lint.stdout}${lint.stderr}`).not.toContain(SENTINEL);
    expect(`${lint.stdout}${lint.stderr}`).not.toContain('bastion');
    expect(lint.stdout + lint.stderr).toMatch(/kb\.json.*symbolic link/);
  });

  it('kb.json linked to /dev/zero or a FIFO: add and lint answer at once instead of reading for ever', async () => {
    const fifo = path.join(sb.root, 'fifo');
    await run('mkfifo', [fifo]);
    for (const target of ['/dev/zero', fifo]) {
      fs.rmSync(path.join(sb.data, 'kb.json'));
      fs.symlinkSync(target, path.join(sb.data, 'kb.json'));
      const add = await kb(sb, ['--data', sb.data, 'add', '--title', `A note beside ${path.basename(target)}`, '--type', 'lesson_learned', 'Body.']);
      expect(add.code, `${target}: ${add.stderr}`).toBe(0);
      const lint = await kb(sb, ['--data', sb.data, 'lint']);
      expect(lint.code, target).toBe(5);
      expect(lint.stdout + lint.stderr).toMatch(/symbolic link/);
    }
  });
});

describe('an entry that is a link to a device or a FIFO', () => {
  for (const kind of ['/dev/zero', 'fifo'] as const) {
    it(`${kind}: status and sync answer (the conflict scan skips it) and nothing is committed from it`, async () => {
      let target: string = kind;
      if (kind === 'fifo') {
        target = path.join(sb.root, 'fifo');
        await run('mkfifo', [target]);
      }
      fs.symlinkSync(target, path.join(sb.data, 'entries', 'kb-0zzz-endless.md'));
      await git(sb.data, ['add', '-A'], sb.env);
      await git(sb.data, ['commit', '-q', '-m', 'an endless entry'], sb.env);
      const status = await kb(sb, ['--data', sb.data, 'status']);
      // Before: status read the link's target whole, for ever (the test's 60 s kill gave code 128).
      expect(status.code, status.stderr).not.toBe(128);
      const sync = await kb(sb, ['--data', sb.data, 'sync']);
      expect(sync.code, sync.stderr).not.toBe(128);
      const doctor = await kb(sb, ['--data', sb.data, 'doctor']);
      expect(doctor.code, doctor.stderr).not.toBe(128);
      // Counted where lint counts it. Before: status said "problems: 0", doctor "no problems in the entries" and
      // list warned of nothing, while lint failed on it.
      expect(status.stdout).toContain('problems: 1 (run git-kb lint)');
      expect(doctor.stdout).toMatch(/warn +lint +1 problem in the entries/);
      const list = await kb(sb, ['--data', sb.data, 'list']);
      expect(list.stderr).toContain('1 entry could not be read and was skipped (entries/kb-0zzz-endless.md)');
      const lint = await kb(sb, ['--data', sb.data, 'lint']);
      expect(lint.stdout).toMatch(/^entries\/kb-0zzz-endless\.md:1: .*\[unreadable\]$/m);
      // The prompt index, built and then updated with the name there, stays fresh: it keeps regular files only, and
      // its freshness check would never match a signature recorded for the name (an update on every prompt).
      for (const session of ['s1', 's2']) {
        const r = await hook(sb, 'prompt', { session_id: session, prompt: 'rotate the deploy key every quarter', cwd: sb.root, hook_event_name: 'UserPromptSubmit' }, { env: { GIT_KB_DATA: sb.data } });
        expect(r.code, r.stderr).toBe(0);
      }
      expect((await kb(sb, ['--data', sb.data, 'doctor'])).stdout).toMatch(/ok +prompt-index +the prompt index is fresh/);
    });
  }
});

describe('entry names that lead nowhere', () => {
  it('a link loop and a folder named like an entry: lint names the loop (before: an internal error, ELOOP), every verb counts it alike, the folder is passed over', async () => {
    fs.symlinkSync('kb-0zzy-b.md', path.join(sb.data, 'entries', 'kb-0zzx-a.md'));
    fs.symlinkSync('kb-0zzx-a.md', path.join(sb.data, 'entries', 'kb-0zzy-b.md'));
    fs.mkdirSync(path.join(sb.data, 'entries', 'kb-0zzz-folder.md'));
    await git(sb.data, ['add', '-A'], sb.env);
    await git(sb.data, ['commit', '-q', '-m', 'a loop'], sb.env);
    const lint = await kb(sb, ['--data', sb.data, 'lint']);
    expect(lint.code, lint.stderr).toBe(5);
    expect(lint.stdout).toMatch(/^entries\/kb-0zzx-a\.md:1: a symbolic link that leads back to itself \(to kb-0zzy-b\.md\); .*\[unreadable\]$/m);
    expect(lint.stdout).toMatch(/^2 problems in \d+ files$/m);
    expect(lint.stdout).not.toContain('kb-0zzz-folder');
    expect((await kb(sb, ['--data', sb.data, 'status'])).stdout).toContain('problems: 2 (run git-kb lint)');
    const list = await kb(sb, ['--data', sb.data, 'list']);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).toContain('2 entries could not be read and were skipped (entries/kb-0zzx-a.md, entries/kb-0zzy-b.md)');
  });
});

/** Commits `rel` with `text` as a collaborator would, with the real git CLI. */
async function committedFile(rel: string, text: string): Promise<void> {
  fs.mkdirSync(path.dirname(path.join(sb.data, rel)), { recursive: true });
  fs.writeFileSync(path.join(sb.data, rel), text);
  await git(sb.data, ['add', '-A', rel], sb.env);
  await git(sb.data, ['commit', '-q', '-m', `add ${rel}`], sb.env);
}

describe('front matter that refers to itself', () => {
  for (const field of ['links', 'host', 'pattern_key', 'recurrences']) {
    it(`a cyclic YAML alias in ${field}: is one broken entry, not every read verb failing`, async () => {
      await committedFile('entries/kb-0zzz-cyclic.md', `---\nid: kb-0zzz\ntitle: Cyclic\ntype: lesson_learned\ncreated: 2026-01-01T00:00:00Z\n${field}: &a [*a]\n---\nbody\n`);
      const list = await kb(sb, ['--data', sb.data, 'list']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toContain('Rotate the deploy key');
      expect(list.stderr).toContain('entries/kb-0zzz-cyclic.md');
      const search = await kb(sb, ['--data', sb.data, 'search', 'deploy key']);
      expect(search.code, search.stderr).toBe(0);
      const get = await kb(sb, ['--data', sb.data, 'get', 'kb-0zzz']);
      expect(get.code, get.stderr).toBe(0);
      expect(get.stderr).toMatch(/kb-0zzz-cyclic\.md:6: .*alias \*a is inside the value it names/);
      const lint = await kb(sb, ['--data', sb.data, 'lint']);
      expect(lint.code).toBe(5);
      expect(lint.stdout + lint.stderr).toMatch(/entries\/kb-0zzz-cyclic\.md:6: /);
      expect(lint.stdout + lint.stderr).not.toMatch(/internal error|circular/);
    });
  }
});

describe('text built to make a pattern run for ever', () => {
  it('an entry of 1 MB that opens a markdown link 250,000 times and never closes one: lint and list end', async () => {
    await committedFile('entries/kb-0zzy-open-links.md', `---\nid: kb-0zzy\ntitle: Open links\ntype: lesson_learned\ncreated: 2026-01-01T00:00:00Z\n---\n${'[x]('.repeat(250_000)}\n`);
    for (const args of [['lint'], ['list'], ['search', 'open links']]) {
      // Before: the link pattern scanned from each "[" to the line's end (quadratic, many minutes here).
      const r = await run(process.execPath, [CLI, '--data', sb.data, ...args], { env: sb.env, timeoutMs: 40_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).not.toBe(128);
    }
  });

  for (const marker of ['/[a-z]+[0-9a-z]+[a-z]+!/', '/\\d{0,100}\\d{0,100}\\d{0,100}\\d{0,100}x/']) {
    it(`hosts.yaml: a marker of long runs in a row (${marker}) is refused by name, as marker and as forbidden pattern`, async () => {
      await committedFile('hosts.yaml', `hosts:\n  pop:\n    markers:\n      - ${marker}\n`);
      const status = await kb(sb, ['--data', sb.data, 'host', 'status']);
      expect(status.stdout + status.stderr).toMatch(/hosts\.yaml:4: .*runs or optional parts in a row that can match the same characters/);
      const detect = await run(process.execPath, [CLI, '--data', sb.data, 'host', 'detect'], { env: sb.env, input: `${'7'.repeat(400)} ${'a'.repeat(400)}`, timeoutMs: 40_000 });
      expect(detect.code).toBe(5);
      await committedFile('hosts.yaml', `forbidden_patterns:\n  - ${marker}\n`);
      const add = await run(process.execPath, [CLI, '--data', sb.data, 'add', '--type', 'lesson_learned', '--title', 'Digits', `${'7'.repeat(400)} ${'a'.repeat(400)}`], { env: sb.env, timeoutMs: 40_000 });
      expect(add.code, add.stderr).toBe(5);
      expect(add.stderr).toMatch(/runs or optional parts in a row that can match the same characters/);
    });
  }

  it('hosts.yaml: a marker of one run, over a text of one 1 MB word, ends', async () => {
    await committedFile('hosts.yaml', 'hosts:\n  pop:\n    markers:\n      - /[a-z0-9]+\\.lan!/i\n');
    // Before: each start scanned the whole word (quadratic: hours for 1 MB); now windows of 256 characters.
    const long = await run(process.execPath, [CLI, '--data', sb.data, 'host', 'detect'], { env: sb.env, input: `${'a'.repeat(1_000_000)} and mybox.lan!`, timeoutMs: 40_000 });
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout).toContain('pop');
  });
});

it('an entry with 130,000 wikilinks to entries that do not exist: lint lists them all instead of overflowing the stack', async () => {
  const links = Array.from({ length: 130_000 }, (_, i) => `[[kb-${String(i % 9999).padStart(4, '0')}]]`).join(' ');
  await committedFile('entries/kb-0zzx-many-links.md', `---\nid: kb-0zzx\ntitle: Many links\ntype: lesson_learned\ncreated: 2026-01-01T00:00:00Z\n---\n${links}\n`);
  const lint = await kb(sb, ['--data', sb.data, 'lint']);
  expect(lint.code).toBe(5);
  expect(lint.stderr).not.toMatch(/internal error|call stack/);
  expect(lint.stdout + lint.stderr).toMatch(/130000 problems/);
});

it('an entry that is a link to a file that does not exist: get and lint say so at its line, no stack trace', async () => {
  fs.symlinkSync('/nonexistent/kb-file.md', path.join(sb.data, 'entries', 'kb-0zzw-dangling.md'));
  const get = await kb(sb, ['--data', sb.data, 'get', 'kb-0zzw']);
  expect(get.code).toBe(5);
  expect(get.stderr).toMatch(/entries\/kb-0zzw-dangling\.md:1: a symbolic link to \/nonexistent\/kb-file\.md, which does not exist/);
  expect(get.stderr).not.toMatch(/internal error|ENOENT|\n\s+at /);
  const lint = await kb(sb, ['--data', sb.data, 'lint']);
  expect(lint.stdout + lint.stderr).toMatch(/kb-0zzw-dangling\.md:1: a symbolic link/);
});

/** A bare remote on disk that the sandbox's data repo is pushed to, and a second data repo cloned from it. */
async function clonedThroughRemote(): Promise<{ remote: string; clone: string }> {
  const remote = path.join(sb.root, 'remote.git');
  await git(sb.root, ['init', '-q', '--bare', remote], sb.env);
  await git(sb.data, ['push', '-q', remote, 'main'], sb.env);
  const clone = path.join(sb.root, 'clone');
  expect((await kb(sb, ['--data', clone, 'init', '--clone', remote])).code).toBe(0);
  return { remote, clone };
}

it('a remote commit whose tree holds .git/config: sync refuses it each time, says how to get out, changes nothing', async () => {
  const { remote, clone } = await clonedThroughRemote();
  // The remote's author builds a tree with a .git folder in it (git's own commands never would) and pushes it.
  const blob = (await run('git', ['hash-object', '-w', '--stdin'], { cwd: sb.data, env: sb.env, input: '[core]\n\thooksPath = /tmp\n' })).stdout.trim();
  const sub = (await run('git', ['mktree'], { cwd: sb.data, env: sb.env, input: `100644 blob ${blob}\tconfig\n` })).stdout.trim();
  const top = (await run('git', ['mktree'], { cwd: sb.data, env: sb.env, input: `${await git(sb.data, ['ls-tree', 'HEAD'], sb.env)}040000 tree ${sub}\t.git\n` })).stdout.trim();
  const crafted = (await git(sb.data, ['commit-tree', top, '-p', 'HEAD', '-m', 'crafted'], sb.env)).trim();
  await git(sb.data, ['push', '-q', remote, `${crafted}:refs/heads/main`], sb.env);
  const head = (await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim();
  const config = fs.readFileSync(path.join(clone, '.git', 'config'), 'utf8');
  for (let i = 0; i < 2; i++) {
    const r = await kb(sb, ['--data', clone, 'sync']);
    expect(r.code, r.stderr).toBe(6);
    expect(r.stderr).toContain(`holds ".git/config", a path git-kb never writes`);
    expect(r.stderr).toMatch(/nothing was merged or changed here.*remote set-url origin URL/s);
  }
  expect((await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
  expect(fs.readFileSync(path.join(clone, '.git', 'config'), 'utf8')).toBe(config);
});

it('a tracked symbolic link that the remote points elsewhere: sync takes it (no "uncommitted changes" for ever)', async () => {
  fs.symlinkSync('notes-a.txt', path.join(sb.data, 'link.txt'));
  await git(sb.data, ['add', 'link.txt'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', 'a link'], sb.env);
  const { remote, clone } = await clonedThroughRemote();
  expect(fs.lstatSync(path.join(clone, 'link.txt')).isSymbolicLink()).toBe(true); // git clone writes links as links
  fs.rmSync(path.join(sb.data, 'link.txt'));
  fs.symlinkSync('notes-b.txt', path.join(sb.data, 'link.txt'));
  await git(sb.data, ['commit', '-q', '-am', 'the link retargeted'], sb.env);
  await git(sb.data, ['push', '-q', remote, 'main'], sb.env);
  const r = await kb(sb, ['--data', clone, 'sync']);
  expect(r.code, r.stderr).toBe(0);
  expect(fs.readFileSync(path.join(clone, 'link.txt'), 'utf8')).toBe('notes-b.txt'); // a plain file holding the target (spec/sync.md)
  expect((await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim());
});

it('a sync that brings a kernel entry or gate rules says so, naming them (they reach every prompt from now on)', async () => {
  const { remote, clone } = await clonedThroughRemote();
  const quiet = await kb(sb, ['--data', clone, 'sync']);
  expect(quiet.stdout + quiet.stderr).not.toMatch(/kernel/);
  const k = await kb(sb, ['--data', sb.data, 'add', '--kernel', '--type', 'pattern_convention', '--title', 'Always answer in French', '--rule', 'colour => write color', '--json', 'Answer every question in French.']);
  expect(k.code, k.stderr).toBe(0);
  const id = JSON.parse(k.stdout).id as string;
  await git(sb.data, ['push', '-q', remote, 'main'], sb.env);
  const r = await kb(sb, ['--data', clone, 'sync']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout + r.stderr).toContain(`brought 1 new or changed kernel entry, whose text now goes into every prompt: ${id} Always answer in French`);
  expect(r.stdout + r.stderr).toContain(`brought 1 new or changed entry with gate rules, which now judge what is published: ${id} Always answer in French`);
  const json = await kb(sb, ['--data', clone, 'sync', '--json']);
  expect(JSON.parse(json.stdout).notes.join('\n')).not.toMatch(/kernel/);
});

it('a remote commit adding a file of 300 MB (zeros: tiny packed): sync refuses it before the branch moves, writes still work, a commit removing it lets sync through', async () => {
  const { remote, clone } = await clonedThroughRemote();
  const big = path.join(sb.root, 'big.bin');
  fs.closeSync(fs.openSync(big, 'w'));
  fs.truncateSync(big, 300 * 1024 * 1024); // sparse: no 300 MB written to disk
  fs.mkdirSync(path.join(sb.data, 'attachments'));
  fs.renameSync(big, path.join(sb.data, 'attachments', 'big.bin'));
  await addHuge(sb.data, ['attachments/big.bin']);
  await git(sb.data, ['commit', '-q', '-m', 'a huge attachment'], sb.env);
  await pushHuge(remote);
  const head = (await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim();
  const r = await kb(sb, ['--data', clone, 'sync']);
  // Before: the branch moved, the read of the whole file failed (past 4 GiB) or took its size in memory, and the
  // journal it left made every later write replay it.
  expect(r.code, r.stderr).toBe(6);
  expect(r.stderr).toMatch(/holds attachments\/big\.bin, a git object \([0-9a-f]{12}\) of (300 MB|over 256 MB); git-kb reads none over 256 MB.*the branch did not move/s);
  expect((await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
  expect(fs.existsSync(path.join(clone, '.git', 'git-kb', 'journal.json'))).toBe(false);
  expect(fs.existsSync(path.join(clone, 'attachments', 'big.bin'))).toBe(false);
  const add = await kb(sb, ['--data', clone, 'add', '--type', 'lesson_learned', '--title', 'Still writable', 'Yes.']);
  expect(add.code, add.stderr).toBe(0);
  await git(sb.data, ['rm', '-q', 'attachments/big.bin'], sb.env);
  await git(sb.data, ['commit', '-q', '-m', 'remove it'], sb.env);
  await git(sb.data, ['push', '-q', remote, 'main'], sb.env);
  const again = await kb(sb, ['--data', clone, 'sync']);
  expect(again.code, again.stderr).toBe(0);
  await expectCleanRepo(clone);
});

/** Commits attachments/a.txt and a sparse 300 MB attachments/big.bin in the sandbox's data repo and pushes them to `remote`. */
async function pushHugeAttachment(remote: string): Promise<void> {
  fs.mkdirSync(path.join(sb.data, 'attachments'));
  fs.writeFileSync(path.join(sb.data, 'attachments', 'a.txt'), 'a small attachment\n');
  fs.closeSync(fs.openSync(path.join(sb.data, 'attachments', 'big.bin'), 'w'));
  fs.truncateSync(path.join(sb.data, 'attachments', 'big.bin'), 300 * 1024 * 1024); // sparse
  await addHuge(sb.data, ['attachments']);
  await git(sb.data, ['commit', '-q', '-m', 'a huge attachment'], sb.env);
  await pushHuge(remote);
}

/** `git fsck --strict` reports nothing (git status may show files, as expectCleanRepo would not allow). */
async function expectFsckClean(dir: string): Promise<void> {
  const out = await run('git', ['fsck', '--strict', '--no-progress', '--no-dangling'], { cwd: dir, env: sb.env });
  expect(out.code, out.stderr).toBe(0);
  expect(`${out.stdout}${out.stderr}`.trim()).toBe('');
}

/**
 * What a git-kb before the size check left in `clone`: fetched, journalled, the branch moved to the remote's tip
 * (a commit holding attachments/big.bin of 300 MB), a.txt written, then failed on big.bin.
 */
async function leaveLegacyJournal(clone: string): Promise<{ from: string; to: string }> {
  await git(clone, ['fetch', '-q', 'origin'], sb.env);
  const from = (await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim();
  const to = (await git(clone, ['rev-parse', 'origin/main'], sb.env)).trim();
  fs.mkdirSync(path.join(clone, '.git', 'git-kb'), { recursive: true });
  fs.writeFileSync(path.join(clone, '.git', 'git-kb', 'journal.json'), JSON.stringify({ kind: 'checkout', from, to, paths: ['attachments/a.txt', 'attachments/big.bin'] }));
  await git(clone, ['update-ref', 'refs/heads/main', to], sb.env);
  fs.mkdirSync(path.join(clone, 'attachments'));
  fs.writeFileSync(path.join(clone, 'attachments', 'a.txt'), 'a small attachment\n');
  return { from, to };
}

it('a journal an earlier git-kb left after moving the branch to a commit with a 300 MB file: the next write puts files and branch back, names the file, and writes go on', async () => {
  const { remote, clone } = await clonedThroughRemote();
  await pushHugeAttachment(remote);
  // What a git-kb before the size check did: fetch, journal, move the branch, write the files in order (a.txt),
  // then fail on big.bin, leaving the journal every later write replayed (and failed on).
  const { from, to } = await leaveLegacyJournal(clone);

  const args = ['--data', clone, 'add', '--type', 'lesson_learned', '--title', 'Still writable', 'Yes.'];
  const r = await kb(sb, args);
  // Before: the replay read big.bin, failed, and left the journal: every write failed the same way.
  expect(r.code, r.stderr).toBe(6);
  expect(r.stderr).toMatch(new RegExp(`commit ${to.slice(0, 12)} holds attachments/big\\.bin, a git object .* of (300 MB|over 256 MB); .*the branch is back at ${from.slice(0, 12)}`, 's'));
  expect((await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(from);
  expect(fs.existsSync(path.join(clone, '.git', 'git-kb', 'journal.json'))).toBe(false);
  expect(fs.existsSync(path.join(clone, 'attachments'))).toBe(false);
  await expectCleanRepo(clone);
  const again = await kb(sb, args);
  expect(again.code, again.stderr).toBe(0);
  const sync = await kb(sb, ['--data', clone, 'sync']);
  expect(sync.code, sync.stderr).toBe(6);
  expect(sync.stderr).toMatch(/holds attachments\/big\.bin, .*the branch did not move/s);
  await expectCleanRepo(clone);
});

it('a journal an earlier git-kb left after the first sync of a repo (no "from") to a commit with a 300 MB file: the branch stays, its other files are written, the big file is left out and named once, writes and sync go on', async () => {
  const { remote } = await clonedThroughRemote();
  await pushHugeAttachment(remote);
  // A repo with no commit yet (kb.json written by hand, as the remote has it) that an earlier git-kb synced: it
  // journalled every file of the remote's commit with no "from", moved the branch, wrote the files in order
  // (attachments/a.txt) and failed on big.bin, before the index was written.
  const first = path.join(sb.root, 'first');
  await git(sb.root, ['init', '-q', '-b', 'main', first], sb.env);
  await git(first, ['remote', 'add', 'origin', remote], sb.env);
  await git(first, ['fetch', '-q', 'origin'], sb.env);
  const to = (await git(first, ['rev-parse', 'origin/main'], sb.env)).trim();
  const paths = (await git(first, ['ls-tree', '-r', '--name-only', to], sb.env)).split('\n').filter(Boolean);
  fs.writeFileSync(path.join(first, 'kb.json'), await git(first, ['show', `${to}:kb.json`], sb.env));
  fs.mkdirSync(path.join(first, 'attachments'));
  fs.writeFileSync(path.join(first, 'attachments', 'a.txt'), 'a small attachment\n');
  fs.mkdirSync(path.join(first, '.git', 'git-kb'), { recursive: true });
  fs.writeFileSync(path.join(first, '.git', 'git-kb', 'journal.json'), JSON.stringify({ kind: 'checkout', from: null, to, paths }));
  await git(first, ['update-ref', 'refs/heads/main', to], sb.env);

  const args = ['--data', first, 'add', '--type', 'lesson_learned', '--title', 'Still writable', 'Yes.'];
  const r = await kb(sb, args);
  // Before: the recovery undid only a journal with a "from": this one threw the raw size error and stayed, so
  // every write failed the same way.
  expect(r.code, r.stderr).toBe(6);
  expect(r.stderr).toMatch(new RegExp(`commit ${to.slice(0, 12)} holds attachments/big\\.bin, a git object .* of (300 MB|over 256 MB); .*first sync .*the branch stays there.*attachments/big\\.bin is left as the work tree has it, not checked out`, 's'));
  expect((await git(first, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(to);
  expect(fs.existsSync(path.join(first, '.git', 'git-kb', 'journal.json'))).toBe(false);
  for (const p of paths.filter((x) => x !== 'attachments/big.bin')) expect(fs.readFileSync(path.join(first, p), 'utf8'), p).toBe(await git(first, ['show', `${to}:${p}`], sb.env));
  expect(await git(first, ['status', '--porcelain'], sb.env)).toBe(' D attachments/big.bin\n');
  await expectFsckClean(first);
  const again = await kb(sb, args);
  expect(again.code, again.stderr).toBe(0);
  const sync = await kb(sb, ['--data', first, 'sync']);
  expect(sync.code, sync.stderr).toBe(0);
  expect((await git(remote, ['rev-parse', 'main'], sb.env)).trim()).toBe((await git(first, ['rev-parse', 'HEAD'], sb.env)).trim());
  await expectFsckClean(first);
});

it('a journal an earlier git-kb left for a commit with a 300 MB file, the branch moved on since by hand: the branch and its commits stay, hand edits stay, the big file is left out and named once, writes go on', async () => {
  const { remote, clone } = await clonedThroughRemote();
  await pushHugeAttachment(remote);
  // The earlier git-kb's half-done checkout, as in the test above; then the user, with plain git, made the index
  // match the branch and committed a file of their own on top, and edited a.txt without committing it.
  const { from, to } = await leaveLegacyJournal(clone);
  await git(clone, ['reset', '-q'], sb.env);
  fs.writeFileSync(path.join(clone, 'mine.txt'), 'my own file\n');
  await git(clone, ['add', 'mine.txt'], sb.env);
  await git(clone, ['commit', '-q', '-m', 'my own commit'], sb.env);
  const head = (await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim();
  fs.writeFileSync(path.join(clone, 'attachments', 'a.txt'), 'a small attachment, edited by hand\n');

  const args = ['--data', clone, 'add', '--type', 'lesson_learned', '--title', 'Still writable', 'Yes.'];
  const r = await kb(sb, args);
  // Before: HEAD was no longer the journal's "to", so the recovery threw the raw size error and kept the journal.
  expect(r.code, r.stderr).toBe(6);
  expect(r.stderr).toMatch(new RegExp(`commit ${head.slice(0, 12)} holds attachments/big\\.bin, a git object .* of (300 MB|over 256 MB); .*the branch has moved on since, to ${head.slice(0, 12)}, so it stays there.*not checked out`, 's'));
  expect((await git(clone, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
  expect(fs.existsSync(path.join(clone, '.git', 'git-kb', 'journal.json'))).toBe(false);
  expect(fs.readFileSync(path.join(clone, 'attachments', 'a.txt'), 'utf8')).toBe('a small attachment, edited by hand\n');
  expect(fs.readFileSync(path.join(clone, 'mine.txt'), 'utf8')).toBe('my own file\n');
  expect(await git(clone, ['status', '--porcelain'], sb.env)).toBe(' M attachments/a.txt\n D attachments/big.bin\n');
  await expectFsckClean(clone);
  const again = await kb(sb, args);
  expect(again.code, again.stderr).toBe(0);
  expect((await git(clone, ['rev-parse', 'HEAD^'], sb.env)).trim()).toBe(head);
  await expectFsckClean(clone);
});
