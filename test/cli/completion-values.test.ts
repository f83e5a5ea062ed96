/**
 * Completion of the repo's own values (spec/cli.md, "Completion"): the bash script, sourced in a real bash with
 * COMP_WORDS set as bash sets them, completes entry ids, tags (also in a comma list), hosts (never a forbidden
 * one), link rels and targets, resolve sides and shells, from the repo the line's --data names (or GIT_KB_DATA),
 * by asking the hidden `git-kb __complete`; with no repo it offers nothing and prints nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kb, makeSandbox, ROOT, run, type Sandbox } from '../helpers/cli.js';
import { addEntry, initRepo, kbj } from './support.js';

let sb: Sandbox;
let script: string;
let older: string;
let newer: string;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  older = (await addEntry(sb, { title: 'Use pnpm', tags: 'js,tooling', body: 'Strict.' })).id;
  newer = (await addEntry(sb, { type: 'lesson_learned', title: 'Flaky tests shared a port', tags: 'ci,testing,tooling', body: 'Port 0.' })).id;
  await kbj(sb, ['host', 'register', 'pop-os', '--marker', '192.168.1.20']);
  await kbj(sb, ['host', 'register', 'secret-box', '--marker', '10.9.9.9', '--forbidden']);
  script = path.join(sb.root, 'git-kb.bash');
  fs.writeFileSync(script, (await kb(sb, ['completion', 'bash'])).stdout);
});
afterAll(() => sb.cleanup());

/** COMPREPLY for each line of words (the last word is the one being completed), in one real bash. */
const both = (prefix = ''): string => [newer, older].map((x) => prefix + x).sort().join(' ');
/** Candidates in a stable order (ids minted in one second have no order between them). */
const sorted = (line: string): string => line.split(' ').sort().join(' ');

