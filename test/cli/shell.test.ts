/**
 * Shell conventions: bare group verbs show their help (a usage error, exit 2), shell completion generated from
 * the command tree (the bash script sourced in a real bash), `list` limited on a terminal with --all, long
 * output paged through $PAGER on a terminal, local times with their offset, help that stands on its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, expectCleanRepo, kb, makeSandbox, run, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, initRepo, kbd, kbj, writeFile } from './support.js';

let sb: Sandbox;
let first: string;

/** Runs git-kb under `script`, so stdout is a terminal. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv = {}) {
  const cmd = [process.execPath, CLI, '--data', sb.data, ...args].map((a) => `'${a}'`).join(' ');
  return run('script', ['-qec', cmd, '/dev/null'], { env: { ...sb.env, ...env } });
}

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  first = (await addEntry(sb, { title: 'The first entry' })).id;
  // 60 more entries written by hand (fast), committed with git.
  for (let i = 0; i < 60; i++) {
    const id = `kb-${String(1000 + i)}`;
    writeFile(sb, `entries/${id}-note-${i}.md`, `---\nid: ${id}\ntitle: Note ${i}\ntype: factual_reference\ncreated: 2024-01-01T00:00:00Z\n---\n\nText ${i}.\n`);
  }
  await commitAll(sb, 'sixty notes');
});
afterAll(() => sb.cleanup());

describe('bare group verbs', () => {
  it.each(['host', 'session', 'compact'])('"git-kb %s" shows its subcommands on stderr and exits 2; --help exits 0 on stdout', async (group) => {
    const r = await kb(sb, [group]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`"git-kb ${group}" needs a subcommand`);
    expect(r.stderr).toMatch(/\nCommands:\n/);
    const h = await kb(sb, [group, '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/\nCommands:\n/);
    const u = await kb(sb, [group, 'bogus']);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain(`unknown command 'bogus'`);
  });

  it('help stands on its own: no verb points to spec/ files', async () => {
    const top = await kb(sb, ['--help']);
    expect(top.code).toBe(0);
    const verbs = [...top.stdout.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((m) => m[1]!).filter((v) => v !== 'help');
    expect(verbs).toEqual(expect.arrayContaining(['delete', 'tags', 'adopt', 'commit', 'completion']));
    for (const v of verbs) {
      const h = await kb(sb, [v, '--help']);
      expect(h.stdout, v).not.toMatch(/spec\/[a-z-]+\.md/);
    }
  });
});

describe('completion', () => {
  it('bash: sourced in a real bash, completes verbs, subcommands, flags and types; also for "git kb"', async () => {
    const script = await kb(sb, ['completion', 'bash']);
    expect(script.code).toBe(0);
    const file = path.join(sb.root, 'git-kb.bash');
    fs.writeFileSync(file, script.stdout);
    const probe = (words: string[], fn = '_git-kb'): string =>
      `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); ${fn}; echo "${words.join(' ')} => \${COMPREPLY[*]}"`;
    const bash = [
      `source '${file}'`,
      'complete -p git-kb',
      probe(['git-kb', 'de']),
      probe(['git-kb', 'host', '']),
      probe(['git-kb', '--data', '/x', 'list', '--a']),
      probe(['git-kb', 'add', '--type', 'dec']),
      probe(['git-kb', 'host', 'register', '--ma']),
      probe(['git', 'kb', 'ta'], '_git_kb'),
      `compgen -W "$(declare -f _git_kb_complete >/dev/null && echo ok)" o`,
    ].join('\n');
    const r = await run('bash', ['--norc', '--noprofile', '-c', bash]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('complete -o default -F _git-kb git-kb');
    expect(lines).toContain('git-kb de => delete');
    expect(lines.find((l) => l.startsWith('git-kb host  =>'))).toMatch(/=> register add load detect list status forbid/);
    expect(lines).toContain('git-kb --data /x list --a => --all');
    expect(lines).toContain('git-kb add --type dec => decision');
    expect(lines).toContain('git-kb host register --ma => --marker');
    expect(lines).toContain('git kb ta => tags');
    expect(lines).toContain('ok');
  });

  it('zsh and fish: scripts from the same tree (every verb, subcommands, flags); an unknown shell is a usage error', async () => {
    const zsh = (await kb(sb, ['completion', 'zsh'])).stdout;
    expect(zsh.split('\n')[0]).toBe('#compdef git-kb');
    expect(zsh).toContain("'delete'");
    expect(zsh).toMatch(/register\) opts=\([^)]*'--marker'/);
    const fish = (await kb(sb, ['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c git-kb -n '__fish_use_subcommand' -a adopt");
    expect(fish).toMatch(/__fish_seen_subcommand_from host; and __fish_seen_subcommand_from register' -l marker/);
    expect((await kb(sb, ['completion', 'tcsh'])).code).toBe(2);
  });
});

describe('list on a terminal, the pager, local times', () => {
  it('list shows 50 on a terminal with a footer; --all shows every entry; a pipe and --json get them all', async () => {
    const t = await onTerminal(['list'], { PAGER: 'cat', NO_COLOR: '1' });
    expect(t.code, t.stdout).toBe(0);
    const rows = t.stdout.trim().split(/\r?\n/);
    expect(rows.filter((l) => /^kb-/.test(l))).toHaveLength(50);
    expect(rows.at(-1)).toBe('... 11 more; git-kb list --all shows every entry (or --limit N)');
    const all = await onTerminal(['list', '--all'], { PAGER: 'cat', NO_COLOR: '1' });
    expect(all.stdout.trim().split(/\r?\n/).filter((l) => /^kb-/.test(l))).toHaveLength(61);
    const piped = await kbd(sb, ['list']);
    expect(piped.stdout.trim().split('\n')).toHaveLength(61);
    expect((await kbj(sb, ['list'])).entries).toHaveLength(61);
    expect((await kbd(sb, ['list', '--all', '--limit', '3'])).code).toBe(2);
  });

  it('long output on a terminal goes through $PAGER; short output and pipes do not', async () => {
    const pager = path.join(sb.root, 'pager.sh');
    fs.writeFileSync(pager, '#!/bin/sh\necho "[paged by the test pager]"\ncat\n', { mode: 0o755 });
    const long = await onTerminal(['list', '--all'], { PAGER: pager });
    expect(long.stdout).toContain('[paged by the test pager]');
    expect(long.stdout).toContain('Note 59');
    const short = await onTerminal(['list', '--limit', '2'], { PAGER: pager });
    expect(short.stdout).not.toContain('[paged by the test pager]');
    const piped = await kbd(sb, ['list', '--all'], { env: { PAGER: pager } });
    expect(piped.stdout).not.toContain('[paged by the test pager]');
  });

  it('history shows local times with the offset', async () => {
    const paris = await kbd(sb, ['history', first], { env: { TZ: 'Europe/Paris' } });
    expect(paris.stdout).toMatch(/^[0-9a-f]{12} {2}\d{4}-\d\d-\d\d \d\d:\d\d \+0100 {2}add /m);
    const ny = await kbd(sb, ['history', first], { env: { TZ: 'America/New_York' } });
    expect(ny.stdout).toMatch(/ -0500 {2}add /);
    const j = await kbj(sb, ['history', first]);
    expect(j.commits[0].date).toMatch(/Z$/);
    await expectCleanRepo(sb.data);
  });
});
