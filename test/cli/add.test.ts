/**
 * `git-kb add`: every field flag, the three body sources, the file and commit it makes, the embedded default
 * data repo created on first write, and the data repo resolution order.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { CLI, expectCleanRepo, git, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, expectUnchanged, headOf, initRepo, jsonError, kbd, sgit, snapshot, subjects, kbj } from './support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

function frontMatter(file: string): { data: Record<string, unknown>; body: string } {
  const text = fs.readFileSync(file, 'utf8');
  const m = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!m) throw new Error(`no front matter in ${file}:\n${text}`);
  return { data: YAML.parse(m[1]!) as Record<string, unknown>, body: m[2]! };
}

describe('add', () => {
  it('writes one entry file with every field and commits it alone', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const target = await addEntry(sb, { type: 'decision', title: 'Target of links', body: 'x' });
    const r = await kbj(sb, [
      'add', '--type', 'pattern_convention', '--title', '  Prefer small, focused commits  ', '--tags', 'git, review,git',
      '--link', `relates_to:${target.id}`, '--link', `depends_on:${target.id}`, '--applies-to', 'coding,reviewing', '--kernel',
      '--aliases', 'small-commits', '--url', 'https://example.com/commits', '--', 'One idea per commit.', 'Easier review.',
    ]);
    expect(Object.keys(r).sort()).toEqual(['commit', 'id', 'path']);
    expect(r.id).toMatch(/^kb-[0-9a-z]{10}$/);
    expect(r.path).toBe(`entries/${r.id}-prefer-small-focused-commits.md`);
    expect(r.commit).toBe(await headOf(sb));
    const { data, body } = frontMatter(path.join(sb.data, r.path));
    expect(data).toMatchObject({
      id: r.id,
      title: 'Prefer small, focused commits',
      type: 'pattern_convention',
      tags: ['git', 'review'],
      aliases: ['small-commits', 'Prefer small, focused commits'], // the title joins the user's aliases (Obsidian's quick switcher)
      links: [{ rel: 'relates_to', to: target.id }, { rel: 'depends_on', to: target.id }],
      url: 'https://example.com/commits',
      applies_to: ['coding', 'reviewing'],
      kernel: true,
    });
    expect(data.created).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(data.updated).toBe(data.created);
    // The typed links are also shown where Obsidian sees them: a generated Links section at the end of the body,
    // each item showing the linked entry's title.
    const name = path.basename(target.path, '.md');
    expect(body).toBe(`\nOne idea per commit. Easier review.\n\n<!-- git-kb links: generated from the "links" field above; change that field (or git-kb edit --link/--unlink), not these lines -->\n## Links\n\n- relates_to: [[${name}|Target of links]]\n- depends_on: [[${name}|Target of links]]\n<!-- git-kb links end -->\n`);
    expect((await subjects(sb))[0]).toBe(`add ${r.id}: Prefer small, focused commits`);
    expect((await sgit(sb, ['show', '--name-status', '--format=', 'HEAD'])).trim()).toBe(`A\t${r.path}`);
    await expectCleanRepo(sb.data);
  });

  it('prints just the id without --json, and reads the body from --file or stdin', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const plain = await kbd(sb, ['add', '--type', 'lesson_learned', '--title', 'From the argument', 'body', 'words']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(/^kb-[0-9a-z]{10}\n$/);

    const file = path.join(sb.root, 'body.md');
    fs.writeFileSync(file, '# Heading\n\nFrom a file,\nwith lines.\n');
    const f = await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'From a file', '--file', file]);
    expect(frontMatter(path.join(sb.data, f.path)).body).toBe('\n# Heading\n\nFrom a file,\nwith lines.\n');

    const s = await kbj(sb, ['add', '--type', 'lesson_learned', '--title', 'From stdin'], { input: 'Piped\r\nbody\n\n\n' });
    expect(frontMatter(path.join(sb.data, s.path)).body).toBe('\nPiped\nbody\n');

    // A BODY and --file together: neither is silently dropped, nothing is written.
    const before = await snapshot(sb);
    const both = await kbd(sb, ['--json', 'add', '--type', 'lesson_learned', '--title', 'Both', '--file', file, 'words', 'too']);
    expect(both.code, both.stderr).toBe(2);
    expect(jsonError(both)).toMatchObject({ code: 'USAGE', message: expect.stringContaining('BODY and --file cannot be combined') });
    await expectUnchanged(sb, before);

    const missing = await kbd(sb, ['add', '--type', 'lesson_learned', '--title', 'No file', '--file', path.join(sb.root, 'nope.md')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('nope.md');
    await expectCleanRepo(sb.data);
  });

  it('refuses no body off a terminal (stdin /dev/null, closed or blank: USAGE, exit 2) and a blank body (INVALID_ENTRY), writing nothing', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const before = await snapshot(sb);
    // stdin is /dev/null (a character device, not a pipe), as in an agent's shell.
    const devNull = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, '--json', 'add', '--type', 'decision', '--title', 'Nothing said'], { env: sb.env, cwd: sb.root, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(devNull.code, devNull.stderr).toBe(2);
    expect(JSON.parse(devNull.stderr).error).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/add needs a body: .*--file FILE, or on stdin/) });
    for (const input of ['', ' \n\t\n']) {
      const r = await kbd(sb, ['--json', 'add', '--type', 'lesson_learned', '--title', 'Nothing piped'], { input });
      expect(r.code, r.stderr).toBe(2);
      expect(jsonError(r).code).toBe('USAGE');
    }
    fs.writeFileSync(path.join(sb.root, 'empty.md'), '\n\n');
    for (const args of [['--', '  '], ['--file', path.join(sb.root, 'empty.md')], ['--pattern-key', 'nothing-said', '--', '']]) {
      const r = await kbd(sb, ['--json', 'add', '--type', 'lesson_learned', '--title', 'Blank', ...args]);
      expect(r.code, `${args}: ${r.stderr}`).toBe(5);
      expect(jsonError(r)).toMatchObject({ code: 'INVALID_ENTRY', message: expect.stringMatching(args[0] === '--file' ? /^the body from --file \S*empty\.md is empty/ : /^the body is empty/) });
    }
    await expectUnchanged(sb, before);
    // A bookmark's url is what it records: it may come without a body.
    expect((await kbd(sb, ['add', '--type', 'bookmark', '--title', 'Node streams', '--url', 'https://nodejs.org/api/stream.html'])).code).toBe(0);
  });

  it('refuses a title over 300 characters (add and edit), writing nothing; import cuts a long heading to a title', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const before = await snapshot(sb);
    const long = 'word '.repeat(200).trim();
    const r = await kbd(sb, ['--json', 'add', '--type', 'decision', '--title', long, 'the body']);
    expect(r.code, r.stderr).toBe(5);
    expect(jsonError(r)).toMatchObject({ code: 'INVALID_ENTRY', message: expect.stringContaining('"title" is 999 characters, over 300') });
    await expectUnchanged(sb, before);
    const ok = await kbj(sb, ['add', '--type', 'decision', '--title', 'x'.repeat(300), 'the body']);
    const e = await kbd(sb, ['--json', 'edit', ok.id, '--title', long]);
    expect(e.code, e.stderr).toBe(5);
    expect(jsonError(e).message).toContain('over 300');
    // A note whose first heading is a paragraph: imported with that heading cut at a word, not refused.
    const notes = path.join(sb.root, 'notes');
    fs.mkdirSync(notes);
    fs.writeFileSync(path.join(notes, 'rambling.md'), `# ${long}\n\nThe note itself.\n`);
    const imp = await kbj(sb, ['import', notes]);
    const title = String(YAML.parse(fs.readFileSync(path.join(sb.data, imp.entries[0].path), 'utf8').split('---')[1]!).title);
    expect(title.length).toBeLessThanOrEqual(300);
    expect(title).toMatch(/^word word .* word…$/);
  });

  it('stores a host fact under hosts/<key>/ and a bookmark with its url', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const h = await kbj(sb, ['add', '--type', 'host_fact', '--host', 'build-01', '--title', 'Docker lives on /data', '--', 'A body.']);
    expect(h.path).toBe(`hosts/build-01/${h.id}-docker-lives-on-data.md`);
    expect(frontMatter(path.join(sb.data, h.path)).data.host).toBe('build-01');
    const b = await addEntry(sb, { type: 'bookmark', title: 'MiniSearch docs', url: 'https://lucaong.github.io/minisearch/' });
    expect(frontMatter(path.join(sb.data, b.path)).data.url).toBe('https://lucaong.github.io/minisearch/');
    await expectCleanRepo(sb.data);
  });

  it('mints distinct ids for entries added in the same second', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add((await addEntry(sb, { title: `Same title ${i % 2}` })).id);
    expect(ids.size).toBe(5);
  });
});

describe('the embedded default data repo', () => {
  it('is created at ~/.git-kb/data by the first add, with no --data, env or config', async () => {
    sb = makeSandbox();
    const home = path.join(sb.home, '.git-kb', 'data');
    const before = await kb(sb, ['status', '--json']);
    expect(before.code).toBe(3);
    expect(JSON.parse(before.stderr).error).toMatchObject({ code: 'NO_DATA_REPO' });
    expect(JSON.parse(before.stderr).error.message).toContain(home);
    expect(fs.existsSync(home)).toBe(false);
    // The model's first read, with no data repo: one line that says how to start.
    const search = await kb(sb, ['search', 'anything']);
    expect([search.code, search.stdout]).toEqual([3, '']);
    expect(search.stderr).toBe(`git-kb: error: no knowledge base yet (no data repo at ${home}); "git-kb init" starts one (the first "git-kb add" creates it too), or pass --data DIR for another\n`);

    const r = await kb(sb, ['add', '--type', 'decision', '--title', 'First note on a fresh machine', '--json', '--', 'A body.']);
    expect(r.code, r.stderr).toBe(0);
    // The write that made it says where the data went, once, on stderr (stdout is the JSON alone).
    expect(r.stderr).toBe('git-kb: created a new knowledge base at ~/.git-kb/data (a git repo; "git-kb status" shows it, "git-kb init --remote URL" syncs it)\n');
    const added = JSON.parse(r.stdout);
    expect(fs.existsSync(path.join(home, added.path))).toBe(true);
    expect((await sgit(sb, ['log', '--format=%s'], home)).trim().split('\n')).toEqual([`add ${added.id}: First note on a fresh machine`, 'git-kb: create data repo']);
    await expectCleanRepo(home);
    const st = JSON.parse((await kb(sb, ['status', '--json'])).stdout);
    expect(st).toMatchObject({ data_dir: home, source: 'default', entries: 1 });
    // No config file was needed or written.
    expect(fs.existsSync(path.join(sb.home, '.config', 'git-kb'))).toBe(false);
    const second = await kb(sb, ['add', '--type', 'decision', '--title', 'Second note', 'the repo is there now']);
    expect([second.code, second.stderr]).toEqual([0, '']);
  });

  it('a --data that names a file is told it is not a folder, not to run init there, and the file is left alone', async () => {
    sb = makeSandbox();
    const file = path.join(sb.root, 'notes.txt');
    fs.writeFileSync(file, 'mine\n');
    for (const args of [['list'], ['search', 'x'], ['add', '--type', 'decision', '--title', 'T', 'body'], ['init'], ['init', '--clone', path.join(sb.root, 'none.git')]]) {
      const r = await kb(sb, ['--data', file, ...args]);
      expect([r.code, r.stdout], args.join(' ')).toEqual([3, '']);
      expect(r.stderr, args.join(' ')).toBe(`git-kb: error: ${file} is not a folder: a data repo is a folder; pass --data DIR with a folder (a new or empty one makes a new data repo)\n`);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('a write that makes a --data folder a data repo says so too; init says it in its own output', async () => {
    sb = makeSandbox();
    const dir = path.join(sb.root, 'elsewhere');
    const r = await kb(sb, ['--data', dir, 'add', '--type', 'decision', '--title', 'Somewhere else', 'body']);
    // The hint names the repo it is for (before: "git-kb init --remote URL", which acts on the default one).
    expect([r.code, r.stderr]).toEqual([0, `git-kb: created a new knowledge base at ${dir} (a git repo; "git-kb status" shows it, "git-kb init --data ${dir} --remote URL" syncs it)\n`]);
    const sync = await kb(sb, ['--data', dir, 'sync']);
    expect([sync.code, sync.stderr]).toEqual([2, `git-kb: error: the data repo ${dir} has no remote to sync with; run "git-kb init --data ${dir} --remote URL" (or git -C ${dir} remote add origin URL)\n`]);
    const missing = path.join(sb.root, 'not yet');
    const list = await kb(sb, ['--data', missing, 'list']);
    expect([list.code, list.stderr]).toEqual([3, `git-kb: error: no knowledge base yet (no data repo at ${missing}); "git-kb init --data '${missing}'" starts one (the first "git-kb add" creates it too), or pass --data DIR for another\n`]);
    // A code project: the hint does not offer a plain init, which refuses it.
    const project = path.join(sb.root, 'project');
    fs.mkdirSync(project);
    await git(project, ['init', '-q']);
    fs.writeFileSync(path.join(project, 'package.json'), '{}\n');
    const code = await kb(sb, ['--data', project, 'list']);
    expect([code.code, code.stderr]).toEqual([3, `git-kb: error: ${project} is a git repository but not a git-kb data repo (it has no kb.json); it is a code project (it has package.json): pass --data with a folder of its own for your notes, or run "git-kb init --data ${project} --force" to commit notes into this project's history\n`]);
    const init = await kb(sb, ['--data', path.join(sb.root, 'by-init'), 'init']);
    expect([init.code, init.stderr]).toEqual([0, '']);
  });
});

describe('data repo resolution order', () => {
  it('--data, then GIT_KB_DATA, then $CLAUDE_PLUGIN_DATA/kb-config.json, ~/.claude/kb-config.json, $XDG_CONFIG_HOME/git-kb/config.json, then the default', async () => {
    sb = makeSandbox();
    const dirs: Record<string, string> = {};
    for (const name of ['flag', 'env', 'plugin', 'claude', 'xdg']) {
      dirs[name] = path.join(sb.root, `repo-${name}`);
      await sgit(sb, ['init', '-q', dirs[name]!], sb.root);
      fs.writeFileSync(path.join(dirs[name]!, 'kb.json'), '{"schema_version": 2}\n'); // what makes a git repo a data repo
    }
    const pluginData = path.join(sb.root, 'plugin-data');
    const configs = {
      plugin: path.join(pluginData, 'kb-config.json'),
      claude: path.join(sb.home, '.claude', 'kb-config.json'),
      xdg: path.join(sb.home, '.config', 'git-kb', 'config.json'),
    };
    for (const [name, file] of Object.entries(configs)) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ data_dir: dirs[name] }));
    }
    const status = async (args: string[], env: NodeJS.ProcessEnv) => {
      const r = await kb(sb, [...args, 'status', '--json'], { env });
      return r.code === 0 ? JSON.parse(r.stdout) : JSON.parse(r.stderr);
    };
    const env = { GIT_KB_DATA: dirs.env, CLAUDE_PLUGIN_DATA: pluginData };
    expect(await status(['--data', dirs.flag!], env)).toMatchObject({ data_dir: dirs.flag, source: 'flag' });
    expect(await status([], env)).toMatchObject({ data_dir: dirs.env, source: 'env' });
    expect(await status([], { CLAUDE_PLUGIN_DATA: pluginData })).toMatchObject({ data_dir: dirs.plugin, source: 'config' });
    expect(await status([], {})).toMatchObject({ data_dir: dirs.claude, source: 'config' });
    fs.rmSync(configs.claude);
    expect(await status([], {})).toMatchObject({ data_dir: dirs.xdg, source: 'config' });
    // A config file without data_dir is passed over; a relative or ~ data_dir is resolved.
    fs.writeFileSync(configs.xdg, JSON.stringify({ remote: 'https://example.com/kb.git' }));
    expect((await status([], {})).error).toMatchObject({ code: 'NO_DATA_REPO' });
    expect((await status([], {})).error.message).toContain(path.join(sb.home, '.git-kb', 'data'));
    fs.writeFileSync(configs.claude, JSON.stringify({ data_dir: '~/notes-kb' }));
    await sgit(sb, ['init', '-q', path.join(sb.home, 'notes-kb')], sb.root);
    fs.writeFileSync(path.join(sb.home, 'notes-kb', 'kb.json'), '{}\n');
    expect(await status([], {})).toMatchObject({ data_dir: path.join(sb.home, 'notes-kb') });
    // A malformed config file is a usage error that names it.
    fs.writeFileSync(configs.claude, '{ not json');
    const bad = await kb(sb, ['status', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.message).toContain(configs.claude);
  });
});
