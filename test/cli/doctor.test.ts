/**
 * `git-kb doctor`: one line per check with its fix; exit 0 when every check passes (warnings allowed), 7 when one
 * fails; --json gives {ok, data_dir, checks: [{name, status, detail, fix?}]}.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { kb, makeSandbox, ROOT, run, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

interface Check {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
  fix?: string;
}

async function doctor(env: NodeJS.ProcessEnv = {}): Promise<{ code: number; checks: Record<string, Check>; text: string }> {
  const j = await kb(sb, ['--data', sb.data, 'doctor', '--json'], { env });
  const t = await kb(sb, ['--data', sb.data, 'doctor'], { env });
  expect(t.code).toBe(j.code);
  const parsed = JSON.parse(j.stdout) as { ok: boolean; checks: Check[] };
  expect(parsed.ok).toBe(j.code === 0);
  return { code: j.code, checks: Object.fromEntries(parsed.checks.map((c) => [c.name, c])), text: t.stdout };
}

/** A PATH with a stand-in `claude` (the judge's executable is only looked for). */
function withClaude(): NodeJS.ProcessEnv {
  const bin = path.join(sb.root, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return { PATH: `${bin}${path.delimiter}${process.env.PATH}` };
}

describe('git-kb doctor', () => {
  it('fails (exit 7) with a fix on each failing line when no hook is wired; a data repo not created yet is a warning, a folder that is not one a failure', async () => {
    sb = makeSandbox('gkb-doctor-');
    fs.rmSync(sb.data, { recursive: true, force: true });
    const r = await doctor();
    expect(r.code).toBe(7);
    // A fresh install: the first write creates the repo, so its absence is no failure.
    expect(r.checks['data-repo']).toMatchObject({ status: 'warn', fix: expect.stringContaining('git-kb init') });
    expect(r.checks['data-repo']!.detail).toMatch(/from --data\): not created yet; the first write/);
    expect(r.checks.hooks).toMatchObject({ status: 'fail', fix: expect.stringContaining('git-kb install') });
    expect(r.checks.bundle!.status).toBe('ok');
    const lines = r.text.trim().split('\n');
    expect(lines.find((l) => l.startsWith('FAIL  hooks'))).toContain('; fix: run');
    expect(lines.at(-1)).toBe('1 check failed');
    // A folder with files that is not a data repo: a wrong path, or a damaged repo.
    fs.mkdirSync(sb.data, { recursive: true });
    fs.writeFileSync(path.join(sb.data, 'notes.txt'), 'not a repo\n');
    const wrong = await doctor();
    expect(wrong.code).toBe(7);
    expect(wrong.checks['data-repo']).toMatchObject({ status: 'fail', fix: expect.stringContaining('git-kb init') });
    expect(wrong.text.split('\n').find((l) => l.startsWith('FAIL  data-repo'))).toContain('not a data repo');
  });

  it('passes (exit 0) on a healthy repo with the hooks in settings.json and claude on PATH; warns on what is only off', async () => {
    sb = makeSandbox('gkb-doctor-');
    expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Doctor is cheap', 'no network'])).code).toBe(0);
    expect((await kb(sb, ['install'])).code).toBe(0);
    const r = await doctor(withClaude());
    expect(r.code).toBe(0);
    for (const name of ['data-repo', 'head', 'manifest', 'conflicts', 'lint', 'journal', 'hooks', 'bundle', 'hook-run', 'judge', 'reflect', 'objects']) expect(r.checks[name]!.status, name).toBe('ok');
    expect(r.checks.objects!.detail).toMatch(/^\d+ loose git objects, [\d.]+ MiB$/);
    expect(r.checks.remote).toMatchObject({ status: 'warn', fix: `run "git-kb init --data ${sb.data} --remote URL", then "git-kb sync"` });
    expect(r.checks['prompt-index']!.status).toBe('warn'); // no prompt has run yet
    expect(r.text.trim().split('\n').at(-1)).toBe('all checks pass (2 warnings)');
    expect(r.checks.plugin).toBeUndefined(); // no plugin installed through Claude Code: nothing to say about one

    // A remote named only in the config file is the one sync will use: doctor reports it, and checks its auth.
    fs.mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
    fs.writeFileSync(path.join(sb.home, '.claude', 'kb-config.json'), JSON.stringify({ remote: 'https://git.example.com/me/from-config.git' }));
    const fromConfig = await doctor({ PATH: '/usr/bin:/bin' });
    expect(fromConfig.checks.remote).toMatchObject({ status: 'ok', detail: 'https://git.example.com/me/from-config.git (from the config; the first "git-kb sync" sets it as origin)' });
    expect(fromConfig.checks.auth!.status).toBe('warn');
    fs.rmSync(path.join(sb.home, '.claude', 'kb-config.json'));

    // An https remote without a token, and the judge missing: warnings, still exit 0.
    expect((await kb(sb, ['--data', sb.data, 'init', '--remote', 'https://git.example.com/me/kb.git'])).code).toBe(0);
    const r2 = await doctor({ PATH: '/usr/bin:/bin' });
    expect(r2.code).toBe(0);
    expect(r2.checks.remote).toMatchObject({ status: 'ok', detail: 'origin https://git.example.com/me/kb.git' });
    expect(r2.checks.auth!.status).toBe('warn');
    expect(r2.checks.judge!.status).toBe('warn');
    expect((await doctor({ PATH: '/usr/bin:/bin', GIT_KB_TOKEN: 'x' })).checks.auth!.status).toBe('ok');
  });

  it('finds a broken kb.json, a leftover journal and lock, and hooks wired twice (plugin and settings.json)', async () => {
    sb = makeSandbox('gkb-doctor-');
    expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Doctor is cheap', 'no network'])).code).toBe(0);
    expect((await kb(sb, ['install'])).code).toBe(0);
    const plugins = path.join(sb.home, '.claude', 'plugins', 'installed_plugins.json');
    fs.mkdirSync(path.dirname(plugins), { recursive: true });
    fs.writeFileSync(plugins, JSON.stringify({ version: 2, plugins: { 'git-kb@git-kb': [{ scope: 'user', installPath: '/x', version: '2.0.0' }] } }));
    fs.writeFileSync(path.join(sb.data, 'kb.json'), '{ "schema_version": 2,');
    const state = path.join(sb.data, '.git', 'git-kb');
    fs.writeFileSync(path.join(state, 'journal.json'), JSON.stringify({ kind: 'commit', paths: [], message: 'left by a killed write' }));
    fs.writeFileSync(path.join(state, 'write.lock'), `999999999\n${os.hostname()}\n${Date.now()}\n`);
    const r = await doctor(withClaude());
    expect(r.code).toBe(7);
    expect(r.checks.manifest).toMatchObject({ status: 'fail', fix: expect.stringContaining('checkout kb.json') });
    expect(r.checks.manifest!.detail).toMatch(/^kb.json is not valid JSON: .*\(kb.json:1\)$/);
    // Valid JSON that lint refuses is doctor's failure too (one check of kb.json, lint's), at the field's line.
    fs.writeFileSync(path.join(sb.data, 'kb.json'), '{\n  "schema_version": 2,\n  "budgets": {\n    "kernel_char": 4000\n  }\n}\n');
    const typo = await doctor(withClaude());
    expect(typo.checks.manifest).toMatchObject({ status: 'fail', detail: 'kb.json: "budgets.kernel_char" is not a budget (kernel_chars, host_chars, entry_chars) (kb.json:4)' });
    expect((await kb(sb, ['--data', sb.data, 'lint'])).stdout).toContain('kb.json:4');
    expect(r.checks.journal).toMatchObject({ status: 'warn' });
    expect(r.checks.journal!.detail).toContain('unfinished write journal');
    expect(r.checks.journal!.detail).toContain('write lock whose holder is gone');
    expect(r.checks.hooks).toMatchObject({ status: 'warn', fix: expect.stringContaining('git-kb uninstall') });
    expect(r.checks.hooks!.detail).toContain('git-kb@git-kb');
  });

  it('warns when loose objects pile up, and is quiet once git gc has packed them', async () => {
    sb = makeSandbox('gkb-doctor-');
    expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Doctor counts objects', 'loose ones'])).code).toBe(0);
    expect((await kb(sb, ['install'])).code).toBe(0);
    // 6,700 small loose objects, as years of writes leave them (each a valid blob)
    const list = path.join(sb.root, 'blobs');
    fs.mkdirSync(list);
    const files = Array.from({ length: 6700 }, (_, i) => {
      const f = path.join(list, String(i));
      fs.writeFileSync(f, `blob ${i}\n`);
      return f;
    });
    execFileSync('git', ['-C', sb.data, 'hash-object', '-w', '--stdin-paths'], { input: files.join('\n'), env: sb.env });
    const r = await doctor(withClaude());
    expect(r.checks.objects).toMatchObject({ status: 'warn', fix: expect.stringContaining(`git -C ${sb.data} gc`) });
    expect(r.code).toBe(0); // a warning
    execFileSync('git', ['-C', sb.data, 'gc', '-q', '--prune=now'], { env: sb.env });
    const after = await doctor(withClaude());
    expect(after.checks.objects!.status).toBe('ok');
    expect((await kb(sb, ['--data', sb.data, 'search', 'loose'])).stdout).toContain('Doctor counts objects'); // packs read
  });

  it('runs every wired hook command: a hook whose install is gone fails (exit 7) naming it, and its fix works', async () => {
    sb = makeSandbox('gkb-doctor-');
    expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Hooks that run', 'checked by running them'])).code).toBe(0);
    expect((await kb(sb, ['install'])).code).toBe(0);
    const settings = path.join(sb.home, '.claude', 'settings.json');
    const gone = path.join(sb.root, 'deleted-clone');
    fs.writeFileSync(settings, fs.readFileSync(settings, 'utf8').replaceAll(ROOT, gone));
    const r = await doctor(withClaude());
    expect(r.code).toBe(7);
    expect(r.checks.hooks!.status).toBe('ok'); // wired, as before...
    expect(r.checks['hook-run']).toMatchObject({ status: 'fail', fix: 'run "git-kb install" (it wires the hooks of ' + ROOT + ')' }); // ...but none runs
    expect(r.checks['hook-run']!.detail).toMatch(/^6 of 6 hook commands fail: UserPromptSubmit, PreToolUse, SessionStart, Stop, PreCompact, SessionEnd of settings\.json/);
    expect(r.checks['hook-run']!.detail).toContain(`Cannot find module '${gone}/bin/git-kb-hook'`);
    expect(r.text).toMatch(/^FAIL {2}hook-run +6 of 6/m);
    // the fix, as printed, then doctor is green
    expect((await kb(sb, ['install'])).code).toBe(0);
    const after = await doctor(withClaude());
    expect([after.code, after.checks['hook-run']!.detail]).toEqual([0, '6 hook commands ran and exited 0']);

    // A hand-written command through the user's home (~/ or $HOME) runs from that home, though the probe's HOME is a throwaway one.
    fs.symlinkSync(ROOT, path.join(sb.home, 'gk'));
    fs.writeFileSync(settings, JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node ~/gk/bin/git-kb-hook prompt' }] }], Stop: [{ hooks: [{ type: 'command', command: 'node "$HOME/gk/bin/git-kb-hook" stop' }] }] } }));
    expect((await doctor(withClaude())).checks['hook-run']).toMatchObject({ status: 'ok', detail: '2 hook commands ran and exited 0' });
  }, 60_000);

  it('the probe leaves nothing behind: no summary, turn log, ledger or commit in the data repo, no state in HOME', async () => {
    sb = makeSandbox('gkb-doctor-');
    expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Nothing written', 'by the probe'])).code).toBe(0);
    const config = path.join(sb.home, '.config', 'git-kb', 'config.json');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, JSON.stringify({ data_dir: sb.data })); // the hooks' own resolution would find this repo
    const list = (dir: string): string[] => (fs.existsSync(dir) ? (fs.readdirSync(dir, { recursive: true }) as string[]).sort() : []);
    await doctor(withClaude()); // no hook wired yet: what doctor's own reads leave (the catalog cache, ...)
    expect((await kb(sb, ['install'])).code).toBe(0);
    const head = execFileSync('git', ['-C', sb.data, 'rev-parse', 'HEAD'], { env: sb.env, encoding: 'utf8' });
    const state = list(path.join(sb.data, '.git', 'git-kb'));
    const home = list(sb.home);
    const r = await doctor(withClaude());
    expect(r.checks['hook-run']!.status).toBe('ok');
    expect(execFileSync('git', ['-C', sb.data, 'rev-parse', 'HEAD'], { env: sb.env, encoding: 'utf8' })).toBe(head);
    expect(execFileSync('git', ['-C', sb.data, 'status', '--porcelain'], { env: sb.env, encoding: 'utf8' })).toBe('');
    expect(list(path.join(sb.data, '.git', 'git-kb'))).toEqual(state);
    expect(list(sb.home).filter((f) => !f.startsWith('.cache'))).toEqual(home.filter((f) => !f.startsWith('.cache')));
  }, 60_000);

  it('finds a hook that starts but fails inside (a missing handler file), and checks the files the bundle really requires', async () => {
    sb = makeSandbox('gkb-doctor-');
    // An install as npm leaves it: bin/, dist/, hooks/, with dist/chunks/.gitignore renamed to .npmignore.
    const copy = path.join(sb.root, 'install', 'git-kb');
    for (const d of ['bin', 'dist', 'hooks']) fs.cpSync(path.join(ROOT, d), path.join(copy, d), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'));
    fs.renameSync(path.join(copy, 'dist', 'chunks', '.gitignore'), path.join(copy, 'dist', 'chunks', '.npmignore'));
    const copied = (args: string[], env: NodeJS.ProcessEnv = {}) => run(process.execPath, [path.join(copy, 'bin', 'git-kb'), ...args], { env: { ...sb.env, ...env }, cwd: sb.root });
    expect((await copied(['--data', sb.data, 'add', '--type', 'decision', '--title', 'Copied install', 'works'])).code).toBe(0);
    expect((await copied(['install'])).code).toBe(0);
    const ok = JSON.parse((await copied(['--data', sb.data, 'doctor', '--json'], withClaude())).stdout) as { ok: boolean; checks: Check[] };
    expect(ok.checks.filter((c) => c.status === 'fail')).toEqual([]);
    expect(ok.ok).toBe(true);

    fs.rmSync(path.join(copy, 'dist', 'hooks', 'session.js'));
    // A chunk of this build (the folder also keeps the previous build's, for processes still running it).
    const current = fs.readFileSync(path.join(ROOT, 'dist', 'chunks', '.gitignore'), 'utf8').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1));
    const chunk = current.find((f) => f.startsWith('search-'))!;
    fs.rmSync(path.join(copy, 'dist', 'chunks', chunk));
    const r = await copied(['--data', sb.data, 'doctor', '--json'], withClaude());
    expect(r.code).toBe(7);
    const checks = Object.fromEntries((JSON.parse(r.stdout) as { checks: Check[] }).checks.map((c) => [c.name, c]));
    expect(checks.bundle!.status).toBe('fail');
    expect(checks.bundle!.detail).toContain('dist/hooks/session.js');
    expect(checks.bundle!.detail).toContain(`dist/chunks/${chunk}`);
    expect(checks.bundle!.fix).toBe('install git-kb again the way it came: "npm install -g <its git URL, tarball or folder>"');
    expect(checks['hook-run']!.status).toBe('fail');
    expect(checks['hook-run']!.detail).toMatch(/^4 of 6 hook commands fail: SessionStart, Stop, PreCompact, SessionEnd of settings\.json .*: ran, but failed inside: .*session\.js/);
  }, 60_000);
  it('reads Claude Code\'s own records of the plugin: a marketplace folder moved away fails (exit 7) naming it, though the installed copy is still there', async () => {
    sb = makeSandbox('gkb-doctor-');
    expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Plugin records', 'read by doctor'])).code).toBe(0);
    // The records as Claude Code 2.1.328 writes them for "claude plugin marketplace add DIR" then
    // "claude plugin install git-kb@git-kb": the marketplace's folder (here a link to this checkout, so it can be
    // moved) is where Claude Code reads the plugin from; installPath is a copy it keeps but does not run.
    const clone = path.join(sb.root, 'clone');
    fs.symlinkSync(ROOT, clone);
    const plugins = path.join(sb.home, '.claude', 'plugins');
    const copy = path.join(plugins, 'cache', 'git-kb', 'git-kb', '2.0.0');
    fs.mkdirSync(copy, { recursive: true }); // an empty copy: the probe must run the folder's hooks, not these
    const when = '2026-12-06T05:39:46.827Z';
    fs.writeFileSync(path.join(plugins, 'installed_plugins.json'), JSON.stringify({ version: 2, plugins: { 'git-kb@git-kb': [{ scope: 'user', installPath: copy, version: '2.0.0', installedAt: when, lastUpdated: when }] } }, null, 2));
    const marketplaceAt = (dir: string): void => {
      fs.writeFileSync(path.join(plugins, 'known_marketplaces.json'), JSON.stringify({ 'git-kb': { source: { source: 'directory', path: dir }, installLocation: dir, lastUpdated: when } }, null, 2));
      fs.writeFileSync(path.join(sb.home, '.claude', 'settings.json'), JSON.stringify({ extraKnownMarketplaces: { 'git-kb': { source: { source: 'directory', path: dir } } }, enabledPlugins: { 'git-kb@git-kb': true } }, null, 2));
    };
    marketplaceAt(clone);
    const healthy = await doctor(withClaude());
    expect(healthy.code, JSON.stringify(healthy.checks)).toBe(0);
    expect(healthy.checks.hooks).toMatchObject({ status: 'ok', detail: 'the plugin git-kb@git-kb' });
    expect(healthy.checks.plugin).toMatchObject({ status: 'ok', detail: `git-kb@git-kb, from the marketplace git-kb (${clone}), read from ${clone}` });
    expect(healthy.checks['hook-run']).toMatchObject({ status: 'ok', detail: '6 hook commands ran and exited 0' });

    // The clone moved: Claude Code says "failed to load: cache-miss"; so does doctor, with the path and the fix.
    const moved = path.join(sb.root, 'clone-moved');
    fs.renameSync(clone, moved);
    const broken = await doctor(withClaude());
    expect(broken.code).toBe(7);
    expect(broken.checks.hooks!.status).toBe('ok'); // still recorded as installed...
    expect(broken.checks.plugin).toMatchObject({
      status: 'fail',
      detail: `Claude Code cannot load the plugin git-kb@git-kb: the folder its marketplace git-kb was added from, ${clone}, is gone (moved or deleted)`,
      fix: `run "claude plugin marketplace add <the folder's new path>" (a deleted clone: clone git-kb again first), or put the folder back at ${clone}`,
    });
    expect(broken.checks['hook-run']).toBeUndefined(); // ...but none of its hooks runs
    expect(broken.text).toMatch(/^FAIL {2}plugin +Claude Code cannot load the plugin git-kb@git-kb: .*; fix: run "claude plugin marketplace add/m);
    // The fix: "claude plugin marketplace add <new path>" points the marketplace there (the records as it writes them).
    marketplaceAt(moved);
    const fixed = await doctor(withClaude());
    expect([fixed.code, fixed.checks.plugin!.status, fixed.checks['hook-run']!.detail]).toEqual([0, 'ok', '6 hook commands ran and exited 0']);

    // A marketplace cloned from git whose clone under plugins/marketplaces/ is gone: "claude plugin marketplace update" clones it again.
    const gone = path.join(plugins, 'marketplaces', 'git-kb');
    fs.writeFileSync(path.join(plugins, 'known_marketplaces.json'), JSON.stringify({ 'git-kb': { source: { source: 'git', url: 'https://git.example.com/git-kb.git' }, installLocation: gone, lastUpdated: when } }, null, 2));
    const git = await doctor(withClaude());
    expect(git.code).toBe(7);
    expect(git.checks.plugin).toMatchObject({ status: 'fail', detail: `Claude Code cannot load the plugin git-kb@git-kb: the copy of its marketplace git-kb (https://git.example.com/git-kb.git), ${gone}, is gone`, fix: 'run "claude plugin marketplace update git-kb"' });
    // No record of the marketplace at all ("Marketplace git-kb not found").
    fs.writeFileSync(path.join(plugins, 'known_marketplaces.json'), '{}');
    fs.writeFileSync(path.join(sb.home, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'git-kb@git-kb': true } }));
    const unknown = await doctor(withClaude());
    expect(unknown.code).toBe(7);
    expect(unknown.checks.plugin!.detail).toContain('it has no record of the marketplace git-kb');
    // A disabled plugin is not Claude Code's to load: quiet.
    fs.writeFileSync(path.join(sb.home, '.claude', 'settings.json'), JSON.stringify({ enabledPlugins: { 'git-kb@git-kb': false } }));
    expect((await doctor(withClaude())).checks.plugin).toBeUndefined();
  }, 90_000);
});
