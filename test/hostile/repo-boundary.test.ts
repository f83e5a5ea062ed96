/**
 * Hostile battery (issue 16), where git-kb writes (F3, F24, F14, F23): the session hooks and their worker must
 * never commit into a repo the CLI refuses; a code repo with an entries/, hosts/ or sessions/ folder is not a
 * data repo; an entry folder that is a symlink out of the repo is refused; a symlinked settings.json stays one.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, kb, makeSandbox, ROOT, run, type RunResult, type Sandbox } from '../helpers/cli.js';
import { waitFor } from './support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-hbound-');
});
afterEach(() => sb.cleanup());

const TRANSCRIPT = path.join(ROOT, 'test', 'fixtures', 'transcripts', 'coding-session.jsonl');
const EVENTS = { stop: 'Stop', precompact: 'PreCompact', 'session-end': 'SessionEnd' } as const;

/** The command hooks/hooks.json wires for an event. */
function command(event: string): string {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  return config.hooks[event]![0]!.hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
}

/** Runs a session hook as Claude Code does (`sh -c`, JSON on stdin). */
function runHook(ev: keyof typeof EVENTS, env: NodeJS.ProcessEnv, sessionId: string): Promise<RunResult> {
  const payload = { session_id: sessionId, transcript_path: TRANSCRIPT, cwd: '/home/dana/src/invoice-api', hook_event_name: EVENTS[ev], reason: 'prompt_input_exit' };
  return run('sh', ['-c', command(EVENTS[ev])], { env: { ...sb.env, ...env }, input: JSON.stringify(payload), timeoutMs: 30_000 });
}

/** A code repo: `git init` and one empty commit. */
async function codeRepo(name: string): Promise<string> {
  const dir = path.join(sb.root, name);
  fs.mkdirSync(dir, { recursive: true });
  await git(dir, ['init', '-q', '-b', 'main'], sb.env);
  await git(dir, ['commit', '-q', '--allow-empty', '-m', 'code'], sb.env);
  return dir;
}

const commits = async (dir: string): Promise<number> => Number((await git(dir, ['rev-list', '--count', '--all'], sb.env)).trim());

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('F3: session hooks and a repo the CLI refuses', () => {
  for (const ev of Object.keys(EVENTS) as (keyof typeof EVENTS)[]) {
    for (const via of ['GIT_KB_DATA', 'config'] as const) {
      it(`F3: ${EVENTS[ev]} (data repo named by ${via}) commits nothing into a plain code repo`, async () => {
        const c = await codeRepo(`code-${ev}`);
        // The CLI refuses it.
        const refused = await kb(sb, ['--data', c, 'list']);
        expect(refused.code).toBe(3);
        const env: NodeJS.ProcessEnv = {};
        if (via === 'GIT_KB_DATA') env.GIT_KB_DATA = c;
        else {
          fs.mkdirSync(path.join(sb.home, '.config', 'git-kb'), { recursive: true });
          fs.writeFileSync(path.join(sb.home, '.config', 'git-kb', 'config.json'), JSON.stringify({ data_dir: c }));
        }
        const debug = path.join(sb.root, 'debug.jsonl');
        Object.assign(env, { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debug, KB_SESSION_DEBOUNCE_S: '0' });
        const r = await runHook(ev, env, `sess-f3-${ev}`);
        expect([r.code, r.stdout]).toEqual([0, '']);
        // SessionEnd hands the write to a detached worker: wait for it to end.
        const pids = fs.existsSync(debug)
          ? fs.readFileSync(debug, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { pid?: number }).pid).filter((p): p is number => typeof p === 'number')
          : [];
        await waitFor(() => pids.every((p) => !alive(p)), 20_000);
        expect(await commits(c), `${EVENTS[ev]} committed into the code repo`).toBe(1);
        expect(fs.existsSync(path.join(c, 'sessions')), 'a sessions/ folder appeared in the code repo').toBe(false);
        expect((await git(c, ['status', '--porcelain'], sb.env)).trim()).toBe('');
      });
    }
  }
});

describe('F3: the SessionEnd worker and a code repo with a sessions/ folder', () => {
  it('F3: SessionEnd\'s worker commits no summary into a code repo that merely has a sessions/ folder (no kb.json)', async () => {
    // A plain code repo is refused by the worker (it is the CLI); one with an app's sessions/ module is not (F24),
    // so the worker commits into it.
    const c = await codeRepo('code-app');
    fs.mkdirSync(path.join(c, 'sessions'));
    fs.writeFileSync(path.join(c, 'sessions', 'store.ts'), 'export const sessions = new Map<string, string>();\n');
    await git(c, ['add', '-A'], sb.env);
    await git(c, ['commit', '-q', '-m', 'session store'], sb.env);
    const debug = path.join(sb.root, 'debug.jsonl');
    const r = await runHook('session-end', { GIT_KB_DATA: c, KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debug }, 'sess-f3-app');
    expect([r.code, r.stdout]).toEqual([0, '']);
    const pids = fs.existsSync(debug)
      ? fs.readFileSync(debug, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { pid?: number }).pid).filter((p): p is number => typeof p === 'number')
      : [];
    await waitFor(() => pids.every((p) => !alive(p)), 20_000);
    expect(await commits(c), 'the SessionEnd worker committed into the code repo').toBe(2);
    expect((await git(c, ['status', '--porcelain'], sb.env)).trim()).toBe('');
  });
});

