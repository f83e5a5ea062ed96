/**
 * Bad input: each refusal exits with its documented code (src/errors.ts: usage 2, not found 3, conflict 4,
 * invalid entry 5), names the problem and where it is, prints --json errors on stderr as
 * {"error":{"code","message"}}, and writes nothing. Broken files put in by hand never stop the other entries
 * from being served, and front matter is never evaluated.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/core/errors.js';
import { expectCleanRepo, kb, makeSandbox, type RunResult, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, entryText, expectUnchanged, initRepo, jsonError, kbd, kbj, snapshot, writeFile, type Added } from './support.js';

let sb: Sandbox;
let good: Added;
let other: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  good = await addEntry(sb, { type: 'decision', title: 'Healthy entry about otters', body: 'Otters hold hands.' });
  other = await addEntry(sb, { type: 'lesson_learned', title: 'Another healthy entry about beavers', body: 'Beavers build dams.' });
});
afterAll(() => sb.cleanup());

/** Runs a command that must fail: checks exit code, JSON error code, message, and that nothing was written. */
async function refuse(args: string[], code: keyof typeof EXIT_CODES, message: RegExp, options: { input?: string } = {}): Promise<RunResult> {
  const before = await snapshot(sb);
  const [r, human] = await Promise.all([kbd(sb, ['--json', ...args], options), kbd(sb, args, options)]);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(EXIT_CODES[code]);
  const e = jsonError(r);
  expect(e.code, args.join(' ')).toBe(code);
  expect(e.message, args.join(' ')).toMatch(message);
  expect(human.code).toBe(EXIT_CODES[code]);
  expect(human.stdout).toBe('');
  expect(human.stderr).toMatch(/^git-kb: error: /);
  await expectUnchanged(sb, before);
  return r;
}

