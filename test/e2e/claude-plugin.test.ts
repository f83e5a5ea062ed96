/**
 * The plugin installed as users install it, with the real Claude Code CLI: this checkout (dist/ included, no
 * node_modules) pushed to a bare repository served over git smart HTTP on loopback, `claude plugin marketplace
 * add URL`, `claude plugin install git-kb@git-kb`, then a prompt: the kernel entry and a pointer to the matching
 * note reach the model's request. Again after a new commit (a new version) is pushed and the plugin updated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, kb, ROOT } from '../helpers/cli.js';
import { lastToolResults } from '../helpers/model-api.js';
import { startGitServer, type GitServer } from '../helpers/git-server.js';
import type { ModelApi } from '../helpers/model-api.js';
import {
  claude,
  contextsOf,
  converse,
  installed,
  installPlugin,
  KERNEL_BODY,
  makeClaudeSandbox,
  POSTGRES_PROMPT,
  prompt,
  PLUGIN,
  publishPlugin,
  removeSandbox,
  seedDataRepo,
  startStandIn,
  type ClaudeSandbox,
  type Seeded,
} from './claude-support.js';

let api: ModelApi;
let server: GitServer;
let sb: ClaudeSandbox;
let seeded: Seeded;
let repo: { work: string; url: string };

beforeAll(async () => {
  api = await startStandIn();
  server = await startGitServer();
  sb = makeClaudeSandbox(api, 'gkb-cc-plugin-');
  seeded = await seedDataRepo(sb);
  repo = await publishPlugin(server, sb);
}, 60_000);
afterAll(async () => {
  await api?.stop();
  await server?.stop();
  await removeSandbox(sb);
});

/** Asserts that the one main request of the last prompt carries the kernel body and a pointer to the postgres note. */
function expectKernelAndPointer(): void {
  const main = api.mainRequests();
  expect(main).toHaveLength(1);
  const contexts = contextsOf(main[0]!);
  expect(contexts).toHaveLength(1);
  expect(contexts[0]).toContain(KERNEL_BODY);
  expect(contexts[0]).toContain(`- ${seeded.notes.postgres} — Postgres autovacuum tuning for large tables`);
  expect(contexts[0]).toContain('git-kb get');
  for (const other of ['kubernetes', 'redis', 'terraform', 'flamegraph']) expect(contexts[0]).not.toContain(seeded.notes[other]!);
}

describe('installed from a marketplace over git smart HTTP', () => {
  it('validates with no warning, installs with its two commands, and runs its hooks from the copy', async () => {
    const validate = await claude(sb, ['plugin', 'validate', repo.work, '--strict']);
    expect(validate.code, validate.stdout).toBe(0);
    expect(validate.stdout).not.toMatch(/⚠|warning/i);
    // bin/ holds the two commands and nothing else: every file there is one of the plugin's commands
    expect([...validate.stdout.matchAll(/❯ bin: (.+)$/gm)].map((m) => m[1])).toEqual(['git-kb', 'git-kb-hook']);

    await installPlugin(sb, repo.url);
    const copy = installed(sb);
    expect(copy.version).toBe((JSON.parse(fs.readFileSync(path.join(ROOT, '.claude-plugin', 'plugin.json'), 'utf8')) as { version: string }).version);
    expect(copy.gitCommitSha).toBe((await git(repo.work, ['rev-parse', 'HEAD'])).trim());
    // The copy is the repository as committed: the built bundle, and nothing installed or built there.
    expect(fs.existsSync(path.join(copy.installPath, 'dist', 'hook.cjs'))).toBe(true);
    expect(fs.existsSync(path.join(copy.installPath, 'node_modules'))).toBe(false);
    const list = await claude(sb, ['plugin', 'list']);
    expect(list.stdout).toContain(PLUGIN);
    expect(list.stdout).not.toMatch(/not installed|may not work/);

    converse(api, ['Lower the scale factor.']);
    api.reset();
    const r = await prompt(sb, POSTGRES_PROMPT);
    expect(r.json.result).toBe('Lower the scale factor.');
    expectKernelAndPointer();
  }, 90_000);

  it('after a new version is pushed and the plugin updated, runs from the new version folder', async () => {
    const before = installed(sb);
    const manifest = path.join(repo.work, '.claude-plugin', 'plugin.json');
    const plugin = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { version: string };
    const [major, minor, patch] = plugin.version.split(/[.+-]/).map(Number) as [number, number, number];
    plugin.version = `${major}.${minor}.${patch + 1}`;
    fs.writeFileSync(manifest, `${JSON.stringify(plugin, null, 2)}\n`);
    fs.appendFileSync(path.join(repo.work, 'README.md'), '\nA release made by the real-client suite.\n');
    await git(repo.work, ['commit', '-q', '-am', `release ${plugin.version}`], sb.env);
    await git(repo.work, ['push', '-q', repo.url, 'main'], sb.env);

    const refresh = await claude(sb, ['plugin', 'marketplace', 'update', 'git-kb']);
    expect(refresh.code, refresh.stdout + refresh.stderr).toBe(0);
    const update = await claude(sb, ['plugin', 'update', PLUGIN]);
    expect(update.code, update.stdout + update.stderr).toBe(0);
    const after = installed(sb);
    expect(after.version).toBe(plugin.version);
    expect(after.installPath).not.toBe(before.installPath);
    expect(fs.readFileSync(path.join(after.installPath, 'README.md'), 'utf8')).toContain('A release made by the real-client suite.');
    // Only the new folder can answer now.
    fs.rmSync(before.installPath, { recursive: true, force: true });

    converse(api, ['Lower the scale factor.']);
    api.reset();
    await prompt(sb, POSTGRES_PROMPT);
    expectKernelAndPointer();
  }, 90_000);
});

