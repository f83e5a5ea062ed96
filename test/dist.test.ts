/**
 * dist/ is committed (spec/plugin.md): the plugin is installed as the repository is committed, with no build
 * step. So a fresh build of the sources must give the committed dist/ byte for byte, with no file more or less
 * (no stale chunk), and that dist/ alone must run the CLI and the hooks from a copy with no node_modules.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { git, makeSandbox, ROOT, run } from './helpers/cli.js';
import { checkoutFiles } from './e2e/claude-support.js';

const execFileAsync = promisify(execFile);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-dist-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** The files under dist/ in git's index (what a commit holds), with their bytes. */
async function committedDist(): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  const listing = await git(ROOT, ['ls-files', '-s', '-z', '--', 'dist']);
  for (const line of listing.split('\0').filter(Boolean)) {
    const [meta, file] = line.split('\t') as [string, string];
    const sha = meta.split(' ')[1]!;
    const { stdout } = await execFileAsync('git', ['cat-file', 'blob', sha], { cwd: ROOT, encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 });
    out.set(file.slice('dist/'.length), stdout);
  }
  return out;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
}

describe('the committed dist/', () => {
  it('is what a fresh build of the sources gives, byte for byte, with no file more or less', async () => {
    const fresh = path.join(tmp, 'fresh');
    const r = await run(process.execPath, ['build.mjs', '--out', fresh], { cwd: ROOT, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const committed = await committedDist();
    const hint = 'dist/ in git differs from a fresh build: run `npm run bundle` and commit dist/ (spec/plugin.md)';
    expect([...committed.keys()].sort(), hint).toEqual(filesUnder(fresh));
    for (const f of filesUnder(fresh)) expect(committed.get(f)!.equals(fs.readFileSync(path.join(fresh, f))), `${hint}: ${f}`).toBe(true);
  }, 120_000);

  it('is not ignored by git, and only chunks kept from an earlier build are', async () => {
    await expect(git(ROOT, ['check-ignore', '-q', 'dist/cli.js'])).rejects.toThrow();
    const kept = fs.readFileSync(path.join(ROOT, 'dist', 'chunks', '.gitignore'), 'utf8');
    expect(kept.split('\n').slice(1, 3)).toEqual(['*', '!.gitignore']);
  });

  it('runs the CLI and the hooks from a copy of the repository with no node_modules', async () => {
    const copy = path.join(tmp, 'copy');
    for (const f of await checkoutFiles()) {
      fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
      fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
    }
    expect(fs.existsSync(path.join(copy, 'node_modules'))).toBe(false);
    expect(fs.existsSync(path.join(copy, 'dist', 'cli.js'))).toBe(true);
    const sb = makeSandbox('gkb-dist-run-');
    try {
      const cli = (...args: string[]) => run(process.execPath, [path.join(copy, 'bin', 'git-kb'), '--data', sb.data, ...args], { env: sb.env, cwd: sb.root });
      expect((await cli('init')).code).toBe(0);
      const kernel = await cli('add', '--kernel', '--type', 'pattern_convention', '--title', 'House style', '--', 'Plain English.');
      expect(kernel.code, kernel.stderr).toBe(0);
      const note = await cli('add', '--type', 'lesson_learned', '--title', 'Postgres autovacuum tuning', '--', 'Lower the scale factor on big tables.');
      expect(note.code, note.stderr).toBe(0);
      for (const n of ['kubernetes ingress timeouts', 'redis eviction policy', 'terraform state locking']) expect((await cli('add', '--type', 'lesson_learned', '--title', n, '--', `${n}.`)).code).toBe(0);
      const search = await cli('search', 'postgres autovacuum');
      expect(search.stdout).toContain(note.stdout.trim());
      expect((await cli('get', note.stdout.trim())).stdout).toContain('Lower the scale factor');
      expect((await cli('lint')).code).toBe(0);
      const hook = await run(process.execPath, [path.join(copy, 'bin', 'git-kb-hook'), 'prompt'], {
        env: { ...sb.env, GIT_KB_DATA: sb.data },
        input: JSON.stringify({ session_id: 's', transcript_path: '/none', cwd: sb.root, hook_event_name: 'UserPromptSubmit', prompt: 'How do I tune postgres autovacuum on big tables?' }),
      });
      expect(hook.code).toBe(0);
      const context = (JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
      expect(context).toContain('Plain English.');
      expect(context).toContain(`- ${note.stdout.trim()} — Postgres autovacuum tuning`);
    } finally {
      sb.cleanup();
    }
  }, 60_000);

  it('ships a plugin whose manifest, marketplace entry and package agree', () => {
    const plugin = JSON.parse(fs.readFileSync(path.join(ROOT, '.claude-plugin', 'plugin.json'), 'utf8')) as { name: string; version: string };
    const market = JSON.parse(fs.readFileSync(path.join(ROOT, '.claude-plugin', 'marketplace.json'), 'utf8')) as { name: string; plugins: Array<{ name: string; source: string }> };
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies?: object; files: string[] };
    expect(plugin.version).toBe(pkg.version);
    expect(market.plugins).toEqual([expect.objectContaining({ name: plugin.name, source: './' })]);
    // Claude Code installs the npm dependencies a plugin lists; git-kb's are bundled into dist/, so it lists none.
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.files).toContain('dist');
  });
});
