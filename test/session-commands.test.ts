import { describe, expect, it } from 'vitest';
import { didWork, gitKbArgs, shownCommand } from '../src/core/sessions/commands.js';
import { clipText } from '../src/core/text/clip.js';
import type { CommandRun } from '../src/core/sessions/transcript.js';

const ok = (command: string, text = ''): CommandRun => ({ command, result: { text, error: false } });
const failed = (command: string, text = 'Error'): CommandRun => ({ command, result: { text, error: true } });

describe('gitKbArgs: the ways git-kb is run', () => {
  it('knows git-kb, a path to bin/git-kb, node running one, npx and git kb', () => {
    expect(gitKbArgs(['git-kb', 'add', 'x'])).toEqual(['add', 'x']);
    expect(gitKbArgs(['/opt/plugins/git-kb/1.0/bin/git-kb', 'add'])).toEqual(['add']);
    expect(gitKbArgs(['node', '/opt/git-kb/bin/git-kb', '--json', 'add'])).toEqual(['--json', 'add']);
    expect(gitKbArgs(['npx', '--yes', 'git-kb', 'add'])).toEqual(['add']);
    expect(gitKbArgs(['npx', 'git-kb@2', 'host', 'add'])).toEqual(['host', 'add']);
    expect(gitKbArgs(['git', 'kb', 'edit', 'kb-1'])).toEqual(['edit', 'kb-1']);
    expect(gitKbArgs(['git', 'status'])).toBeUndefined();
    expect(gitKbArgs(['node', 'script.js'])).toBeUndefined();
    expect(gitKbArgs(['/usr/bin/my-git-kb', 'add'])).toBeUndefined();
  });
});

describe('shownCommand: git-kb writes with their text elided', () => {
  const text = 'Use allkeys-lru for pure caches; volatile-lru only evicts keys that carry a TTL.';

  it('keeps the verb, the flags and short words; long or spaced text becomes …; names the id the output gave', () => {
    expect(shownCommand(ok(`git-kb add --type lesson_learned --title "Redis eviction for caches" --tags redis -- "${text}"`, 'kb-3m3vployhd\n'))).toBe(
      'git-kb add --type lesson_learned --title … --tags redis -- … # text elided; wrote kb-3m3vployhd',
    );
    expect(shownCommand(ok(`git-kb host add build-box.lan "${text}"`, 'kb-3m3vplo000'))).toBe('git-kb host add build-box.lan … # text elided; wrote kb-3m3vplo000');
    expect(shownCommand(ok(`git-kb edit kb-3m3vployhd --append="${text}"`, '--- a\n+++ b'))).toBe('git-kb edit kb-3m3vployhd --append=… # text elided');
  });

  it('elides text from a path to bin/git-kb, node, npx, a heredoc and a pipe, and shows only the git-kb command of the line', () => {
    expect(shownCommand(ok(`node /p/bin/git-kb add --title T <<'EOF'\n${text}\nEOF`, 'kb-1234567890'))).toBe('git-kb add --title T # text elided; wrote kb-1234567890');
    expect(shownCommand(ok(`npx git-kb add -- "${text}"`))).toBe('git-kb add -- … # text elided');
    expect(shownCommand(ok(`echo "${text}" | git-kb add --type lesson_learned --title Redis`))).toBe('git-kb add --type lesson_learned --title Redis # text elided');
    expect(shownCommand(ok(`cd ~/notes && git-kb add "${text}" && git-kb add "${text}"`, 'kb-aaaa000001\nkb-aaaa000002'))).toBe(
      'git-kb add … ; git-kb add … # text elided; wrote kb-aaaa000001',
    );
  });

  it('names no id when the command failed', () => {
    expect(shownCommand(failed(`git-kb add "${text}"`, 'Claude requested permissions to use Bash'))).toBe('git-kb add … # text elided');
  });

  it("leaves other commands, git-kb's reads and writes with nothing to elide as they were", () => {
    for (const c of ['git-kb search "redis eviction" "cache keys"', 'git-kb --json get kb-1', 'git-kb delete kb-1 --force', 'git commit -m "a long message here"', `echo "${text}"`]) {
      expect(shownCommand(ok(c))).toBe(c);
    }
  });
});

describe('didWork: commands that did something', () => {
  it('counts a command that ran and did more than look', () => {
    expect(didWork(ok("sed -i 's/teh/the/' notes.txt"))).toBe(true);
    expect(didWork(ok('npm test'))).toBe(true);
    expect(didWork(ok('git commit -am fix'))).toBe(true);
    expect(didWork(ok('git-kb add "x y"'))).toBe(true);
    expect(didWork(ok('echo done > status.txt'))).toBe(true);
    expect(didWork(ok('ls && make build'))).toBe(true);
  });

  it('not a look around, nor a command that failed, was refused or has no result', () => {
    for (const c of ['ls -la', 'cat notes.txt | grep -n teh', 'cd src && ls', 'git status --short', 'git log -3 2>&1', 'git-kb search "notes typo"', 'git-kb get kb-1', 'grep -r x . > /dev/null']) {
      expect(didWork(ok(c)), c).toBe(false);
    }
    expect(didWork(failed('npm test'))).toBe(false);
    expect(didWork({ command: 'npm test' })).toBe(false);
  });
});

describe('clipText', () => {
  it('cuts at a word boundary with an ellipsis, mid-word only when the last space is in the first half', () => {
    expect(clipText('short   text', 20)).toBe('short text');
    expect(clipText('the quick brown fox jumps', 12)).toBe('the quick…');
    expect(clipText('the quick brown', 10)).toBe('the quick…');
    expect(clipText('a verylongwordwithoutspaces', 12)).toBe('a verylongw…');
    expect(clipText('abc', 1)).toBe('…');
  });
});
