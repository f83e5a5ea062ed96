/**
 * The data repo on disk: paths that cannot leave it, where entry files live and how they are listed, derived
 * state under .git/, and reading an entry file safely (binary, non-UTF-8, symlinks out of the repo).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { v8 } from '../src/adapters/system/builtins.js';
import { HOSTS_CACHE_MIN_BYTES, loadHosts } from '../src/adapters/store/hosts-file.js';
import { KbError } from '../src/core/errors.js';
import { bodyOf } from '../src/core/format/fence.js';
import { compareListing, dataRepoExists, entryDirs, inRepoDir, listEntryFiles, listEntryPaths, readEntryText, requireDataRepo, safeJoin, stateDir } from '../src/adapters/store/layout.js';
import { clearJournal, journalPending, readJournal, writeJournal } from '../src/adapters/store/journal.js';
import { lockDataRepo, writeLockBusy } from '../src/adapters/store/lock.js';

let root: string;
let dir: string;
const put = (rel: string, content: string | Buffer): void => {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), content);
};

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-store-'));
  dir = path.join(root, 'data');
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof KbError ? err.code : 'not a KbError';
  }
  return undefined;
}

describe('inRepoDir', () => {
  it('sweeps from inside the repo with relative paths, and puts the working directory back, also on a throw', () => {
    put('entries/kb-1-a.md', 'a');
    const before = process.cwd();
    const seen = inRepoDir(dir, (at) => [at, process.cwd(), fs.statSync(`${at}entries/kb-1-a.md`).size]);
    expect(seen).toEqual(['', fs.realpathSync(dir), 1]);
    expect(process.cwd()).toBe(before);
    expect(() => inRepoDir(dir, () => {
      throw new Error('boom');
    })).toThrow('boom');
    expect(process.cwd()).toBe(before);
    // where the working directory cannot move, the repo's own path is the prefix
    expect(inRepoDir(path.join(dir, 'no-such-folder'), (at) => at)).toBe(`${path.join(dir, 'no-such-folder')}/`);
    expect(process.cwd()).toBe(before);
  });
});

describe('safeJoin', () => {
  it('accepts paths inside the repo and refuses any that leave it or enter .git', () => {
    expect(safeJoin(dir, 'entries/kb-1-x.md')).toBe(path.join(dir, 'entries', 'kb-1-x.md'));
    expect(safeJoin(dir, 'entries\\kb-1-x.md')).toBe(path.join(dir, 'entries', 'kb-1-x.md'));
    expect(safeJoin(dir, 'entries/../kb.json')).toBe(path.join(dir, 'kb.json'));
    for (const bad of ['../x', '../../etc/passwd', '/etc/passwd', 'entries/../../x', '', '.', '.git/config', 'entries/../.git/HEAD', 'a\0b', '..\\x']) {
      expect(codeOf(() => safeJoin(dir, bad)), JSON.stringify(bad)).toBe('USAGE');
    }
  });
});

describe('entry files', () => {
  it('live in entries/, hosts/<key>/ and sessions/<yyyy>/<mm>/, and only .md files not starting with a dot count', () => {
    put('entries/kb-1-a.md', 'a');
    put('entries/.kb-2-b.md.123.abc.tmp', 'temp');
    put('entries/.hidden.md', 'h');
    put('entries/notes.txt', 'n');
    put('entries/kb-3.md', 'c');
    put('hosts/web-1/kb-4-h.md', 'h');
    put('sessions/2025/03/kb-5.md', 's');
    put('elsewhere/kb-6-x.md', 'x');
    put('kb-7-top.md', 'x');
    fs.mkdirSync(path.join(dir, 'entries', 'sub.md'));
    expect(entryDirs(dir).sort()).toEqual(['entries', 'hosts/web-1', 'sessions/2025/03']);
    const files = listEntryFiles(dir);
    expect(files.map((f) => [f.path, f.id]).sort()).toEqual([
      ['entries/kb-1-a.md', 'kb-1'],
      ['entries/kb-3.md', 'kb-3'],
      ['hosts/web-1/kb-4-h.md', 'kb-4'],
      ['sessions/2025/03/kb-5.md', 'kb-5'],
    ]);
    const st = fs.statSync(path.join(dir, 'entries/kb-1-a.md'));
    expect(files.find((f) => f.id === 'kb-1')).toMatchObject({ size: 1, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino });
    expect(listEntryFiles(dir, { withStat: false }).map((f) => f.path).sort()).toEqual(expect.arrayContaining(['entries/kb-1-a.md', 'entries/kb-3.md']));
    expect(listEntryFiles(path.join(root, 'nowhere'))).toEqual([]);
  });

  it('compares a listing with recorded paths: what is gone and what was added, in any order of either', () => {
    // The truth: a set difference. compareListing walks sorted sequences side by side, and falls back to a Set
    // when either is out of JavaScript's order; each case is compared both ways in and against the truth.
    let seed = 7;
    const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    // hosts/web-1-b/ sorts before hosts/web-1/ as a path, after it as a folder name
    const folders = ['entries', 'hosts/web-1', 'hosts/web-1-b', 'hosts/web-10', 'sessions/2025/03'];
    const names = ['kb-1-a.md', 'kb-10.md', 'kb-2-b.md', 'kb-2.md', 'kb-3-é.md', 'kb-4-\uFF21.md', 'kb-5-z.md', 'kb-A.md'];
    const truth = (recorded: string[]): { gone: number[]; added: string[] } => {
      const now = new Set(listEntryPaths(dir));
      return { gone: recorded.flatMap((p, i) => (now.has(p) ? [] : [i])), added: [...now].filter((p) => !recorded.includes(p)).sort() };
    };
    const got = (recorded: string[]): { gone: number[]; added: string[] } => {
      const r = compareListing(dir, recorded);
      // the listing itself, in path order, each path at its recorded index where it has one
      expect(r.listed).toEqual(listEntryPaths(dir).sort());
      r.was.forEach((i, k) => expect(i < 0 ? !recorded.includes(r.listed[k]!) : recorded[i] === r.listed[k]).toBe(true));
      return { gone: [...r.gone.keys()].filter((i) => r.gone[i] === 1), added: r.listed.filter((_, k) => r.was[k]! < 0).sort() };
    };
    for (let round = 0; round < 60; round++) {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
      // A name outside the BMP beside one above U+E000 orders the folder otherwise in UTF-16 than in bytes.
      const all = folders.flatMap((f) => (round % 5 === 0 ? [...names, 'kb-4-\u{1F600}.md'] : names).map((n) => `${f}/${n}`));
      const onDisk = all.filter(() => rnd(3) > 0);
      for (const rel of onDisk) put(rel, 'x');
      if (rnd(2)) put('entries/.hidden.md', 'h');
      const recorded = all.filter((p) => (onDisk.includes(p) ? rnd(5) > 0 : rnd(4) === 0));
      if (rnd(3) === 0) recorded.push('elsewhere/kb-9.md', 'entries/sub/kb-9.md', 'zz/kb-9.md');
      const sorted = [...recorded].sort();
      const shuffled = [...recorded].sort(() => rnd(3) - 1);
      const asListed = listEntryPaths(dir).filter((p) => recorded.includes(p));
      for (const r of [sorted, shuffled, asListed, []]) expect(got(r), `round ${round}`).toEqual(truth(r));
    }
    // All listed, none recorded; none listed, all recorded.
    fs.rmSync(path.join(dir, 'entries'), { recursive: true, force: true });
    expect(got(['entries/kb-1-a.md'])).toEqual({ gone: [0], added: truth(['entries/kb-1-a.md']).added });
  });

  it('keeps derived state under .git/git-kb, and says clearly when there is no data repo', async () => {
    expect(stateDir(dir)).toBe(path.join(dir, '.git', 'git-kb'));
    expect(dataRepoExists(dir)).toBe(true);
    const missing = path.join(root, 'missing');
    expect(dataRepoExists(missing)).toBe(false);
    expect(codeOf(() => requireDataRepo(missing))).toBe('NO_DATA_REPO');
    expect(() => requireDataRepo(missing)).toThrow(missing);
    const lock = await lockDataRepo(dir);
    expect(lock.file).toBe(path.join(dir, '.git', 'git-kb', 'write.lock'));
    expect(fs.existsSync(lock.file)).toBe(true);
    lock.release();
  });

  it('says the write lock is busy only while a live holder has it, and never breaks it', async () => {
    const file = path.join(dir, '.git', 'git-kb', 'write.lock');
    expect(writeLockBusy(dir)).toBe(false);
    const lock = await lockDataRepo(dir);
    expect(writeLockBusy(dir)).toBe(true);
    // A lock older than the caller cares about is not busy. (Set its age on disk: mtime has
    // sub-millisecond precision and Date.now() does not, so a lock taken this millisecond is
    // "younger than now" and maxAgeMs 0 would race the clock.)
    const past = new Date(Date.now() - 120_000);
    fs.utimesSync(lock.file, past, past);
    expect(writeLockBusy(dir, { maxAgeMs: 60_000 })).toBe(false);
    expect(writeLockBusy(dir, { maxAgeMs: 600_000 })).toBe(true);
    lock.release();
    expect(writeLockBusy(dir)).toBe(false);
    // A holder on this host that is gone: not busy (the next writer breaks it), and the file stays.
    fs.writeFileSync(file, `999999999\n${os.hostname()}\n${Date.now()}\n`);
    expect(writeLockBusy(dir)).toBe(false);
    expect(fs.existsSync(file)).toBe(true);
    // A holder on another machine cannot be checked: busy while the lock is young.
    fs.writeFileSync(file, `${process.pid}\nanother-host\n${Date.now()}\n`);
    expect(writeLockBusy(dir)).toBe(true);
  });

  it('keeps one write journal for commits and checkouts; an unreadable one is dropped', () => {
    expect(readJournal(dir)).toBeUndefined();
    writeJournal(dir, { kind: 'checkout', paths: ['entries/kb-1.md'], from: null, to: 'a'.repeat(40) });
    expect(journalPending(dir)).toBe(true);
    expect(readJournal(dir)).toEqual({ kind: 'checkout', paths: ['entries/kb-1.md'], from: null, to: 'a'.repeat(40) });
    clearJournal(dir);
    expect(journalPending(dir)).toBe(false);
    // A journal written before checkouts shared it (no kind) is a commit's.
    const file = path.join(dir, '.git', 'git-kb', 'journal.json');
    fs.writeFileSync(file, JSON.stringify({ paths: ['entries/kb-2.md'], message: 'add kb-2' }));
    expect(readJournal(dir)).toEqual({ kind: 'commit', paths: ['entries/kb-2.md'], message: 'add kb-2' });
    fs.writeFileSync(file, '{"paths": [');
    expect(readJournal(dir)).toBeUndefined();
    expect(journalPending(dir)).toBe(false);
  });
});

describe('readEntryText', () => {
  it('reads UTF-8 text, and names file and line for binary or non-UTF-8 content', () => {
    put('entries/kb-1-ok.md', '---\ntitle: Café\n---\n');
    expect(readEntryText(dir, 'entries/kb-1-ok.md')).toBe('---\ntitle: Café\n---\n');
    put('entries/kb-2-bin.md', Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00]));
    expect(() => readEntryText(dir, 'entries/kb-2-bin.md')).toThrow(/^entries\/kb-2-bin\.md:1: binary content/);
    put('entries/kb-3-latin.md', Buffer.concat([Buffer.from('---\nid: kb-3\ntitle: Caf'), Buffer.from([0xe9]), Buffer.from('\n---\n')]));
    expect(() => readEntryText(dir, 'entries/kb-3-latin.md')).toThrow(/^entries\/kb-3-latin\.md:3: not valid UTF-8/);
    // A real U+FFFD in valid UTF-8 is text, not an error.
    put('entries/kb-4-fffd.md', '---\ntitle: \uFFFD\n---\n');
    expect(readEntryText(dir, 'entries/kb-4-fffd.md')).toContain('\uFFFD');
    expect(codeOf(() => readEntryText(dir, '../outside.md'))).toBe('USAGE');
  });

  it('refuses a symlink (to a file or a folder) that leads out of the repo or into .git, and follows one that stays inside', () => {
    fs.writeFileSync(path.join(root, 'secret.txt'), 'outside');
    fs.mkdirSync(path.join(dir, 'entries'), { recursive: true });
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(dir, 'entries', 'kb-1-out.md'));
    expect(() => readEntryText(dir, 'entries/kb-1-out.md')).toThrow(/entries\/kb-1-out\.md:1: a symbolic link to .*secret\.txt, outside the data repo/);
    fs.writeFileSync(path.join(dir, '.git', 'config'), '[core]');
    fs.symlinkSync('../.git/config', path.join(dir, 'entries', 'kb-2-git.md'));
    expect(codeOf(() => readEntryText(dir, 'entries/kb-2-git.md'))).toBe('INVALID_ENTRY');
    fs.mkdirSync(path.join(root, 'elsewhere'));
    fs.writeFileSync(path.join(root, 'elsewhere', 'kb-3-x.md'), 'outside');
    fs.symlinkSync(path.join(root, 'elsewhere'), path.join(dir, 'hosts'));
    expect(codeOf(() => readEntryText(dir, 'hosts/kb-3-x.md'))).toBe('INVALID_ENTRY');
    put('notes/kb-4-real.md', 'inside');
    fs.symlinkSync('../notes/kb-4-real.md', path.join(dir, 'entries', 'kb-4-link.md'));
    expect(readEntryText(dir, 'entries/kb-4-link.md')).toBe('inside');
  });

  it('bodyOf returns the text after the closing fence without parsing YAML', () => {
    expect(bodyOf('---\ntitle: [broken\n---\n\nBody here.\n')).toBe('Body here.\n');
    expect(bodyOf('---\r\na: 1\r\n---\r\nNo blank\r\n')).toBe('No blank\n');
    expect(bodyOf('no front matter')).toBe('no front matter');
  });
});

describe('fileStat', () => {
  it('gives the stat data of a regular file as fs.statSync does, and undefined for anything else', async () => {
    const { fileStat, statData } = await import('../src/adapters/store/layout.js');
    put('entries/a.md', 'x');
    fs.mkdirSync(path.join(dir, 'entries', 'sub.md'));
    fs.symlinkSync(path.join(dir, 'entries', 'a.md'), path.join(dir, 'entries', 'link.md'));
    const a = path.join(dir, 'entries', 'a.md');
    expect(fileStat(a)).toEqual(statData(fs.statSync(a)));
    expect(fileStat(path.join(dir, 'entries', 'link.md'))).toEqual(statData(fs.statSync(a)));
    expect(fileStat(path.join(dir, 'entries', 'sub.md'))).toBeUndefined();
    expect(fileStat(path.join(dir, 'entries', 'missing.md'))).toBeUndefined();
    // A path below a file cannot be there: no file, on Node 20 (whose fs.statSync throws ENOTDIR) as on Node 24.
    expect(fileStat(path.join(a, 'below-a-file.md'))).toBeUndefined();
  });

  it('falls back to fs.statSync when Node has no stat binding to use', async () => {
    const p = process as unknown as { binding: unknown };
    const binding = p.binding;
    p.binding = undefined;
    try {
      const { vi } = await import('vitest');
      vi.resetModules();
      const { fileStat, statData } = await import('../src/adapters/store/layout.js');
      put('entries/a.md', 'xy');
      const a = path.join(dir, 'entries', 'a.md');
      expect(fileStat(a)).toEqual(statData(fs.statSync(a)));
      expect(fileStat(path.join(dir, 'entries', 'missing.md'))).toBeUndefined();
    } finally {
      p.binding = binding;
    }
  });
});

describe('hosts.yaml: the verdict on a large one is kept (hostile battery F3)', () => {
  // NOTE: counts parses, never times them: checking a 1.5 MB hosts.yaml is linear but about 1.5 s on every verb.
  const large = (extra = ''): string => {
    let text = 'hosts:\n';
    for (let i = 0; text.length < HOSTS_CACHE_MIN_BYTES; i++) text += `  h${String(i).padStart(5, '0')}:\n    description: d${i}\n`;
    return `${text}${extra}`;
  };
  const kept = (): string => path.join(stateDir(dir), 'hosts.v8');
  const parses = async (): Promise<[number, unknown]> => {
    const spy = vi.spyOn(YAML, 'parseDocument');
    try {
      const result = await loadHosts(dir).catch((err: unknown) => err);
      return [spy.mock.calls.length, result];
    } finally {
      spy.mockRestore();
    }
  };

  it('checks a text once: the same text is served from .git/git-kb/hosts.v8, a changed one is checked again', async () => {
    put('hosts.yaml', large());
    const [first, registry] = await parses();
    expect(first).toBe(1);
    expect(fs.existsSync(kept())).toBe(true);
    const [second, again] = await parses();
    expect(second).toBe(0);
    expect(again).toEqual(registry);
    put('hosts.yaml', large('  added:\n    markers: [added-box]\n'));
    const [third, changed] = await parses();
    expect(third).toBe(1);
    expect((changed as { hosts: { key: string }[] }).hosts.at(-1)!.key).toBe('added');
  });

  it('keeps the problems of an invalid one: the same INVALID_ENTRY each time, never a registry', async () => {
    put('hosts.yaml', large('  h00001:\n'));
    const [first, err] = await parses();
    expect(first).toBe(1);
    expect((err as KbError).code).toBe('INVALID_ENTRY');
    const [second, again] = await parses();
    expect(second).toBe(0);
    expect((again as KbError).message).toBe((err as KbError).message);
  });

  it('checks the text again when a kept marker fails today\'s marker rules, and keeps nothing for a small file', async () => {
    put('hosts.yaml', large());
    await loadHosts(dir);
    const verdict = v8().deserialize(fs.readFileSync(kept())) as { registry: { hosts: { markers: string[] }[] } };
    verdict.registry.hosts[0]!.markers.push('/(a+)+b/');
    fs.writeFileSync(kept(), v8().serialize(verdict));
    const [parsed, registry] = await parses();
    expect(parsed).toBe(1);
    expect((registry as { hosts: { markers: string[] }[] }).hosts[0]!.markers).toEqual([]);
    fs.rmSync(kept());
    put('hosts.yaml', 'hosts:\n  box:\n');
    expect((await loadHosts(dir)).hosts.map((h) => h.key)).toEqual(['box']);
    expect(fs.existsSync(kept())).toBe(false);
  });
});
