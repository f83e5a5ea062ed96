/**
 * The editor flow: `edit ID` with no change flags opens $VISUAL/$EDITOR on the file and commits a valid save (one
 * commit, the diff printed), writes nothing for an unchanged save, an invalid save or an editor that fails; on a
 * terminal an invalid save is shown and the editor re-opened when the user says so. `add` with no body on a
 * terminal opens the editor on a template. Editors are small shell scripts; the terminal is `script`'s pty.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_BATTERY } from '../fixtures/secrets.js';
import { CLI, expectCleanRepo, makeSandbox, run, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitCount, expectUnchanged, initRepo, jsonError, kbd, kbj, snapshot, subjects } from './support.js';

let sb: Sandbox;
let id: string;
let file: string;

/** Writes an executable shell script into the sandbox and returns its path. */
function script(name: string, body: string): string {
  const p = path.join(sb.root, name);
  fs.writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

/** Runs git-kb under `script`, so stdin, stdout and stderr are a terminal; `input` is typed at it. */
function onTerminal(args: string[], env: NodeJS.ProcessEnv, input = '') {
  const cmd = [process.execPath, CLI, '--data', sb.data, ...args].map((a) => `'${a}'`).join(' ');
  return run('script', ['-qec', cmd, '/dev/null'], { env: { ...sb.env, NO_COLOR: '1', ...env }, input });
}

const read = (): string => fs.readFileSync(path.join(sb.data, file), 'utf8');

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  const a = await addEntry(sb, { type: 'decision', title: 'Editor target', body: 'The first body.' });
  id = a.id;
  file = a.path;
});
afterAll(() => sb.cleanup());