describe('F24: an entries/, hosts/ or sessions/ folder does not make a data repo', () => {
  for (const folder of ['entries', 'hosts', 'sessions']) {
    it(`F24: a code repo with a ${folder}/ folder and no kb.json is refused like any code repo`, async () => {
      const c = await codeRepo(`code-${folder}`);
      fs.mkdirSync(path.join(c, folder), { recursive: true });
      fs.writeFileSync(path.join(c, folder, 'README.md'), `# ${folder}\n\nPart of the application, not a knowledge base.\n`);
      await git(c, ['add', '-A'], sb.env);
      await git(c, ['commit', '-q', '-m', `add ${folder}`], sb.env);
      const add = await kb(sb, ['--data', c, 'add', '--type', 'decision', '--title', 'Should not land here', '--', 'A body.']);
      expect(add.code, `add: ${add.stdout}${add.stderr}`).toBe(3);
      expect(add.stderr).toMatch(/not a git-kb data repo/);
      const list = await kb(sb, ['--data', c, 'list']);
      expect(list.code, `list: ${list.stdout}${list.stderr}`).toBe(3);
      expect(await commits(c)).toBe(2);
      expect((await git(c, ['status', '--porcelain'], sb.env)).trim()).toBe('');
    });
  }
});

describe('F14: an entry folder that is a symlink out of the data repo', () => {
  it('F14: add refuses when entries/ is a symlink out of the repo, and writes nothing outside', async () => {
    expect((await kb(sb, ['--data', sb.data, 'init'])).code).toBe(0);
    const outside = path.join(sb.root, 'outside');
    fs.mkdirSync(outside);
    fs.rmSync(path.join(sb.data, 'entries'), { recursive: true, force: true });
    fs.symlinkSync(outside, path.join(sb.data, 'entries'));
    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    const r = await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Through the symlink', '--', 'body']);
    expect(fs.readdirSync(outside), 'files written outside the data repo').toEqual([]);
    expect(r.code, `add exited ${r.code}: ${r.stdout}`).not.toBe(0);
    expect(r.stderr).toMatch(/symlink|symbolic link|outside/i);
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
  });

  it('F14: host add refuses when hosts/<key> is a symlink out of the repo, and writes nothing outside', async () => {
    expect((await kb(sb, ['--data', sb.data, 'host', 'register', 'pop-os', '--marker', '192.168.1.20'])).code).toBe(0);
    const outside = path.join(sb.root, 'outside-host');
    fs.mkdirSync(outside);
    fs.mkdirSync(path.join(sb.data, 'hosts'), { recursive: true });
    fs.rmSync(path.join(sb.data, 'hosts', 'pop-os'), { recursive: true, force: true });
    fs.symlinkSync(outside, path.join(sb.data, 'hosts', 'pop-os'));
    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    const r = await kb(sb, ['--data', sb.data, 'host', 'add', 'pop-os', 'nginx serves the gallery from /srv/gallery']);
    expect(fs.readdirSync(outside), 'files written outside the data repo').toEqual([]);
    expect(r.code, `host add exited ${r.code}: ${r.stdout}`).not.toBe(0);
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
  });
});

describe('F23: a symlinked ~/.claude/settings.json', () => {
  it('F23: install keeps the symlink (the target gets the hooks) and uninstall restores the target byte for byte', async () => {
    const dotfiles = path.join(sb.home, 'dotfiles');
    const claude = path.join(sb.home, '.claude');
    fs.mkdirSync(dotfiles, { recursive: true });
    fs.mkdirSync(claude, { recursive: true });
    const target = path.join(dotfiles, 'claude-settings.json');
    const original = '{\n  "theme": "dark",\n  "permissions": { "allow": ["Bash(ls:*)"] }\n}\n';
    fs.writeFileSync(target, original);
    const link = path.join(claude, 'settings.json');
    fs.symlinkSync('../dotfiles/claude-settings.json', link);
    const ins = await kb(sb, ['install']);
    expect(ins.code, ins.stderr).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink(), 'settings.json is still a symlink after install').toBe(true);
    expect(fs.readFileSync(target, 'utf8'), 'the target holds the hooks').toContain('git-kb-hook');
    const un = await kb(sb, ['uninstall']);
    expect(un.code, un.stderr).toBe(0);
    expect(fs.lstatSync(link).isSymbolicLink(), 'settings.json is still a symlink after uninstall').toBe(true);
    expect(fs.readFileSync(target, 'utf8'), 'the target after uninstall').toBe(original);
  });
});
