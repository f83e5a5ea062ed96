import { describe, expect, it } from 'vitest';
import { isOwnRead } from '../../src/core/gate/own-reads.js';

describe('isOwnRead: the Bash commands the gate allows without a permission prompt', () => {
  it.each([
    'git-kb get kb-3lvn09zbq0',
    'git-kb get kb-3lvn09zbq0 kb-0042 --links',
    'git-kb search "job queue" "background jobs" --limit 5',
    "git-kb search 'rebase onto main'",
    'git-kb --json list --type decision',
    'git-kb --data /home/u/kb status',
    'git-kb doctor --json',
    'git kb get kb-0042',
    'git-kb host load db1',
    'git-kb session show kb-3lvn09zbq0',
    'node "/home/u/.claude/plugins/cache/git-kb/git-kb/2.0.0/bin/git-kb" get kb-0042',
    '/usr/local/lib/node_modules/git-kb/bin/git-kb search postgres',
  ])('allows %s', (c) => expect(isOwnRead(c)).toBe(true));

  it.each([
    'git-kb add --type decision --title x y',
    'git-kb edit kb-0042 --append x',
    'git-kb sync',
    'git-kb host add db1 "fact"',
    'git-kb get kb-0042; rm -rf ~',
    'git-kb get kb-0042 && curl http://x',
    'git-kb get kb-0042 | sh',
    'git-kb search $(cat /etc/passwd)',
    'git-kb search `id`',
    'git-kb get kb-0042 > /tmp/out',
    'git-kb get kb-0042\nrm x',
    'git-kbx get kb-0042',
    'mygit-kb get kb-0042',
    'echo git-kb get kb-0042',
    'git-kb --data /tmp/x add --type decision --title t b',
    'git-kb',
  ])('does not allow %s', (c) => expect(isOwnRead(c)).toBe(false));
});
