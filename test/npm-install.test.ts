/**
 * Installed the way people install it with npm: `npm install -g <clone dir>` and `npm install -g <git URL>` (a
 * smart-HTTP server on loopback) into a throwaway prefix, with Node and npm only: no registry (it points at a dead
 * port), no prepare script, no devDependencies; the committed dist/ runs. The package holds no stale chunk, and
 * `git kb --help` opens the shipped man page (exit 0) with the prefix's PATH and MANPATH.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, run } from './helpers/cli.js';
import { cleanGitEnv, startGitServer, type GitServer } from './helpers/git-server.js';

let tmp: string;
let src: string;
let server: GitServer;
const env = (home = path.join(tmp, 'home')): NodeJS.ProcessEnv => cleanGitEnv({ HOME: home, npm_config_cache: path.join(tmp, 'npm-cache'), npm_config_registry: 'http://127.0.0.1:9/', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' });

/** The working tree as a fresh one-commit git repository (what a user's clone holds). */
function cloneOfWorkingTree(dir: string): void {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    const from = path.join(ROOT, f);
    if (!fs.existsSync(from)) continue; // deleted in the working tree
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, f));
    fs.chmodSync(path.join(dir, f), fs.statSync(from).mode & 0o777);
  }
  const git = (args: string[]): void => void execFileSync('git', args, { cwd: dir, env: cleanGitEnv(), stdio: 'pipe' });
  git(['init', '-q', '-b', 'main']);
  git(['add', '-A']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'release']);
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-npm-'));
  fs.mkdirSync(path.join(tmp, 'home'));
  src = path.join(tmp, 'git-kb');
  cloneOfWorkingTree(src);
  server = await startGitServer();
  const bare = server.createBare('git-kb');
  execFileSync('git', ['push', '-q', bare, 'main'], { cwd: src, env: cleanGitEnv(), stdio: 'pipe' });
}, 60_000);
afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function npmInstall(prefix: string, spec: string): Promise<void> {
  const r = await run('npm', ['install', '-g', '--prefix', prefix, spec], { env: env(), cwd: tmp, timeoutMs: 120_000 });
  expect(r.code, r.stderr).toBe(0);
}

/** A shell environment whose PATH is the prefix's bin, node's folder and the system's; MANPATH the prefix's; a HOME of its own. */
function userEnv(prefix: string): NodeJS.ProcessEnv {
  const home = path.join(tmp, `home-${path.basename(prefix)}`);
  fs.mkdirSync(home, { recursive: true });
  return { ...env(home), PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter), MANPATH: path.join(prefix, 'share', 'man') };
}

async function expectWorks(prefix: string): Promise<void> {
  const e = userEnv(prefix);
  const data = path.join(tmp, `data-${path.basename(prefix)}`);
  const version = await run('git-kb', ['--version'], { env: e });
  expect([version.code, version.stdout.trim()]).toEqual([0, JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version]);
  const add = await run('git-kb', ['--data', data, 'add', '--type', 'decision', '--title', 'Installed with npm', '--json', 'it works'], { env: e });
  expect(add.code, add.stderr).toBe(0);
  expect((await run('git', ['kb', '--data', data, 'get', JSON.parse(add.stdout).id], { env: e })).stdout).toContain('Installed with npm');
  const help = await run('git', ['kb', '--help'], { env: { ...e, MANPAGER: 'cat', PAGER: 'cat' } });
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toMatch(/GIT-KB\(1\)[\s\S]*git-kb add/);
  const verbHelp = await run('git-kb', ['help', 'search'], { env: e });
  expect([verbHelp.code, verbHelp.stdout.split('\n')[0]]).toEqual([0, 'Usage: git-kb search [options] <queries...>']);
  const hook = await run('git-kb-hook', ['prompt'], { env: { ...e, GIT_KB_DATA: data }, input: JSON.stringify({ session_id: 's', prompt: 'hello there friend' }) });
  expect(hook.code).toBe(0);
  // Wired into settings.json, the install passes every check of doctor: its bundle, and each hook command run once.
  const install = await run('git-kb', ['install'], { env: e });
  expect(install.code, install.stderr).toBe(0);
  const doctor = await run('git-kb', ['--data', data, 'doctor'], { env: e });
  expect(doctor.stdout).toMatch(/^ok {4}bundle /m);
  expect(doctor.stdout).toMatch(/^ok {4}hook-run +6 hook commands ran and exited 0$/m);
  expect([doctor.code, doctor.stderr], doctor.stdout).toEqual([0, '']);
}