// Every case here only reads or is refused, so they can run side by side.
describe.concurrent('refused writes', () => {
  it('documents the exit codes the tests rely on', () => {
    expect(EXIT_CODES).toMatchObject({ USAGE: 2, UNKNOWN_VERB: 2, UNKNOWN_OPTION: 2, NOT_FOUND: 3, NO_DATA_REPO: 3, CONFLICT: 4, INVALID_ENTRY: 5, SECRET_DETECTED: 5 });
  });

  it('unknown type: a bad flag value, a usage error (exit 2) like list, search, import and adopt', async () => {
    await refuse(['add', '--type', 'musing', '--title', 'x'], 'USAGE', /unknown --type "musing"; one of: factual_reference/);
    await refuse(['edit', good.id, '--type', 'musing'], 'USAGE', /unknown --type "musing"/);
  });

  it('unknown rel, and a link that is not rel:id', async () => {
    await refuse(['add', '--type', 'decision', '--title', 'x', '--link', `inspired_by:${good.id}`], 'USAGE', /unknown rel "inspired_by"; one of: relates_to/);
    await refuse(['edit', good.id, '--link', `inspired_by:${other.id}`], 'USAGE', /unknown rel "inspired_by"/);
    await refuse(['add', '--type', 'decision', '--title', 'x', '--link', good.id], 'USAGE', new RegExp(`--link "${good.id}" must be rel:id`));
  });

  it('dangling link, in a flag or as [[id]] in the body', async () => {
    await refuse(['add', '--type', 'decision', '--title', 'x', '--link', 'relates_to:kb-0999', '--', 'A body.'], 'INVALID_ENTRY', /\.md:\d+: link to missing entry kb-0999/);
    await refuse(['add', '--type', 'decision', '--title', 'x', '--', 'See [[kb-0998]].'], 'INVALID_ENTRY', /\.md:\d+: \[\[kb-0998\]\] in the body names a missing entry/);
    await refuse(['edit', good.id, '--append', 'See [[kb-0997]].'], 'INVALID_ENTRY', new RegExp(`${good.path}:\\d+: \\[\\[kb-0997\\]\\]`));
  });

  it('missing or empty title, missing type', async () => {
    await refuse(['add', '--type', 'decision', 'body only'], 'USAGE', /missing --title/);
    await refuse(['add', '--type', 'decision', '--title', '   '], 'USAGE', /title/);
    await refuse(['add', '--title', 'No type'], 'USAGE', /missing --type/);
    await refuse(['edit', good.id, '--title', ''], 'INVALID_ENTRY', new RegExp(`${good.path}:\\d+: missing or empty "title"`));
  });

  it('bookmark without url, or with a url that is not one', async () => {
    await refuse(['add', '--type', 'bookmark', '--title', 'Docs'], 'INVALID_ENTRY', /\.md:\d+: a bookmark needs a "url"/);
    await refuse(['add', '--type', 'bookmark', '--title', 'Docs', '--url', 'not a url'], 'INVALID_ENTRY', /"url" is not a URL/);
  });

  it('an id or path that escapes the data repo', async () => {
    const outside = path.join(sb.root, 'outside.md');
    fs.writeFileSync(outside, entryText({ id: 'kb-0666', title: 'Outside', type: 'decision' }));
    for (const args of [
      ['get', '../../etc/passwd'],
      ['get', 'kb-x/../../y'],
      ['get', '/etc/passwd'],
      ['get', `../${path.basename(outside)}`],
      ['get', 'kb-0001/../../../outside'],
      ['edit', '../../etc/passwd', '--title', 'x'],
      ['history', 'entries/../../x'],
      ['restore', 'kb-1/../../x'],
    ]) {
      await refuse(args, 'USAGE', new RegExp(`"${args[1]!.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" is not an entry id`));
    }
    // A host key is a folder name: one that climbs out is refused before any folder is made.
    await refuse(['add', '--type', 'host_fact', '--host', '../../escape', '--title', 'x'], 'INVALID_ENTRY', /host/);
    expect(fs.existsSync(path.join(sb.root, 'escape'))).toBe(false);
    expect(fs.existsSync(path.join(sb.data, 'hosts'))).toBe(false);
  });

  it('an unknown verb or flag, and a verb without its argument', async () => {
    await refuse(['frobnicate'], 'UNKNOWN_VERB', /unknown command 'frobnicate'/);
    await refuse(['add', '--type', 'decision', '--title', 'x', '--colour', 'red'], 'UNKNOWN_OPTION', /unknown option '--colour'/);
    await refuse(['search', 'x', '--fuzzy'], 'UNKNOWN_OPTION', /--fuzzy/);
    // A typo gets its suggestion on the same line, and the help to read names the verb.
    const typo = await refuse(['add', '--type', 'decision', '--titel', 'x'], 'UNKNOWN_OPTION', /^unknown option '--titel' \(Did you mean --title\?\); run "git-kb add --help" for its flags$/);
    expect(typo.stderr.trim().split('\n')).toHaveLength(1);
    // Text that starts with "-" (a note about a flag) is told how to get through.
    await refuse(['add', '--type', 'lesson_learned', '--title', 'x', '--frozen-lockfile is needed in CI'], 'UNKNOWN_OPTION', /text that starts with "-" goes after "--" \(git-kb add \.\.\. -- "TEXT"\), or comes from --file or stdin/);
    await refuse(['resolve'], 'USAGE', /^resolve needs --keep ours, theirs or both;/);
    await refuse(['get'], 'USAGE', /missing required argument/);
    const r = await kb(sb, ['--data', sb.data, 'serach', 'x', '--json']);
    expect(r.code).toBe(2);
    expect(jsonError(r).message).toMatch(/search/); // suggests the verb meant
  });

  it('a missing data repo for a read (3), naming where it looked', async () => {
    const missing = path.join(sb.root, 'no-repo-here');
    for (const verb of [['search', 'x'], ['list'], ['get', good.id], ['lint'], ['status'], ['history', good.id]]) {
      const r = await kb(sb, ['--data', missing, ...verb, '--json']);
      expect(r.code, verb[0]).toBe(3);
      expect(jsonError(r)).toMatchObject({ code: 'NO_DATA_REPO' });
      expect(jsonError(r).message).toContain(missing);
    }
    expect(fs.existsSync(missing)).toBe(false);
  });
});