async function complete(lines: string[][], env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const probe = (words: string[]): string =>
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; COMPREPLY=(); _git-kb; echo "\${COMPREPLY[*]}"`;
  const r = await run('bash', ['--norc', '--noprofile', '-c', [`source '${script}'`, ...lines.map(probe)].join('\n')], {
    env: { ...sb.env, PATH: `${path.join(ROOT, 'bin')}:${sb.env.PATH}`, ...env },
  });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return r.stdout.split('\n').slice(0, lines.length).map(sorted);
}

describe('bash completion of values', () => {
  it('completes ids, tags, tag lists, hosts and rel:id links from the --data repo', async () => {
    const d = ['git-kb', '--data', sb.data];
    const got = await complete([
      [...d, 'get', ''],
      [...d, 'get', newer.slice(0, 9)],
      [...d, 'get', older, ''],
      [...d, 'edit', older, ''],
      [...d, 'list', '--tag', 't'],
      [...d, 'add', '--tags', 'ci,t'],
      [...d, 'search', '--host', ''],
      [...d, 'host', 'load', ''],
      [...d, 'add', '--link', 'sup'],
      [...d, 'add', '--link', 'relates_to', ':', ''],
      [...d, 'add', '--link', 'relates_to', ':'],
      [...d, 'edit', newer, '--unlink', ''],
      [...d, 'resolve', '--keep', 'th'],
      [...d, 'compact', 'check', 'h'],
      ['git-kb', 'completion', 'z'],
      [...d, 'add', '--type', 'les'],
    ]);
    expect(got[0]).toBe(both());
    expect(got[1]).toBe(newer.slice(0, 9) === older.slice(0, 9) ? both() : newer);
    expect(got[2]).toBe(both());
    expect(got[3]).not.toContain('kb-');
    expect(got[4]).toBe('testing tooling');
    expect(got[5]).toBe('ci,testing ci,tooling');
    expect(got[6]).toBe('pop-os');
    expect(got[7]).toBe('pop-os');
    expect(got[8]).toBe('supersedes:');
    expect(got[9]).toBe(both());
    expect(got[10]).toBe(both(':'));
    expect(got[11]).toBe(both());
    expect(got[12]).toBe('theirs');
    expect(got[13]).toBe('host:pop-os');
    expect(got[14]).toBe('zsh');
    expect(got[15]).toBe('lesson_learned');
  });

  it('reads the repo GIT_KB_DATA names; offers nothing, silently, with no repo', async () => {
    expect(await complete([['git-kb', 'get', '']], { GIT_KB_DATA: sb.data })).toEqual([both()]);
    expect(await complete([['git-kb', '--data', path.join(sb.root, 'none'), 'get', ''], ['git-kb', 'list', '--tag', '']], { GIT_KB_DATA: path.join(sb.root, 'none') })).toEqual(['', '']);
    const r = await kb(sb, ['--data', path.join(sb.root, 'none'), '__complete', 'ids', '']);
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('offers only tags in written form: a hand-written tag holding a command substitution never reaches the line', async () => {
    const other = makeSandbox();
    try {
      await initRepo(other);
      const { path: file } = await addEntry(other, { title: 'Shared note', tags: 'shared' });
      const full = path.join(other.data, file);
      const planted = path.join(other.root, 'PWNED');
      fs.writeFileSync(full, fs.readFileSync(full, 'utf8').replace(/^tags:.*$/m, `tags: ["$(touch ${planted})", shared]`));
      const r = await kb(other, ['--data', other.data, '__complete', 'tags', '']);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('shared\t1 entry\n');
      const bash = await run('bash', ['--norc', '--noprofile', '-c', `source '${script}'; COMP_WORDS=(git-kb --data '${other.data}' list --tag ''); COMP_CWORD=5; COMPREPLY=(); _git-kb; echo "\${COMPREPLY[*]}"`], {
        env: { ...other.env, PATH: `${path.join(ROOT, 'bin')}:${other.env.PATH}` },
      });
      expect(bash.stdout.trim()).toBe('shared');
      expect(fs.existsSync(planted)).toBe(false);
    } finally {
      other.cleanup();
    }
  });

  it('is hidden: not in help, not offered as a verb', async () => {
    expect((await kb(sb, ['--help'])).stdout).not.toContain('__complete');
    expect((await complete([['git-kb', '_']]))[0]).toBe('');
  });
});

describe('zsh and fish scripts', () => {
  it('ask git-kb __complete for the same values', async () => {
    const zsh = (await kb(sb, ['completion', 'zsh'])).stdout;
    expect(zsh).toContain('__complete $1 $2');
    expect(zsh).toMatch(/--tag\|--add-tag\|--remove-tag\) _git_kb_values tags/);
    expect(zsh).toMatch(/ get\) opts=\([^)]*\); kind=ids many=1;/);
    const fish = (await kb(sb, ['completion', 'fish'])).stdout;
    expect(fish).toContain("-l tag -x -a '(__git_kb_values tags)'");
    expect(fish).toContain("complete -c git-kb -n '__fish_seen_subcommand_from get' -x -a '(__git_kb_values ids)'");
    expect(fish).not.toContain('__complete -d');
  });
});

const has = (shell: string): boolean => fs.existsSync(`/usr/bin/${shell}`) || fs.existsSync(`/bin/${shell}`);

describe.skipIf(!has('zsh'))('zsh completion of values, in a real zsh', () => {
  it('hands compadd the ids, tags and links git-kb __complete gives', async () => {
    const file = path.join(sb.root, 'git-kb.zsh');
    fs.writeFileSync(file, (await kb(sb, ['completion', 'zsh'])).stdout);
    const probe = (w: string[]): string => `words=(${w.map((x) => `'${x}'`).join(' ')}); CURRENT=${w.length}; _git-kb`;
    const r = await run('zsh', ['-f', '-c', [`compadd() { print -r -- "$*" }; _files() { print -r -- _files }; source '${file}'`, probe(['git-kb', '--data', sb.data, 'get', '']), probe(['git-kb', '--data', sb.data, 'list', '--tag', 'ci']), probe(['git-kb', '--data', sb.data, 'add', '--link', 'mentions:'])].join('\n')], {
      env: { ...sb.env, PATH: `${path.join(ROOT, 'bin')}:${sb.env.PATH}` },
    });
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n').slice(0, 3).map(sorted)).toEqual([sorted(`-l -d descs -- ${both()}`), sorted('-l -d descs -- ci'), sorted(`-l -d descs -- ${both('mentions:')}`)]);
  });
});

describe.skipIf(!has('fish'))('fish completion of values, in a real fish', () => {
  it('completes ids with their titles, tags and hosts (complete -C)', async () => {
    const file = path.join(sb.root, 'git-kb.fish');
    fs.writeFileSync(file, (await kb(sb, ['completion', 'fish'])).stdout);
    const r = await run('fish', ['--no-config', '-c', `source '${file}'; complete -C "git-kb --data ${sb.data} get "; echo ---; complete -C "git-kb --data ${sb.data} search --host "`], {
      env: { ...sb.env, PATH: `${path.join(ROOT, 'bin')}:${sb.env.PATH}` },
    });
    expect(r.stderr).toBe('');
    const [ids, hosts] = r.stdout.split('---\n');
    expect(ids!.trim().split('\n').sort()).toEqual([`${newer}\tFlaky tests shared a port`, `${older}\tUse pnpm`].sort());
    expect(hosts!.trim()).toMatch(/^pop-os(\t[^\n]*)?$/);
  });
});
