/** adapters/git/refs.ts against real git: loose and packed refs, HEAD followed, no commit yet, config values. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configValue, readRef } from '../src/adapters/git/refs.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-refs-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();

describe('refs without a git library', () => {
  it('reads HEAD, loose and packed refs as git does', () => {
    git('init', '-q', '-b', 'main');
    expect(readRef(dir, 'HEAD')).toBeUndefined(); // no commit yet
    git('commit', '-q', '--allow-empty', '-m', 'one');
    expect(readRef(dir, 'HEAD')).toBe(git('rev-parse', 'HEAD'));
    git('update-ref', 'refs/remotes/origin/main', 'HEAD');
    git('pack-refs', '--all');
    expect(fs.existsSync(path.join(dir, '.git', 'refs', 'heads', 'main'))).toBe(false);
    expect(readRef(dir, 'HEAD')).toBe(git('rev-parse', 'HEAD'));
    expect(readRef(dir, 'refs/remotes/origin/main')).toBe(git('rev-parse', 'HEAD'));
    git('commit', '-q', '--allow-empty', '-m', 'two'); // a loose ref now shadows the packed one
    expect(readRef(dir, 'HEAD')).toBe(git('rev-parse', 'HEAD'));
    expect(readRef(dir, 'refs/remotes/origin/main')).toBe(git('rev-parse', 'HEAD~1'));
    expect(readRef(dir, 'refs/heads/nope')).toBeUndefined();
    expect(readRef(dir, '../../etc/passwd')).toBeUndefined();
  });

  it('reads a config value: sections, quotes, comments, the last one set', () => {
    expect(configValue(dir, 'remote', 'origin', 'url')).toBeUndefined();
    git('remote', 'add', 'origin', 'https://example.com/a.git');
    git('config', 'remote.other.url', 'https://example.com/other.git');
    expect(configValue(dir, 'remote', 'origin', 'url')).toBe(git('config', 'remote.origin.url'));
    fs.appendFileSync(path.join(dir, '.git', 'config'), '[Remote "origin"]\n\tURL = "https://example.com/b c.git" ; a comment\n');
    expect(configValue(dir, 'remote', 'origin', 'url')).toBe(git('config', 'remote.origin.url'));
    expect(configValue(dir, 'remote', 'other', 'url')).toBe('https://example.com/other.git');
  });
});
