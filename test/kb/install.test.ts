/**
 * `git-kb install` / `git-kb uninstall`: the hooks of hooks/hooks.json wired into ~/.claude/settings.json with this
 * checkout's absolute path; idempotent; every other byte kept; uninstall after install gives the file back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editSettings, isOurCommand } from '../../src/app/install.js';
import { kb, makeSandbox, ROOT, run, type Sandbox } from '../helpers/cli.js';

const HOOKS_JSON = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { matcher?: string; hooks: { command: string }[] }[]> };

const USER_SETTINGS = `{
    "model": "opus",
    "permissions": { "allow": ["Bash(ls:*)"], "deny": [] },
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [ { "type": "command", "command": "~/bin/audit-bash.sh", "timeout": 5 } ]
            }
        ],
        "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]
    },
    "env": { "FOO": "bar" }
}
`;

let sb: Sandbox;
let settings: string;
beforeEach(() => {
  sb = makeSandbox('gkb-install-');
  settings = path.join(sb.home, '.claude', 'settings.json');
  fs.mkdirSync(path.dirname(settings), { recursive: true });
});
afterEach(() => sb.cleanup());

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string; json?: any }> {
  const r = await kb(sb, [...args, '--json']);
  return { ...r, json: r.code === 0 ? JSON.parse(r.stdout) : undefined };
}

function ourCommands(text: string): Record<string, string[]> {
  const parsed = JSON.parse(text) as { hooks?: Record<string, { hooks: { command: string }[] }[]> };
  const out: Record<string, string[]> = {};
  for (const [event, groups] of Object.entries(parsed.hooks ?? {})) {
    const mine = groups.flatMap((g) => g.hooks.map((h) => h.command)).filter(isOurCommand);
    if (mine.length) out[event] = mine;
  }
  return out;
}

describe('git-kb install / uninstall', () => {
  it('wires every hook of hooks/hooks.json with this checkout path, keeps the rest, and round-trips byte for byte', async () => {
    fs.writeFileSync(settings, USER_SETTINGS);
    const r = await cli(['install']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.changed).toBe(true);
    const after = fs.readFileSync(settings, 'utf8');
    const parsed = JSON.parse(after);
    // The user's settings and hooks are all still there.
    expect(parsed.model).toBe('opus');
    expect(parsed.env).toEqual({ FOO: 'bar' });
    expect(parsed.hooks.Stop[0]).toEqual({ hooks: [{ type: 'command', command: 'say done' }] });
    expect(parsed.hooks.PreToolUse[0].hooks[0].command).toBe('~/bin/audit-bash.sh');
    // Every event of hooks/hooks.json, with the same matcher, timeout and the absolute hook path.
    for (const [event, groups] of Object.entries(HOOKS_JSON.hooks)) {
      for (const g of groups) {
        const wired = (parsed.hooks[event] as { matcher?: string; hooks: { command: string; timeout?: number }[] }[]).find((x) => x.hooks.some((h) => isOurCommand(h.command)));
        expect(wired, event).toBeDefined();
        expect(wired!.matcher).toBe(g.matcher);
        expect(wired!.hooks[0]!.command).toBe(g.hooks[0]!.command.replace('${CLAUDE_PLUGIN_ROOT}', ROOT));
      }
    }
    // The user's text is untouched up to our insertion.
    expect(after.startsWith(USER_SETTINGS.slice(0, USER_SETTINGS.indexOf('            }\n        ],')))).toBe(true);

    const again = await cli(['install']);
    expect(again.json.changed).toBe(false);
    expect(fs.readFileSync(settings, 'utf8')).toBe(after);

    const un = await cli(['uninstall']);
    expect(un.code, un.stderr).toBe(0);
    expect(un.json.changed).toBe(true);
    expect(fs.readFileSync(settings, 'utf8')).toBe(USER_SETTINGS);
    expect((await cli(['uninstall'])).json.changed).toBe(false);
  });

  it('the installed prompt command runs the hook', async () => {
    await cli(['install']);
    const cmd = ourCommands(fs.readFileSync(settings, 'utf8')).UserPromptSubmit![0]!;
    const r = await run('sh', ['-c', cmd], { env: { ...sb.env, GIT_KB_DATA: path.join(sb.root, 'none') }, input: JSON.stringify({ session_id: 's', prompt: 'how do I squash my fixup commits before opening the PR?' }) });
    expect(r.code).toBe(0);
    // no data repo: the one line that says how to start (once a session; spec/hooks.md, "No data repo yet")
    expect(JSON.parse(r.stdout).hookSpecificOutput.additionalContext).toMatch(/^git-kb: no knowledge base yet .*`git-kb init` starts one/);
  });

  it('creates a missing settings file, and uninstall removes it again (nothing left but an empty object)', async () => {
    fs.rmSync(settings, { force: true });
    const r = await cli(['install']);
    expect(r.code, r.stderr).toBe(0);
    expect(Object.keys(ourCommands(fs.readFileSync(settings, 'utf8'))).sort()).toEqual(Object.keys(HOOKS_JSON.hooks).sort());
    await cli(['uninstall']);
    expect(fs.existsSync(settings)).toBe(false);
  });

  it('keeps CRLF line endings: the lines it adds end in CRLF too, and uninstall gives back the bytes', async () => {
    const original = '{\r\n  "model": "sonnet",\r\n  "hooks": {\r\n    "Stop": [\r\n      { "hooks": [{ "type": "command", "command": "echo mine" }] }\r\n    ]\r\n  }\r\n}\r\n';
    fs.writeFileSync(settings, original);
    expect((await cli(['install'])).code).toBe(0);
    const text = fs.readFileSync(settings, 'utf8');
    expect(text.split('\r\n').length).toBeGreaterThan(20);
    expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/); // no bare LF (nor CR) anywhere
    expect(Object.keys(ourCommands(text)).sort()).toEqual(Object.keys(HOOKS_JSON.hooks).sort());
    expect((await cli(['install'])).stdout).toContain('unchanged'); // idempotent on CRLF too
    await cli(['uninstall']);
    expect(fs.readFileSync(settings, 'utf8')).toBe(original);
  });

  it('round-trips compact one-line settings without a hooks key', async () => {
    const original = '{"model":"sonnet","env":{"A":"1"}}';
    fs.writeFileSync(settings, original);
    await cli(['install']);
    expect(JSON.parse(fs.readFileSync(settings, 'utf8')).model).toBe('sonnet');
    await cli(['uninstall']);
    expect(fs.readFileSync(settings, 'utf8')).toBe(original);
  });

  it('--dry-run shows the diff and writes nothing', async () => {
    fs.writeFileSync(settings, USER_SETTINGS);
    const before = fs.statSync(settings).mtimeMs;
    const r = await kb(sb, ['install', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+++ ');
    expect(r.stdout).toMatch(/^\+.*git-kb-hook\\" prompt/m);
    expect(r.stdout).toContain('nothing written');
    expect(fs.readFileSync(settings, 'utf8')).toBe(USER_SETTINGS);
    expect(fs.statSync(settings).mtimeMs).toBe(before);
    await cli(['install']);
    const installed = fs.readFileSync(settings, 'utf8');
    const un = await kb(sb, ['uninstall', '--dry-run']);
    expect(un.stdout).toMatch(/^-.*git-kb-hook\\" prompt/m);
    expect(fs.readFileSync(settings, 'utf8')).toBe(installed);
  });

  it('refuses a settings file that is not JSON, naming the line, and writes nothing', async () => {
    const broken = '{\n  "model": "opus",\n  "hooks": { oops }\n}\n';
    fs.writeFileSync(settings, broken);
    const r = await kb(sb, ['install']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${settings}:3`);
    expect(fs.readFileSync(settings, 'utf8')).toBe(broken);
  });

  it('replaces hooks wired from another checkout instead of adding a second copy', async () => {
    const old = JSON.stringify(
      { hooks: { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node "/old/place/git-kb/bin/git-kb-hook" prompt', timeout: 10 }] }] } },
      null,
      2,
    );
    fs.writeFileSync(settings, old);
    await cli(['install']);
    const mine = ourCommands(fs.readFileSync(settings, 'utf8'));
    expect(mine.UserPromptSubmit).toEqual([`node "${ROOT}/bin/git-kb-hook" prompt`]);
  });

  it('uninstall removes only our command from a group the user shares with us', async () => {
    const shared = `{
  "hooks": {
    "UserPromptSubmit": [
      {
        "hooks": [
          { "type": "command", "command": "node \\"/x/bin/git-kb-hook\\" prompt" },
          { "type": "command", "command": "my-own-hook --flag" }
        ]
      }
    ]
  }
}
`;
    fs.writeFileSync(settings, shared);
    await cli(['uninstall']);
    const parsed = JSON.parse(fs.readFileSync(settings, 'utf8'));
    expect(parsed.hooks.UserPromptSubmit).toEqual([{ hooks: [{ type: 'command', command: 'my-own-hook --flag' }] }]);
  });

  it('a path with quotes and dollars is quoted for the shell', () => {
    const { text } = editSettings('{}', { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node "/a \\"b\\" \\$c/bin/git-kb-hook" prompt' }] }] });
    expect(JSON.parse(text).hooks.UserPromptSubmit[0].hooks[0].command).toBe('node "/a \\"b\\" \\$c/bin/git-kb-hook" prompt');
    expect(isOurCommand('node "/a \\"b\\" \\$c/bin/git-kb-hook" prompt')).toBe(true);
    expect(isOurCommand('my-git-kb-hook-wrapper')).toBe(false);
    expect(isOurCommand('echo git-kb-hook')).toBe(false);
  });

  it('round-trips files with tabs, CRLF-free odd spacing and empty containers around ours', () => {
    const inputs = [
      '{\n\t"a": 1,\n\t"hooks": {\n\t\t"Stop": []\n\t}\n}\n',
      '{ "hooks" : { "PreToolUse" : [ { "matcher" : "Read", "hooks" : [ ] } ] } , "z" : [ ] }',
      '{\n  "hooks": {\n    "UserPromptSubmit": [\n      { "hooks": [ { "type": "command", "command": "other" } ] }\n    ]\n  }\n}',
    ];
    const desired = {
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node "/r/bin/git-kb-hook" prompt', timeout: 10 }] }],
      PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'node "/r/bin/git-kb-hook" pretool', timeout: 60 }] }],
    };
    for (const input of inputs) {
      const installed = editSettings(input, desired).text;
      expect(ourCommands(installed), input).toEqual({ UserPromptSubmit: ['node "/r/bin/git-kb-hook" prompt'], PreToolUse: ['node "/r/bin/git-kb-hook" pretool'] });
      expect(editSettings(installed, desired).text, input).toBe(installed);
      expect(editSettings(installed, undefined).text, input).toBe(input);
    }
  });
});

describe('git-kb install: the git-kb the pointers name, and the plugin', () => {
  /** The user's PATH: the shim folder, node's folder and the system folders; nothing of this checkout. */
  function userPath(): string {
    return [path.join(sb.home, '.local', 'bin'), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(path.delimiter);
  }

  it('after install, the "git-kb get" a hook pointer asks for runs in a shell with the user\'s PATH', async () => {
    const env = { ...sb.env, GIT_KB_DATA: sb.data, PATH: userPath() };
    const added = JSON.parse((await kb(sb, ['--data', sb.data, 'add', '--type', 'lesson_learned', '--title', 'Squash fixup commits with autosquash', '--tags', 'git', '--json', 'git rebase -i --autosquash main'])).stdout);
    for (const [title, body] of [['Redis eviction policy for the session cache', 'allkeys-lru'], ['Terraform state lives in the ops bucket', 's3 backend'], ['Flamegraphs with perf on the build box', 'perf record -g']]) {
      expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'factual_reference', '--title', title!, body!])).code).toBe(0);
    }
    const r = await kb(sb, ['install'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(path.join(sb.home, '.local', 'bin', 'git-kb'));
    expect(r.stdout).not.toContain('not on PATH');
    const cmd = ourCommands(fs.readFileSync(settings, 'utf8')).UserPromptSubmit![0]!;
    const hook = await run('sh', ['-c', cmd], { env, input: JSON.stringify({ session_id: 's', cwd: sb.root, prompt: 'how do I squash my fixup commits with autosquash before the PR?' }) });
    const context = JSON.parse(hook.stdout).hookSpecificOutput.additionalContext as string;
    expect(context).toContain(`- ${added.id} — `);
    const ask = /`git-kb get <id> \.\.\.`/.exec(context);
    expect(ask).not.toBeNull();
    const get = await run('sh', ['-c', `git-kb get ${added.id}`], { env, cwd: sb.root });
    expect([get.code, get.stderr]).toEqual([0, '']);
    expect(get.stdout).toContain('Squash fixup commits with autosquash');

    // Uninstall takes the shim away with the hooks; a git-kb that install did not write is never touched.
    expect((await kb(sb, ['uninstall'], { env })).code).toBe(0);
    expect(fs.existsSync(path.join(sb.home, '.local', 'bin', 'git-kb'))).toBe(false);
    fs.writeFileSync(path.join(sb.home, '.local', 'bin', 'git-kb'), '#!/bin/sh\necho mine\n', { mode: 0o755 });
    const again = JSON.parse((await kb(sb, ['install', '--json'], { env })).stdout);
    expect(again.cli).toMatchObject({ action: 'kept' });
    await kb(sb, ['uninstall'], { env });
    expect(fs.readFileSync(path.join(sb.home, '.local', 'bin', 'git-kb'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
  });

  it('says so when the shim folder is not on PATH', async () => {
    const r = await kb(sb, ['install', '--bin-dir', path.join(sb.root, 'elsewhere')], { env: { ...sb.env, PATH: '/usr/bin:/bin' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`${path.join(sb.root, 'elsewhere')} is not on PATH`);
    expect(fs.existsSync(path.join(sb.root, 'elsewhere', 'git-kb'))).toBe(true);
  });

  it('refuses to wire the hooks a second time when the git-kb plugin is installed (exit 4), unless --force', async () => {
    // What Claude Code 2.1.328 writes on "claude plugin install git-kb@git-kb" (test/e2e/claude-plugin.test.ts).
    const plugins = path.join(sb.home, '.claude', 'plugins', 'installed_plugins.json');
    fs.mkdirSync(path.dirname(plugins), { recursive: true });
    fs.writeFileSync(plugins, JSON.stringify({ version: 2, plugins: { 'git-kb@git-kb': [{ scope: 'user', installPath: path.join(sb.home, '.claude', 'plugins', 'cache', 'git-kb', 'git-kb', '2.0.0'), version: '2.0.0' }] } }));
    fs.writeFileSync(settings, USER_SETTINGS);
    const r = await kb(sb, ['install']);
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('git-kb plugin (git-kb@git-kb) is installed');
    expect(r.stderr).toContain('claude plugin uninstall git-kb@git-kb');
    expect(fs.readFileSync(settings, 'utf8')).toBe(USER_SETTINGS);
    expect(fs.existsSync(path.join(sb.home, '.local', 'bin', 'git-kb'))).toBe(false);

    const forced = await kb(sb, ['install', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('each hook runs twice');
    // uninstall removes the duplicate, giving the file back.
    expect((await kb(sb, ['uninstall'])).code).toBe(0);
    expect(fs.readFileSync(settings, 'utf8')).toBe(USER_SETTINGS);

    // A plugin the user disabled does not run: install wires the hooks.
    const disabled = USER_SETTINGS.replace('"model": "opus",', '"model": "opus",\n    "enabledPlugins": { "git-kb@git-kb": false },');
    fs.writeFileSync(settings, disabled);
    expect((await kb(sb, ['install'])).code).toBe(0);
  });
});