describe('broken files put in by hand', () => {
  const pwned = (): string => path.join(sb.root, 'pwned');

  beforeAll(async () => {
    const payload = (ext: string) => `---${ext}\n{ title: (function(){ require('fs').writeFileSync(${JSON.stringify(pwned())},'x') })() }\n---\nbody\n`;
    writeFile(sb, 'entries/kb-0101-js.md', payload('js'));
    writeFile(sb, 'entries/kb-0102-javascript.md', payload('javascript'));
    writeFile(sb, 'entries/kb-0103-js-crlf.md', payload(' js').replace(/\n/g, '\r\n'));
    // Line 4 holds the malformed YAML.
    writeFile(sb, 'entries/kb-0104-bad-yaml.md', '---\nid: kb-0104\ntype: decision\ntitle: otters: and more\n---\n\nOtters again.\n');
    writeFile(sb, 'entries/kb-0105-binary.md', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0xff, 0x00, 0x6f, 0x74, 0x74, 0x65, 0x72]));
    writeFile(sb, 'entries/kb-0106-latin1.md', Buffer.concat([Buffer.from('---\nid: kb-0106\ntype: decision\ntitle: Otters in Orl'), Buffer.from([0xe9]), Buffer.from('ans\n---\n')]));
    writeFile(sb, 'entries/kb-0107-twin-a.md', entryText({ id: 'kb-0107', title: 'Twin otters A', type: 'decision' }));
    writeFile(sb, 'entries/kb-0107-twin-b.md', entryText({ id: 'kb-0107', title: 'Twin otters B', type: 'decision' }));
    fs.symlinkSync('/etc/passwd', path.join(sb.data, 'entries', 'kb-0108-link.md'));
    await commitAll(sb, 'broken files by hand');
  });

  it('never evaluates ---js front matter, whatever reads it', async () => {
    for (const args of [['search', 'otters'], ['list'], ['lint'], ['status'], ['get', 'kb-0101', '--links'], ['edit', 'kb-0101', '--title', 'x'], ['search', 'body']]) {
      await kbd(sb, args);
    }
    await kbd(sb, ['add', '--type', 'decision', '--title', 'js front matter in a body', '--file', path.join(sb.data, 'entries/kb-0101-js.md')]).then(async (r) => {
      // As a body, it is plain text: stored, never run.
      expect(r.code, r.stderr).toBe(0);
    });
    expect(fs.existsSync(pwned())).toBe(false);
    const lint = await kbd(sb, ['lint', '--json']);
    const problems = JSON.parse(lint.stdout).problems as { file: string; line: number; message: string }[];
    for (const f of ['entries/kb-0101-js.md', 'entries/kb-0102-javascript.md', 'entries/kb-0103-js-crlf.md']) {
      expect(problems.find((p) => p.file === f), f).toMatchObject({ line: 1, message: expect.stringMatching(/only YAML front matter is read \(never evaluated\)/) });
    }
    await refuse(['edit', 'kb-0102', '--title', 'x'], 'INVALID_ENTRY', /entries\/kb-0102-javascript\.md:1: .*never evaluated/);
    expect(fs.existsSync(pwned())).toBe(false);
  });

  it('malformed YAML: lint names file and line; search, list and get serve every other entry; edit refuses it', async () => {
    const lint = await kbd(sb, ['lint']);
    expect(lint.code).toBe(5);
    expect(lint.stdout).toMatch(/^entries\/kb-0104-bad-yaml\.md:4: malformed YAML front matter: .+ \[parse\]$/m);
    const found = await kbj(sb, ['search', 'otters']);
    expect(found.results.map((h: { id: string }) => h.id)).toContain(good.id);
    expect(found.results.map((h: { id: string }) => h.id)).not.toContain('kb-0104');
    expect((await kbj(sb, ['search', 'beavers'])).results[0].id).toBe(other.id);
    const listed = (await kbj(sb, ['list'])).entries.map((e: { id: string }) => e.id);
    expect(listed).toEqual(expect.arrayContaining([good.id, other.id]));
    expect(listed).not.toContain('kb-0104');
    expect((await kbj(sb, ['get', good.id, other.id])).entries).toHaveLength(2);
    // get prints files verbatim, so a malformed one is still readable by its id.
    expect((await kbd(sb, ['get', 'kb-0104'])).stdout).toContain('title: otters: and more');
    await refuse(['edit', 'kb-0104', '--append', 'more'], 'INVALID_ENTRY', /entries\/kb-0104-bad-yaml\.md:4: malformed YAML/);
  });

  it('binary and non-UTF-8 files: named with file and line, the rest served', async () => {
    await refuse(['get', 'kb-0105'], 'INVALID_ENTRY', /entries\/kb-0105-binary\.md:1: binary content/);
    await refuse(['get', 'kb-0106'], 'INVALID_ENTRY', /entries\/kb-0106-latin1\.md:4: not valid UTF-8/);
    await refuse(['get', good.id, 'kb-0105'], 'INVALID_ENTRY', /kb-0105/);
    const lint = JSON.parse((await kbd(sb, ['lint', '--json'])).stdout).problems as { file: string; rule: string; line: number }[];
    expect(lint).toContainEqual(expect.objectContaining({ file: 'entries/kb-0105-binary.md', rule: 'unreadable', line: 1 }));
    expect(lint).toContainEqual(expect.objectContaining({ file: 'entries/kb-0106-latin1.md', rule: 'unreadable', line: 4 }));
    expect((await kbj(sb, ['search', 'otters'])).results.map((h: { id: string }) => h.id)).toContain(good.id);
  });

  it('two files claiming one id: get and edit refuse with a conflict (4) naming both; lint flags both', async () => {
    await refuse(['get', 'kb-0107'], 'CONFLICT', /kb-0107 is claimed by 2 files: entries\/kb-0107-twin-a\.md, entries\/kb-0107-twin-b\.md/);
    await refuse(['edit', 'kb-0107', '--title', 'x'], 'CONFLICT', /twin-a\.md, entries\/kb-0107-twin-b\.md/);
    await refuse(['history', 'kb-0107'], 'CONFLICT', /claimed by 2 files/);
    const lint = JSON.parse((await kbd(sb, ['lint', '--json'])).stdout).problems as { file: string; rule: string }[];
    expect(lint.filter((p) => p.rule === 'id-duplicate').map((p) => p.file).sort()).toEqual(['entries/kb-0107-twin-a.md', 'entries/kb-0107-twin-b.md']);
    // Search still answers; the twins do not break it.
    expect((await kbj(sb, ['search', 'beavers'])).results[0].id).toBe(other.id);
  });

  it('a symlink that leads out of the data repo is never read', async () => {
    await refuse(['get', 'kb-0108'], 'INVALID_ENTRY', /entries\/kb-0108-link\.md:1: a symbolic link to \/etc\/passwd, outside the data repo/);
    expect((await kbj(sb, ['search', 'root'])).results).toEqual([]);
    expect((await kbj(sb, ['search', 'bin bash'])).results).toEqual([]);
    const lint = JSON.parse((await kbd(sb, ['lint', '--json'])).stdout).problems as { file: string; message: string }[];
    expect(lint.find((p) => p.file === 'entries/kb-0108-link.md')?.message).toMatch(/symbolic link/);
    expect(JSON.stringify(lint)).not.toContain('root:x:0:0');
  });

  it('leaves the repo valid and clean, and writes still work', async () => {
    const a = await addEntry(sb, { title: 'Written after all that', links: [`relates_to:${good.id}`] });
    expect(fs.existsSync(path.join(sb.data, a.path))).toBe(true);
    await expectCleanRepo(sb.data);
    expect(fs.existsSync(pwned())).toBe(false);
  });
});