describe('a fresh HOME: the plugin and no data repo yet', () => {
  it('the first prompt of a session tells the model how to start, the second does not; /git-kb init, a note, then a pointer', async () => {
    const fresh = makeClaudeSandbox(api, 'gkb-cc-fresh-');
    const env = { GIT_KB_DATA: '' }; // the default data repo, ~/.git-kb/data, which does not exist yet
    const hint = 'git-kb: no knowledge base yet (no data repo at ~/.git-kb/data); `/git-kb init` (or `git-kb init` in a shell) starts one, and the first `git-kb add` creates it there too.';
    try {
      await installPlugin(fresh, repo.url);
      converse(api, ['Nothing saved yet.']);
      api.reset();
      const first = await prompt(fresh, POSTGRES_PROMPT, [], { env });
      const firstContexts = contextsOf(api.mainRequests()[0]!);
      expect(firstContexts).toHaveLength(1);
      expect(firstContexts[0]).toContain(hint);

      converse(api, ['Still nothing.']);
      api.reset();
      await prompt(fresh, 'Which autovacuum settings matter most for postgres tables with many rows?', ['--resume', first.json.session_id!], { env });
      const again = contextsOf(api.mainRequests()[0]!);
      expect(again).toHaveLength(1); // the first turn's, replayed from the transcript; no new one
      expect(again[0]).toContain(hint);

      converse(api, [{ tool: 'Bash', input: { command: 'git-kb init', description: 'Start the knowledge base' } }, 'Started.']);
      api.reset();
      const init = await prompt(fresh, '/git-kb init', [], { env });
      expect(init.json.permission_denials).toEqual([]);
      const [ran] = lastToolResults(api.mainRequests().at(-1)!);
      expect(ran!.is_error, ran!.text).toBeFalsy();
      expect(fs.existsSync(path.join(fresh.home, '.git-kb', 'data', 'kb.json'))).toBe(true);

      const add = await kb(fresh, ['add', '--type', 'decision', '--title', 'Postgres autovacuum tuning for large tables', 'Lower autovacuum_vacuum_scale_factor for tables with large row counts.']);
      expect(add.code, add.stderr).toBe(0);
      const id = add.stdout.trim();
      converse(api, ['Lower the scale factor.']);
      api.reset();
      await prompt(fresh, POSTGRES_PROMPT, [], { env });
      const after = contextsOf(api.mainRequests()[0]!);
      expect(after).toHaveLength(1);
      expect(after[0]).toContain(`- ${id} — Postgres autovacuum tuning for large tables`);
      expect(after[0]).not.toContain('no knowledge base yet');

      // doctor runs the plugin's own hook commands (from its installed copy): all pass; with the copy gone, it says so
      const doctor = async (): Promise<{ code: number; checks: Record<string, { status: string; detail: string; fix?: string }> }> => {
        const r = await kb(fresh, ['doctor', '--json']);
        return { code: r.code, checks: Object.fromEntries((JSON.parse(r.stdout) as { checks: { name: string; status: string; detail: string }[] }).checks.map((c) => [c.name, c])) };
      };
      const healthy = await doctor();
      expect(healthy.code, JSON.stringify(healthy.checks)).toBe(0);
      expect(healthy.checks.hooks).toMatchObject({ status: 'ok', detail: `the plugin ${PLUGIN}` });
      expect(healthy.checks['hook-run']).toMatchObject({ status: 'ok', detail: '6 hook commands ran and exited 0' });
      fs.rmSync(installed(fresh).installPath, { recursive: true, force: true });
      const broken = await doctor();
      expect(broken.code).toBe(7);
      expect(broken.checks['hook-run']).toMatchObject({ status: 'fail', fix: `run "claude plugin uninstall ${PLUGIN} && claude plugin install ${PLUGIN}"` });
      expect(broken.checks['hook-run']!.detail).toContain(`the folder of ${PLUGIN}, ${installed(fresh).installPath}, is gone`);
      // the fix, as printed
      for (const step of [['plugin', 'uninstall', PLUGIN], ['plugin', 'install', PLUGIN]]) {
        const r = await claude(fresh, step);
        expect(r.code, r.stdout + r.stderr).toBe(0);
      }
      const fixed = await doctor();
      expect([fixed.code, fixed.checks['hook-run']!.status]).toEqual([0, 'ok']);
    } finally {
      await removeSandbox(fresh);
    }
  }, 180_000);
});