describe('npm install -g', () => {
  it('from the clone folder: git-kb, git kb, git kb --help (man page) and the hook entry work', async () => {
    const prefix = path.join(tmp, 'p-dir');
    await npmInstall(prefix, src);
    expect(fs.existsSync(path.join(prefix, 'share', 'man', 'man1', 'git-kb.1'))).toBe(true);
    await expectWorks(prefix);
  }, 120_000);

  it('from a git URL over smart HTTP, with no registry and no build', async () => {
    const prefix = path.join(tmp, 'p-git');
    await npmInstall(prefix, `git+${server.repoUrl('git-kb')}`);
    const installed = path.join(prefix, 'lib', 'node_modules', 'git-kb');
    expect(fs.lstatSync(installed).isSymbolicLink()).toBe(false); // a "build" script made npm 11 link a deleted temp clone
    expect(fs.existsSync(path.join(installed, 'node_modules'))).toBe(false); // no dependency was installed
    await expectWorks(prefix);
  }, 120_000);

  it('from a tarball (npm pack); with that install removed, doctor (of another install) names the broken hooks and exits 7', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', tmp], { env: env(), cwd: src, timeoutMs: 60_000 });
    expect(packed.code, packed.stderr).toBe(0);
    const tarball = path.join(tmp, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
    const prefix = path.join(tmp, 'p-tar');
    await npmInstall(prefix, tarball);
    const installed = path.join(prefix, 'lib', 'node_modules', 'git-kb');
    expect(fs.existsSync(path.join(installed, 'dist', 'chunks', '.npmignore'))).toBe(true); // what npm makes of .gitignore
    await expectWorks(prefix);

    // The same HOME, whose settings.json runs the tarball's hooks, checked by the git URL's install once the tarball's is gone.
    const e = userEnv(prefix);
    const other = path.join(tmp, 'p-other');
    await npmInstall(other, src);
    fs.rmSync(installed, { recursive: true, force: true });
    const otherEnv = { ...e, PATH: [path.join(other, 'bin'), path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter) };
    const data = path.join(tmp, `data-${path.basename(prefix)}`);
    const broken = await run('git-kb', ['--data', data, 'doctor'], { env: otherEnv });
    expect(broken.code, broken.stdout).toBe(7);
    expect(broken.stdout).toMatch(/^FAIL {2}hook-run +6 of 6 hook commands fail: .*Cannot find module '.*p-tar\/lib\/node_modules\/git-kb\/bin\/git-kb-hook'; fix: run "git-kb install"/m);
    expect((await run('git-kb', ['install'], { env: otherEnv })).code).toBe(0);
    const fixed = await run('git-kb', ['--data', data, 'doctor'], { env: otherEnv });
    expect([fixed.code, fixed.stdout]).toEqual([0, expect.stringMatching(/^ok {4}hook-run +6 hook commands ran and exited 0$/m)]);
  }, 240_000);

  it('packs only the chunks dist/chunks/.gitignore keeps, and the man page is current', async () => {
    const r = await run('npm', ['pack', '--dry-run', '--json'], { env: env(), cwd: src, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    const kept = fs
      .readFileSync(path.join(src, 'dist', 'chunks', '.gitignore'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('!'))
      .map((l) => `dist/chunks/${l.slice(1)}`);
    expect(files.filter((f) => f.startsWith('dist/chunks/')).sort()).toEqual(kept.sort());
    expect(files).toContain('man/git-kb.1');
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('node_modules/'))).toBe(false);
    const check = await run(process.execPath, [path.join(ROOT, 'man', 'generate.mjs'), '--check'], { env: env() });
    expect([check.code, check.stderr]).toEqual([0, '']);
  }, 60_000);
});
