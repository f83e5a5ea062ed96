/**
 * `lint` re-reads only what changed since the last lint (.git/git-kb/lint.v1) and finds exactly what
 * `lint --all` finds after every kind of change: a hand edit in place, a new file, a stray file, an id claimed
 * twice, a link whose target went away or came back, a secret in hosts.yaml, a torn state; the findings of files
 * left alone are carried over.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, entryText, initRepo, kbd, settleFolders, writeFile, type Added } from './support.js';

let sb: Sandbox;
let hub: Added;
let spoke: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  hub = await addEntry(sb, { type: 'decision', title: 'Lint hub', body: 'Hub.' });
  spoke = await addEntry(sb, { type: 'decision', title: 'Lint spoke', links: [`part_of:${hub.id}`], body: 'Spoke.' });
});
afterAll(() => sb.cleanup());

const stateFile = (): string => path.join(sb.data, '.git', 'git-kb', 'lint.v1');
type Finding = { rule: string; file: string; line: number };
/** Runs lint (changed only) and lint --all, checks they agree, and returns the rules found with their files. */
async function lint(): Promise<string[]> {
  const changed = await kbd(sb, ['lint', '--json']);
  const all = await kbd(sb, ['lint', '--all', '--json']);
  const a = JSON.parse(changed.stdout);
  const b = JSON.parse(all.stdout);
  expect(a).toEqual(b);
  expect(changed.code).toBe(all.code);
  expect(changed.code).toBe(a.ok ? 0 : 5);
  return (a.problems as Finding[]).map((p) => `${p.rule} ${p.file}`);
}