describe('edit in the editor', () => {
  it('commits what the editor saved, once, and prints the diff', async () => {
    const ed = script('ed-ok.sh', 'sed -i "s/The first body./The edited body./" "$1"');
    const n = await commitCount(sb);
    const r = await kbd(sb, ['edit', id], { env: { EDITOR: ed } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^-The first body\.$/m);
    expect(r.stdout).toMatch(/^\+The edited body\.$/m);
    expect(r.stdout).toMatch(new RegExp(`^edited ${id} \\(commit [0-9a-f]{12}\\)$`, 'm'));
    expect(read()).toContain('The edited body.');
    expect(read()).not.toMatch(/updated: (\S+)\n[\s\S]*created: \1/);
    expect(await commitCount(sb)).toBe(n + 1);
    expect((await subjects(sb))[0]).toBe(`edit ${id}: Editor target`);
    await expectCleanRepo(sb.data);
  });

  it('a link typed in the editor is stored in the form Obsidian follows', async () => {
    const other = await addEntry(sb, { type: 'decision', title: 'Link target of the editor', body: 'Target.' });
    const ed = script('ed-link.sh', `printf '\\nSee [[${other.id}]].\\n' >> "$1"`);
    const r = await kbd(sb, ['edit', id], { env: { EDITOR: ed } });
    expect(r.code, r.stderr).toBe(0);
    const base = other.path.split('/').pop()!.replace(/\.md$/, '');
    expect(read()).toContain(`See [[${base}|${other.id}]].`);
    await expectCleanRepo(sb.data);
  });

  it('$VISUAL wins over $EDITOR; an editor command with arguments runs through the shell', async () => {
    const ed = script('ed-arg.sh', 'sed -i "s/The edited body./$1 body./" "$2"');
    const r = await kbd(sb, ['--json', 'edit', id], { env: { VISUAL: `${ed} Visual`, EDITOR: 'false' } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id, path: file, changed: true });
    expect(read()).toContain('Visual body.');
    await expectCleanRepo(sb.data);
  });

  it('an unchanged save is no change and no commit', async () => {
    const before = await snapshot(sb);
    const r = await kbd(sb, ['edit', id], { env: { EDITOR: 'true' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(`${id}: no change`);
    await expectUnchanged(sb, before);
  });

  it('an editor that exits non-zero aborts with exit 2 and writes nothing', async () => {
    const ed = script('ed-fail.sh', 'echo changed >> "$1"; exit 3');
    const before = await snapshot(sb);
    const r = await kbd(sb, ['--json', 'edit', id], { env: { EDITOR: ed } });
    expect(r.code).toBe(2);
    expect(jsonError(r)).toMatchObject({ code: 'ABORTED' });
    await expectUnchanged(sb, before);
  });

  it('an invalid save off a terminal aborts with the problems (file:line), exit 5, nothing written, the text kept', async () => {
    const ed = script('ed-bad.sh', 'sed -i "s/^type: .*/type: memo/" "$1"');
    const before = await snapshot(sb);
    const r = await kbd(sb, ['edit', id], { env: { EDITOR: ed } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`${file}:4: unknown type "memo"`);
    const kept = /your text is kept in (\S+)/.exec(r.stderr)?.[1];
    expect(kept && fs.readFileSync(kept, 'utf8')).toContain('type: memo');
    await expectUnchanged(sb, before);
  });

  it('a secret or a dangling link in the save is refused like any edit', async () => {
    const before = await snapshot(sb);
    const key = SECRET_BATTERY[0]!;
    const secret = script('ed-secret.sh', `echo '${key.text}' >> "$1"`);
    const s = await kbd(sb, ['--json', 'edit', id], { env: { EDITOR: secret } });
    expect(s.code).toBe(5);
    expect(jsonError(s).code).toBe('SECRET_DETECTED');
    expect(s.stderr).not.toContain(key.secret);
    const dangling = script('ed-link.sh', 'echo "See [[kb-zzzzzz9999]]." >> "$1"');
    const d = await kbd(sb, ['--json', 'edit', id], { env: { EDITOR: dangling } });
    expect(d.code).toBe(5);
    expect(jsonError(d).data?.problems).toEqual([expect.objectContaining({ rule: 'link-dangling', file })]);
    await expectUnchanged(sb, before);
  });

  it('with neither $VISUAL nor $EDITOR off a terminal, says how to edit (exit 2) instead of starting vi', async () => {
    const before = await snapshot(sb);
    const r = await kbd(sb, ['edit', id], { env: { VISUAL: '', EDITOR: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/EDITOR/);
    await expectUnchanged(sb, before);
  });

  it('on a terminal, an invalid save is shown and the editor re-opened on "y"; "n" aborts with nothing written', async () => {
    const count = path.join(sb.root, 'count');
    const ed = script(
      'ed-twice.sh',
      `n=$(cat '${count}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '${count}'\n` +
        'if [ $n = 1 ]; then sed -i "s/^type: .*/type: memo/" "$1"; else sed -i "s/^type: .*/type: lesson_learned/" "$1"; fi',
    );
    const n = await commitCount(sb);
    const r = await onTerminal(['edit', id], { EDITOR: ed }, 'y\n');
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toContain('unknown type "memo"');
    expect(r.stdout).toContain('Edit again? [Y/n]');
    expect(r.stdout).toMatch(/^\+type: lesson_learned/m);
    expect(fs.readFileSync(count, 'utf8').trim()).toBe('2');
    expect(await commitCount(sb)).toBe(n + 1);
    await expectCleanRepo(sb.data);

    fs.rmSync(count);
    const before = await snapshot(sb);
    const no = await onTerminal(['edit', id], { EDITOR: ed }, 'n\n');
    expect(no.code).toBe(2);
    expect(no.stdout).toMatch(/aborted; nothing written/);
    expect(fs.readFileSync(count, 'utf8').trim()).toBe('1');
    await expectUnchanged(sb, before);
  });

  it("never opens a forbidden host's fact in the editor (exit 5, the editor not run)", async () => {
    const fact = await kbj(sb, ['host', 'add', 'webbox', 'The webroot is /srv/site.']);
    await kbj(sb, ['host', 'register', 'webbox', '--forbidden']);
    const ran = path.join(sb.root, 'ran');
    const ed = script('ed-mark.sh', `touch '${ran}'`);
    const before = await snapshot(sb);
    const r = await kbd(sb, ['--json', 'edit', fact.id], { env: { EDITOR: ed } });
    expect(r.code).toBe(5);
    expect(jsonError(r).code).toBe('FORBIDDEN_HOST');
    expect(r.stderr).not.toContain('/srv/site');
    expect(fs.existsSync(ran)).toBe(false);
    await expectUnchanged(sb, before);
  });

  it('opens an entry that does not parse, so the editor can fix it', async () => {
    const broken = path.join(sb.data, file);
    const good = fs.readFileSync(broken, 'utf8');
    fs.writeFileSync(broken, good.replace(/^title: .*$/m, 'title: [unclosed'));
    const ed = script('ed-fix.sh', 'sed -i "s/^title: .*/title: Editor target/" "$1"');
    const r = await kbd(sb, ['edit', id], { env: { EDITOR: ed } });
    expect(r.code, r.stderr).toBe(0);
    expect(read()).toMatch(/^title: Editor target$/m);
    await expectCleanRepo(sb.data);
  });
});

describe('add in the editor', () => {
  it('with no body on a terminal opens a template of the flags given, and adds what was written', async () => {
    const copy = path.join(sb.root, 'template.md');
    const ed = script('ed-add.sh', `cp "$1" '${copy}'\nsed -i 's/^title: $/title: Written in the editor/' "$1"\nprintf 'A body typed in the editor.\\n' >> "$1"`);
    const n = await commitCount(sb);
    const r = await onTerminal(['add', '--type', 'decision', '--tags', 'Shell Tools,x'], { EDITOR: ed });
    expect(r.code, r.stdout).toBe(0);
    const newId = /kb-[0-9a-z]+/.exec(r.stdout)?.[0];
    const template = fs.readFileSync(copy, 'utf8');
    expect(template).toMatch(/^title: $/m);
    expect(template).toMatch(/^type: decision$/m);
    expect(template).toContain('shell-tools');
    expect(template).toMatch(/^# git-kb add: /m);
    expect(await commitCount(sb)).toBe(n + 1);
    const got = await kbd(sb, ['get', newId!]);
    expect(got.stdout).toMatch(/^title: Written in the editor$/m);
    expect(got.stdout).toContain('A body typed in the editor.');
    expect(got.stdout).not.toContain('git-kb add:');
    await expectCleanRepo(sb.data);
  });

  it('an empty body (the template saved as it was) or an empty file aborts with nothing written', async () => {
    const before = await snapshot(sb);
    const same = await onTerminal(['add', '--type', 'decision', '--title', 'Nothing'], { EDITOR: 'true' });
    expect(same.code).toBe(2);
    expect(same.stdout).toMatch(/body was left empty; nothing added/);
    const empty = script('ed-empty.sh', ': > "$1"');
    const e = await onTerminal(['add', '--type', 'decision'], { EDITOR: empty });
    expect(e.code).toBe(2);
    expect(e.stdout).toMatch(/left empty; nothing added/);
    await expectUnchanged(sb, before);
  });

  it('off a terminal no editor opens: no body is a usage error, as a missing --type or --title is', async () => {
    const before = await snapshot(sb);
    const r = await kbd(sb, ['--json', 'add', '--type', 'decision', '--title', 'Piped empty'], { env: { EDITOR: 'false' } });
    expect(r.code, r.stderr).toBe(2);
    expect(jsonError(r)).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/add needs a body/) });
    const noType = await kbd(sb, ['--json', 'add', '--title', 'x', '--', 'body']);
    expect(noType.code).toBe(2);
    expect(jsonError(noType).code).toBe('USAGE');
    const noTitle = await kbd(sb, ['--json', 'add', '--type', 'decision', '--', 'body']);
    expect(noTitle.code).toBe(2);
    await expectUnchanged(sb, before);
  });
});
