/**
 * What a new user ran into (spec/cli.md): entries skipped by list, search and tags because they do not read are
 * said on stderr (and listed in --json as `unreadable`); search says how many more matched than it shows; an
 * entry cannot link to itself; verbs of other tools point at git-kb's; a YAML error names the line to fix.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitCount, initRepo, kbd, kbj, type Added } from './support.js';

let sb: Sandbox;
let pnpm: Added;
let broken: string;

beforeAll(async () => {
  sb = makeSandbox('gkb-rough-');
  await initRepo(sb);
  pnpm = await addEntry(sb, { type: 'decision', title: 'Use pnpm', body: 'pnpm is strict about hoisting.', tags: 'js' });
  await addEntry(sb, { type: 'decision', title: 'Use pnpm workspaces', body: 'pnpm workspaces for the monorepo.', tags: 'js' });
  for (let i = 1; i <= 13; i++) await addEntry(sb, { title: `Kafka note ${i}`, body: `kafka partitions, note ${i}` });
});
afterAll(() => sb.cleanup());

describe('entries that do not read', () => {
  it('list, search and tags say how many were skipped, on stderr, and in --json as unreadable', async () => {
    // warm every cache first, so the broken file is met by the cheap paths (summary, search delta, catalog)
    await kbd(sb, ['list']);
    await kbd(sb, ['search', 'pnpm']);
    await kbd(sb, ['tags']);
    broken = pnpm.path;
    const file = path.join(sb.data, broken);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^tags: \[js\]$/m, 'tags: [oops'));
    const line = `git-kb: warning: 1 entry could not be read and was skipped (${broken}); "git-kb lint" says why\n`;
    for (let round = 0; round < 2; round++) {
      // the second round is served from what the first stored
      const search = await kbd(sb, ['search', 'pnpm']);
      expect(search.code).toBe(0);
      expect(search.stdout).toContain('Use pnpm workspaces');
      expect(search.stderr).toBe(line);
      const list = await kbd(sb, ['list']);
      expect(list.stdout).not.toContain('Use pnpm\n');
      expect(list.stderr).toBe(line);
      const tags = await kbd(sb, ['tags']);
      expect(tags.stdout).toContain('js');
      expect(tags.stderr).toBe(line);
    }
    for (const args of [['list'], ['search', 'pnpm'], ['tags']]) {
      const r = await kbd(sb, ['--json', ...args]);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(JSON.parse(r.stdout).unreadable, args.join(' ')).toEqual([broken]);
    }
  });

  it('an edit of another entry (a patched summary) still says so', async () => {
    const other = (await kbj(sb, ['list'])).entries.find((e: { title: string }) => e.title === 'Kafka note 1');
    await kbj(sb, ['edit', other.id, '--append', 'More about kafka.']);
    const list = await kbd(sb, ['list']);
    expect(list.stderr).toContain('1 entry could not be read');
  });

  it('lint names the line that was broken, in a message that ends cleanly', async () => {
    const r = await kbd(sb, ['lint']);
    expect(r.code).toBe(5);
    // line 5 is "tags: [oops"; the YAML parser notices only at line 6 ("aliases:")
    expect(r.stdout).toContain(`${broken}:5: malformed YAML front matter: Flow sequence in block collection must be sufficiently indented and end with a ] [parse]`);
  });

  it('says nothing when every entry reads', async () => {
    const file = path.join(sb.data, broken);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^tags: \[oops$/m, 'tags: [js]'));
    for (const args of [['list'], ['search', 'pnpm'], ['tags']]) {
      const r = await kbd(sb, args);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(JSON.parse((await kbd(sb, ['--json', ...args])).stdout)).not.toHaveProperty('unreadable');
    }
  });
});

describe('search beyond its limit', () => {
  it('says how many more matched and the flag that shows them; --json has the total', async () => {
    const r = await kbd(sb, ['search', 'kafka']);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('... 3 more matched; --limit N shows more');
    expect((await kbd(sb, ['search', 'kafka', '--limit', '12'])).stdout).toContain('... 1 more matched;');
    expect((await kbd(sb, ['search', 'kafka', '--limit', '13'])).stdout).not.toContain('more matched');
    const j = await kbj(sb, ['search', 'kafka']);
    expect(j.results).toHaveLength(10);
    expect(j.total).toBe(13);
    expect((await kbj(sb, ['search', 'nothing-matches-this'])).total).toBe(0);
  });
});

describe('a link from an entry to itself', () => {
  it('edit --link to the entry itself is a usage error, nothing written', async () => {
    const before = await commitCount(sb);
    const r = await kbd(sb, ['edit', pnpm.id, '--link', `relates_to:${pnpm.id}`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--link "relates_to:${pnpm.id}": an entry cannot link to itself`);
    expect(await commitCount(sb)).toBe(before);
  });

  it('lint reports one written by hand', async () => {
    const file = path.join(sb.data, pnpm.path);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/^tags: \[js\]$/m, `tags: [js]\nlinks:\n  - rel: relates_to\n    to: ${pnpm.id}`));
    const r = await kbd(sb, ['lint']);
    expect(r.code).toBe(5);
    expect(r.stdout).toContain(`${pnpm.path}:6: link relates_to → ${pnpm.id}: an entry cannot link to itself`);
    expect(r.stdout).toContain('[link-self]');
    expect((await kbd(sb, ['edit', pnpm.id, '--unlink', pnpm.id])).code).toBe(0);
    expect((await kbd(sb, ['lint'])).code).toBe(0);
  });
});

describe('verbs of other tools', () => {
  it.each([
    ['find', 'search'],
    ['grep', 'search'],
    ['show', 'get'],
    ['cat', 'get'],
    ['ls', 'list'],
    ['rm', 'delete'],
    ['new', 'add'],
    ['version', '--version'],
  ])('%s points at %s', async (word, verb) => {
    const r = await kbd(sb, [word, 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`git-kb: error: unknown command '${word}' (did you mean "git-kb ${verb}"?); run "git-kb --help" for the verbs\n`);
  });

  it('other unknown verbs keep the suggestion by spelling', async () => {
    const r = await kbd(sb, ['serach', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(Did you mean search?)');
  });
});
