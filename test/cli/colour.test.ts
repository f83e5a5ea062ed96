/**
 * Colour where git and gh use it (spec/cli.md, "Colour"), seen as a person sees it: the CLI run under a real
 * pseudo-terminal (util-linux `script`). Diffs, ids and `error:` are coloured on a terminal; nothing is with
 * NO_COLOR, --no-color, FORCE_COLOR=0, in a pipe, or with --json; FORCE_COLOR colours a pipe; each stream decides
 * for itself; and text from an entry can never bring its own colour or forge a colour mark.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, kb, makeSandbox, run, type Sandbox } from '../helpers/cli.js';
import { addEntry, initRepo } from './support.js';

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const ESC = '\x1b[';
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
let sb: Sandbox;
let id: string;

/** Runs `git-kb ARGS` under a pseudo-terminal (stdout and stderr both a terminal unless `redirect` says otherwise). */
async function tty(args: string[], env: NodeJS.ProcessEnv = {}, redirect = ''): Promise<string> {
  const cmd = `${q(process.execPath)} ${q(CLI)} --data ${q(sb.data)} ${args.map(q).join(' ')}${redirect}`;
  const r = await run('script', ['-qec', cmd, '/dev/null'], { env: { ...sb.env, ...env } });
  return r.stdout.replace(/\r\n/g, '\n');
}

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  id = (await addEntry(sb, { type: 'decision', title: 'Use pnpm', tags: 'js', body: '# Why\n\nStrict node_modules.' })).id;
});
afterAll(() => sb.cleanup());

describe.skipIf(!hasScript)('on a terminal', () => {
  it('colours the edit diff as git does: removed red, added green, hunk header cyan', async () => {
    const out = await tty(['edit', id, '--add-tag', 'tooling']);
    expect(out).toContain(`${ESC}31m-tags: [js]${ESC}0m`);
    expect(out).toContain(`${ESC}32m+tags: [js, tooling]${ESC}0m`);
    expect(out).toMatch(/\x1b\[36m@@ -\d+,\d+ \+\d+,\d+ @@\x1b\[0m/);
  });

  it('colours ids in list, headings and keys in get, and the error prefix red on stderr', async () => {
    expect(await tty(['list'])).toContain(`${ESC}33m${id}${ESC}0m`);
    const got = await tty(['get', id]);
    expect(got).toContain(`${ESC}1m# Why${ESC}0m`);
    expect(got).toContain(`${ESC}36mtitle:${ESC}0m Use pnpm`);
    expect(await tty(['get', 'kb-nothere0'])).toContain(`git-kb: ${ESC}31merror:${ESC}0m`);
  });

  it('has no colour with NO_COLOR, --no-color, FORCE_COLOR=0 or TERM=dumb', async () => {
    for (const [args, env] of [[['list'], { NO_COLOR: '1' }], [['list', '--no-color'], {}], [['--no-color', 'get', 'kb-nothere0'], {}], [['list'], { FORCE_COLOR: '0' }], [['list'], { TERM: 'dumb' }]] as const) {
      const out = await tty([...args], env);
      expect(out, `${args.join(' ')} ${JSON.stringify(env)}`).toMatch(/kb-/);
      expect(out).not.toContain('\x1b');
    }
  });

  it('decides per stream: a redirected stream is plain while the other, on the terminal, is coloured', async () => {
    const file = `${sb.root}/out.txt`;
    expect(await tty(['get', 'kb-nothere0'], {}, ` > ${q(file)}`)).toContain(`${ESC}31merror:`);
    expect(await tty(['list'], {}, ` > ${q(file)}`)).toBe('');
    const r = await run('cat', [file]);
    expect(r.stdout).toContain(`${id}  `);
    expect(r.stdout).not.toContain('\x1b');
    expect(await tty(['get', 'kb-nothere0', '--data', `${sb.root}/none`], {}, ` 2> ${q(file)}`)).toBe('');
    expect((await run('cat', [file])).stdout).toMatch(/^git-kb: error: /);
  });

  it('never colours --json', async () => {
    const out = await tty(['list', '--json'], { FORCE_COLOR: '1' });
    expect(out).toContain(`"id": "${id}"`);
    expect(out).not.toContain('\x1b');
  });
});

describe('in a pipe', () => {
  it('has no colour, and no colour marks, unless FORCE_COLOR asks', async () => {
    const plain = await kb(sb, ['--data', sb.data, 'list']);
    expect(plain.stdout).toMatch(new RegExp(`^${id}  \\d{4}-\\d\\d-\\d\\d  decision`));
    expect(plain.stdout).not.toMatch(/[\x1b\ue000-\uf8ff]/);
    const err = await kb(sb, ['--data', sb.data, 'get', 'kb-nothere0']);
    expect(err.stderr).toMatch(/^git-kb: error: /);
    const forced = await kb(sb, ['--data', sb.data, 'list'], { env: { FORCE_COLOR: '1' } });
    expect(forced.stdout).toContain(`${ESC}33m${id}${ESC}0m`);
    const json = await kb(sb, ['--data', sb.data, 'list', '--json'], { env: { FORCE_COLOR: '1' } });
    expect(json.stdout).not.toContain('\x1b');
  });

  it('keeps text from an entry as text: its escapes are removed, private-use characters pass unchanged', async () => {
    const odd = 'Title \ue000\ue001 odd';
    const added = await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', odd, '--json', '--', 'Body \x1b[31mred\x1b[0m.']);
    expect(added.code, added.stderr).toBe(0);
    const newId = JSON.parse(added.stdout).id as string;
    const got = await kb(sb, ['--data', sb.data, 'get', newId], { env: { FORCE_COLOR: '1' } });
    expect(got.stdout).toContain(`${ESC}36mtitle:${ESC}0m ${odd}\n`);
    expect(got.stdout).toContain('Body red.');
  });
});