describe('lint of what changed', () => {
  it('records each lint, and carries the findings of the files it leaves alone', async () => {
    fs.rmSync(stateFile(), { force: true });
    expect(await kbd(sb, ['lint'])).toMatchObject({ code: 0 });
    expect(fs.existsSync(stateFile())).toBe(true);
    const abs = path.join(sb.data, hub.path);
    const good = fs.readFileSync(abs, 'utf8');
    fs.writeFileSync(abs, good.replace('type: decision', 'type: nope'));
    settleFolders(sb);
    expect(await kbd(sb, ['lint'])).toMatchObject({ code: 5 }); // records the settled names
    fs.writeFileSync(abs, `${fs.readFileSync(abs, 'utf8')}\n`);
    // The edited file's stat data is recorded with the rest (the same names: the recorded columns, patched), so the
    // next lint finds nothing to re-read and records nothing.
    expect(await kbd(sb, ['lint'])).toMatchObject({ code: 5 });
    const patched = fs.statSync(stateFile()).ino;
    expect(JSON.parse((await kbd(sb, ['lint', '--json'])).stdout).problems.map((p: Finding) => p.rule)).toEqual(['type-unknown']);
    expect(fs.statSync(stateFile()).ino).toBe(patched);
    expect(await lint()).toEqual([`type-unknown ${hub.path}`]);
    // Nothing changed: nothing is read or recorded, the finding stays.
    await kbd(sb, ['lint']);
    const ino = fs.statSync(stateFile()).ino;
    expect(JSON.parse((await kbd(sb, ['lint', '--json'])).stdout).problems.map((p: Finding) => p.rule)).toEqual(['type-unknown']);
    expect(fs.statSync(stateFile()).ino).toBe(ino);
    // Another change elsewhere: the hub is not re-read, and its finding is still reported.
    writeFile(sb, 'entries/notes.txt', 'stray');
    expect(await lint()).toEqual([`type-unknown ${hub.path}`, 'stray-file entries/notes.txt']);
    fs.rmSync(path.join(sb.data, 'entries/notes.txt'));
    fs.writeFileSync(abs, good);
    expect(await lint()).toEqual([]);
  });

  it('records an edit lint has nothing to say about in place, and rewrites the state when findings or links move', async () => {
    expect(await lint()).toEqual([]);
    settleFolders(sb);
    await kbd(sb, ['lint']);
    // A hard link pins the state file's inode: written in place, both names still share it; rewritten (a new file
    // renamed over it), they differ, and the old inode cannot be reused meanwhile.
    const pin = path.join(sb.data, '.git', 'lint-pin');
    const pinState = (): void => {
      fs.rmSync(pin, { force: true });
      fs.linkSync(stateFile(), pin);
    };
    const rewritten = (): boolean => fs.statSync(stateFile()).ino !== fs.statSync(pin).ino;
    const abs = path.join(sb.data, spoke.path);
    const good = fs.readFileSync(abs, 'utf8');
    // Prose only: the same findings and links, so only the file's stat record moves, in the same state file.
    pinState();
    const before = fs.readFileSync(stateFile());
    fs.writeFileSync(abs, good.replace('Spoke.', 'Spoke, edited.'));
    expect(await kbd(sb, ['lint'])).toMatchObject({ code: 0 });
    expect(rewritten()).toBe(false);
    const after = fs.readFileSync(stateFile());
    expect(after.length).toBe(before.length);
    expect(after.equals(before)).toBe(false); // the record moved
    // ...and the next lint re-reads nothing: the state is left alone byte for byte, and agrees with --all.
    expect(await kbd(sb, ['lint'])).toMatchObject({ code: 0 });
    expect(rewritten()).toBe(false);
    expect(fs.readFileSync(stateFile()).equals(after)).toBe(true);
    // A new finding: the state is written whole, and the finding is carried by the next lints.
    fs.writeFileSync(abs, good.replace('Spoke.', 'Spoke, see [[kb-nothere99]].'));
    expect(await kbd(sb, ['lint'])).toMatchObject({ code: 5 });
    expect(rewritten()).toBe(true);
    expect(await lint()).toEqual([`link-dangling ${spoke.path}`]);
    // A link added to an entry that exists (the spoke links only the hub so far): no finding and no hint, but
    // the links moved, so the state is written whole.
    fs.writeFileSync(abs, good);
    const other = await addEntry(sb, { type: 'decision', title: 'Lint other', body: 'Other.' });
    settleFolders(sb);
    await kbd(sb, ['lint']);
    pinState();
    fs.writeFileSync(abs, good.replace('Spoke.', `Spoke, see [[${path.basename(other.path, '.md')}|${other.id}]].`));
    const linked = JSON.parse((await kbd(sb, ['lint', '--json'])).stdout);
    expect([linked.problems, linked.hints ?? []]).toEqual([[], []]);
    expect(rewritten()).toBe(true);
    // The other entry goes away: the spoke's new body link is now dangling, which only a recorded link can tell.
    const otherText = fs.readFileSync(path.join(sb.data, other.path));
    fs.rmSync(path.join(sb.data, other.path));
    expect(await lint()).toEqual([`link-dangling ${spoke.path}`]);
    fs.writeFileSync(path.join(sb.data, other.path), otherText);
    fs.writeFileSync(abs, good);
    fs.rmSync(pin);
    expect(await lint()).toEqual([]);
  });

  it('sees a new file with a problem, an id claimed twice, and a link whose target went away', async () => {
    expect(await lint()).toEqual([]);
    writeFile(sb, 'entries/kb-lint0001-bad.md', '---\nid: kb-lint0001\ntype: decision\n---\nno title\n');
    expect(await lint()).toEqual(['title-missing entries/kb-lint0001-bad.md']);
    fs.rmSync(path.join(sb.data, 'entries/kb-lint0001-bad.md'));
    expect(await lint()).toEqual([]);
    const copy = `entries/${hub.id}-a-copy.md`;
    writeFile(sb, copy, fs.readFileSync(path.join(sb.data, hub.path)));
    expect((await lint()).filter((p) => p.startsWith('id-duplicate'))).toHaveLength(2);
    fs.rmSync(path.join(sb.data, copy));
    expect(await lint()).toEqual([]);
    // The spoke is unchanged, but the hub it links to is gone: its link dangles now.
    const hubText = fs.readFileSync(path.join(sb.data, hub.path));
    fs.rmSync(path.join(sb.data, hub.path));
    expect(await lint()).toEqual([`link-dangling ${spoke.path}`]);
    writeFile(sb, hub.path, hubText);
    expect(await lint()).toEqual([]);
    // The hub renamed by hand: the spoke is unchanged, but its link names a file that is gone (a stale link).
    const renamed = hub.path.replace(/-lint-hub\.md$/, '-renamed-hub.md');
    expect(renamed).not.toBe(hub.path);
    fs.renameSync(path.join(sb.data, hub.path), path.join(sb.data, renamed));
    expect((await lint()).filter((p) => p.endsWith(spoke.path)).map((p) => p.split(' ')[0])).toContain('link-stale');
    fs.renameSync(path.join(sb.data, renamed), path.join(sb.data, hub.path));
    expect(await lint()).toEqual([]);
  });

  it('sees a secret in hosts.yaml and ignores a torn or garbage state', async () => {
    const token = ['ghp', '_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'].join('');
    fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), `hosts:\n  box:\n    facts:\n      - token ${token}\n`);
    expect((await lint()).some((p) => p === 'secret hosts.yaml')).toBe(true);
    fs.rmSync(path.join(sb.data, 'hosts.yaml'));
    expect(await lint()).toEqual([]);
    // A problem the state would hide if it were trusted when torn: the state is cut short, so all is re-read.
    const abs = path.join(sb.data, spoke.path);
    const good = fs.readFileSync(abs, 'utf8');
    for (const damage of [(b: Buffer) => b.subarray(0, b.length >> 1), () => Buffer.from('garbage\n'), (b: Buffer) => Buffer.concat([b, Buffer.from('x')])]) {
      expect(await lint()).toEqual([]);
      fs.writeFileSync(stateFile(), damage(fs.readFileSync(stateFile())));
      fs.writeFileSync(abs, good.replace('type: decision', 'type: nope'));
      expect(await lint()).toEqual([`type-unknown ${spoke.path}`]);
      fs.writeFileSync(abs, good);
    }
    expect(await lint()).toEqual([]);
    writeFile(sb, 'entries/kb-lint0002-new.md', entryText({ id: 'kb-lint0002', title: 'New and fine', type: 'decision' }, 'ok'));
    expect(await lint()).toEqual([]);
  });
});
