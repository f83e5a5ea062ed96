/**
 * `git-kb init`: create a new data repo, adopt an existing clone as it is, and clone one over smart HTTP from a
 * real git server; the choice is recorded in the config so later commands find it without --data.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanRepo, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import { commitAll, entryText, headOf, jsonError, sgit, snapshot, expectUnchanged, subjects, writeFile, kbj } from './support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

describe('init', () => {
  it('creates a new data repo, commits the manifest and, with --default, records it in the config', async () => {
    sb = makeSandbox();
    const r = await kbj(sb, ['init', '--default']);
    const configFile = path.join(sb.home, '.config', 'git-kb', 'config.json');
    expect(r).toEqual({ data_dir: sb.data, action: 'created', config_file: configFile, entries: 0 });
    expect(JSON.parse(fs.readFileSync(configFile, 'utf8'))).toEqual({ data_dir: sb.data });
    expect(JSON.parse(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8'))).toMatchObject({ schema_version: 2 });
    expect(await subjects(sb)).toEqual(['git-kb: create data repo']);
    // The manifest, and the .gitignore that keeps an Obsidian vault's per-machine folders out (one commit).
    expect((await sgit(sb, ['ls-tree', '-r', '--name-only', 'HEAD'])).trim()).toBe('.gitignore\nkb.json');
    expect(fs.readFileSync(path.join(sb.data, '.gitignore'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['.obsidian/', '.trash/']));
    expect((await sgit(sb, ['symbolic-ref', 'HEAD'])).trim()).toBe('refs/heads/main');
    // As git's own init sets it on this (case-sensitive) file system: Foo.md and foo.md are two files.
    expect((await sgit(sb, ['config', 'core.ignorecase'])).trim()).toBe('false');
    fs.mkdirSync(path.join(sb.data, '.obsidian'));
    fs.writeFileSync(path.join(sb.data, '.obsidian', 'workspace.json'), '{}');
    await expectCleanRepo(sb.data);
    fs.rmSync(path.join(sb.data, '.obsidian'), { recursive: true });
    // Derived state stays out of the tracked tree.
    expect(fs.readdirSync(sb.data).sort()).toEqual(['.git', '.gitignore', 'kb.json']);

    // Later commands find the repo through the config, with no --data.
    const added = JSON.parse((await kb(sb, ['add', '--type', 'decision', '--title', 'Found by config', '--json', '--', 'A body.'])).stdout);
    expect(fs.existsSync(path.join(sb.data, added.path))).toBe(true);
    const st = JSON.parse((await kb(sb, ['status', '--json'])).stdout);
    expect(st).toMatchObject({ data_dir: sb.data, source: 'config', entries: 1 });

    // A second init of the same directory changes nothing (the config already names it).
    const before = await snapshot(sb);
    const again = await kbj(sb, ['init', '--default']);
    expect(again).toMatchObject({ data_dir: sb.data, action: 'adopted', entries: 1 });
    await expectUnchanged(sb, before);
  });

  it('a folder inside a data repo is named as such: no data repo is made there, and the message names the outer one', async () => {
    sb = makeSandbox();
    await kbj(sb, ['init']);
    const before = await snapshot(sb);
    for (const inner of [path.join(sb.data, 'entries'), path.join(sb.data, 'entries', 'new-folder')]) {
      for (const args of [['--data', inner, 'list'], ['--data', inner, 'init'], ['--data', inner, 'add', '--type', 'decision', '--title', 'x', '--', 'y']]) {
        const r = await kb(sb, ['--json', ...args]);
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(3);
        expect(jsonError(r)).toMatchObject({ code: 'NO_DATA_REPO' });
        expect(jsonError(r).message).toBe(`${inner} is inside the data repo ${sb.data}, not a data repo of its own; pass --data ${sb.data} (or nothing, if it is the default)`);
      }
    }
    // Nothing was made inside it.
    await expectUnchanged(sb, before);
    expect(fs.existsSync(path.join(sb.data, 'entries', 'new-folder'))).toBe(false);
    await expectCleanRepo(sb.data);
  });

  it('--data DIR init never changes the default data repo unless --default is given', async () => {
    sb = makeSandbox();
    const configFile = path.join(sb.home, '.config', 'git-kb', 'config.json');
    // No config yet: init of another directory writes none, and commands without --data still go to the default.
    const other = path.join(sb.root, 'other-kb');
    const r = await kbj(sb, ['init'], { data: other });
    expect(r).toMatchObject({ data_dir: other, action: 'created', entries: 0 });
    expect(r.config_file).toBeUndefined();
    expect(fs.existsSync(configFile)).toBe(false);
    const st = await kb(sb, ['status', '--json']);
    expect(st.code).toBe(3); // the default repo, which does not exist
    expect(JSON.parse(st.stderr).error).toMatchObject({ code: 'NO_DATA_REPO' });
    expect(st.stderr).toContain(path.join(sb.home, '.git-kb', 'data'));
    // A config naming a repo: a second init elsewhere keeps it byte for byte.
    await kbj(sb, ['init', '--default']);
    const text = fs.readFileSync(configFile, 'utf8');
    await kbj(sb, ['init'], { data: path.join(sb.root, 'third-kb') });
    expect(fs.readFileSync(configFile, 'utf8')).toBe(text);
    expect(JSON.parse((await kb(sb, ['status', '--json'])).stdout)).toMatchObject({ source: 'config', data_dir: sb.data });
    // Asked for: --default moves it.
    expect((await kbj(sb, ['init', '--default'], { data: other })).config_file).toBe(configFile);
    expect(JSON.parse(fs.readFileSync(configFile, 'utf8'))).toEqual({ data_dir: other });
  });

  it('adopts an existing clone as it is: nothing converted, nothing committed', async () => {
    sb = makeSandbox();
    fs.mkdirSync(sb.data);
    await sgit(sb, ['init', '-q', '-b', 'main']);
    writeFile(sb, 'kb.json', '{"next_id": 2}\n');
    writeFile(sb, 'entries/kb-0001-kept-as-is.md', entryText({ id: 'kb-0001', title: 'Kept as is', type: 'decision', tags: ['adopt'] }, 'A hand-made entry.'));
    const head = await commitAll(sb, 'my own history');
    const before = await snapshot(sb);
    const r = await kbj(sb, ['init']);
    expect(r).toMatchObject({ data_dir: sb.data, action: 'adopted', entries: 1 });
    await expectUnchanged(sb, before);
    expect(await headOf(sb)).toBe(head);
    expect(fs.readFileSync(path.join(sb.data, 'kb.json'), 'utf8')).toBe('{"next_id": 2}\n');
    const found = await kbj(sb, ['search', 'kept']);
    expect(found.results.map((h: { id: string }) => h.id)).toEqual(['kb-0001']);
    await expectCleanRepo(sb.data);
  });

  it('does not adopt a code project unasked (it would commit kb.json into its history); --force does', async () => {
    sb = makeSandbox();
    fs.mkdirSync(sb.data);
    await sgit(sb, ['init', '-q', '-b', 'main']);
    writeFile(sb, 'package.json', '{"name": "my-app"}\n');
    writeFile(sb, 'src/index.js', 'export {};\n');
    const head = await commitAll(sb, 'my app');
    const before = await snapshot(sb);
    const r = await kb(sb, ['--data', sb.data, 'init', '--json']);
    expect(r.code).toBe(4);
    expect(jsonError(r)).toMatchObject({ code: 'CONFLICT', data: { files: ['package.json'] } });
    expect(jsonError(r).message).toMatch(/is a code project \(it has package.json\), not a notes repo: .*--data DIR.*--force/);
    await expectUnchanged(sb, before);
    expect(await headOf(sb)).toBe(head);
    const forced = await kbj(sb, ['init', '--force']);
    expect(forced).toMatchObject({ data_dir: sb.data, action: 'adopted' });
    expect(fs.existsSync(path.join(sb.data, 'kb.json'))).toBe(true);
    await expectCleanRepo(sb.data);
  });

  it('records nothing when the data repo comes from GIT_KB_DATA', async () => {
    sb = makeSandbox();
    const r = await kb(sb, ['init', '--json'], { env: { GIT_KB_DATA: sb.data } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ data_dir: sb.data, action: 'created' });
    expect(JSON.parse(r.stdout).config_file).toBeUndefined();
    expect(fs.existsSync(path.join(sb.home, '.config', 'git-kb', 'config.json'))).toBe(false);
  });

  it('--remote over another origin says which one it replaces (token hidden), and the same URL again says nothing', async () => {
    sb = makeSandbox();
    await kb(sb, ['--data', sb.data, 'init']);
    const old = 'https://me:old-secret-token@git.example.com/me/kb.git';
    expect((await kb(sb, ['--data', sb.data, 'init', '--remote', old])).code).toBe(0);
    const r = await kb(sb, ['--data', sb.data, 'init', '--remote', 'https://git.example.com/other/kb.git']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('note: origin was https://git.example.com/me/kb.git; it is now https://git.example.com/other/kb.git: the next "git-kb sync" merges with what is there and pushes every entry to it');
    expect(r.stdout + r.stderr).not.toContain('old-secret-token');
    expect((await sgit(sb, ['remote', 'get-url', 'origin'])).trim()).toBe('https://git.example.com/other/kb.git');
    const again = await kb(sb, ['--data', sb.data, 'init', '--remote', 'https://git.example.com/other/kb.git']);
    expect(again.stdout).not.toContain('origin was');
  });

  it('a clone of a path that does not exist says so and how to fix it, and leaves nothing (no "local commits" to keep)', async () => {
    sb = makeSandbox();
    const missing = path.join(sb.root, 'no-such-remote.git');
    const r = await kb(sb, ['--data', sb.data, 'init', '--clone', missing, '--json']);
    expect(r.code).toBe(6);
    const { message } = jsonError(r);
    expect(message).toContain(`the remote path ${missing} does not exist`);
    expect(message).toContain('check the URL given to --clone');
    expect(message).toContain('nothing was cloned');
    expect(message).not.toMatch(/local commits are kept|init --remote/);
    expect(fs.existsSync(sb.data)).toBe(false);
  });

  it('refuses to create a data repo in a non-empty directory that is not a repo', async () => {
    sb = makeSandbox();
    fs.mkdirSync(sb.data);
    fs.writeFileSync(path.join(sb.data, 'notes.txt'), 'mine');
    const r = await kb(sb, ['--data', sb.data, 'init', '--json']);
    expect(r.code).toBe(3);
    expect(jsonError(r)).toMatchObject({ code: 'NO_DATA_REPO' });
    expect(jsonError(r).message).toContain(sb.data);
    expect(fs.readdirSync(sb.data)).toEqual(['notes.txt']);
  });
});

describe('init --clone over smart HTTP', () => {
  let server: GitServer;
  beforeAll(async () => {
    server = await startGitServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('clones a remote data repo, sets origin, and every read and write works on the clone', async () => {
    sb = makeSandbox();
    // A data repo made by git-kb, pushed with the real git to a bare repo behind the HTTP server.
    const origin = path.join(sb.root, 'origin');
    const a = await kbj(sb, ['add', '--type', 'decision', '--title', 'Cloned decision', '--tags', 'remote', '--', 'Decided on the first machine.'], { data: origin });
    server.createBare('kb');
    const url = server.repoUrl('kb');
    await sgit(sb, ['push', '-q', url, 'main'], origin);

    const r = await kbj(sb, ['init', '--clone', url]);
    expect(r).toMatchObject({ data_dir: sb.data, action: 'cloned', remote: url, entries: 1 });
    expect((await sgit(sb, ['remote', 'get-url', 'origin'])).trim()).toBe(url);
    expect((await sgit(sb, ['config', 'core.ignorecase'])).trim()).toBe('false');
    expect(await headOf(sb)).toBe(await headOf(sb, origin));
    await expectCleanRepo(sb.data);

    const got = await kbj(sb, ['get', a.id]);
    expect(got.entries[0].text).toBe(fs.readFileSync(path.join(origin, a.path), 'utf8'));
    const found = await kbj(sb, ['search', 'cloned decision']);
    expect(found.results[0].id).toBe(a.id);
    const st = await kbj(sb, ['status']);
    expect(st.remote).toBe(url);

    const b = await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'Written on the clone', '--', 'A body.']);
    expect((await sgit(sb, ['log', '-1', '--format=%H'])).trim()).toBe(b.commit);
    await expectCleanRepo(sb.data);
  });

  it('refuses to clone into a directory that already holds a data repo (exit 4), touching nothing', async () => {
    sb = makeSandbox();
    await kbj(sb, ['init']);
    const before = await snapshot(sb);
    server.createBare('other');
    const r = await kb(sb, ['--data', sb.data, 'init', '--clone', server.repoUrl('other'), '--json']);
    expect(r.code).toBe(4);
    expect(jsonError(r)).toMatchObject({ code: 'CONFLICT' });
    await expectUnchanged(sb, before);
  });

  it('does not clone a code project as a data repo unasked: nothing is left behind; --force clones and adopts it', async () => {
    sb = makeSandbox();
    const app = path.join(sb.root, 'my-app');
    fs.mkdirSync(path.join(app, 'src'), { recursive: true });
    fs.writeFileSync(path.join(app, 'go.mod'), 'module example.com/app\n');
    fs.writeFileSync(path.join(app, 'src', 'main.go'), 'package main\n');
    await sgit(sb, ['init', '-q', '-b', 'main'], app);
    await sgit(sb, ['add', '-A'], app);
    await sgit(sb, ['commit', '-q', '-m', 'my app'], app);
    server.createBare('app');
    const url = server.repoUrl('app');
    await sgit(sb, ['push', '-q', url, 'main'], app);

    const r = await kb(sb, ['--data', sb.data, 'init', '--clone', url, '--json']);
    expect(r.code).toBe(4);
    expect(jsonError(r)).toMatchObject({ code: 'CONFLICT', data: { files: ['go.mod'] } });
    expect(jsonError(r).message).toMatch(/is a code project \(it has go.mod\), not a notes repo: .*--force/);
    expect(fs.existsSync(sb.data)).toBe(false);
    expect(fs.readdirSync(path.dirname(sb.data)).filter((n) => n.includes('.clone-'))).toEqual([]);

    const forced = await kbj(sb, ['init', '--clone', url, '--force']);
    expect(forced).toMatchObject({ data_dir: sb.data, action: 'cloned' });
    expect(fs.existsSync(path.join(sb.data, 'kb.json'))).toBe(true);
    await expectCleanRepo(sb.data);
  });

  it('run again after it finished (or was killed once it had), the same clone is reported existing, not refused', async () => {
    sb = makeSandbox();
    server.createBare('again');
    const url = server.repoUrl('again');
    const first = await kbj(sb, ['init', '--clone', url]);
    expect(first.action).toBe('cloned');
    const again = await kbj(sb, ['init', '--clone', url]);
    expect(again.action).toBe('existing');
    expect(fs.readdirSync(path.dirname(sb.data)).filter((n) => n.includes('.clone-'))).toEqual([]);
    await expectCleanRepo(sb.data);
  });
});
