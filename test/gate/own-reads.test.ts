import { describe, expect, it } from 'vitest';
import { isOwnRead, isOwnReadTool, MCP_READ_TOOLS } from '../../src/core/gate/own-reads.js';

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

describe('isOwnReadTool: the MCP tools of git-kb the gate allows without a permission prompt', () => {
  it('allows the read-only tools of the plugin\'s server and of a server registered as git-kb', () => {
    for (const tool of MCP_READ_TOOLS) {
      expect(isOwnReadTool(`mcp__plugin_git-kb_git-kb__${tool}`), tool).toBe(true);
      expect(isOwnReadTool(`mcp__git-kb__${tool}`), tool).toBe(true);
    }
  });

  it.each([
    'mcp__plugin_git-kb_git-kb__add',
    'mcp__plugin_git-kb_git-kb__edit',
    'mcp__plugin_git-kb_git-kb__delete',
    'mcp__plugin_git-kb_git-kb__prune',
    'mcp__plugin_git-kb_git-kb__promote',
    'mcp__plugin_git-kb_git-kb__compact_check',
    'mcp__git-kb__add',
    'mcp__other__search',
    'mcp__plugin_other_git-kb__search',
    'mcp__git-kbx__search',
    'mcp__git-kb__search_all',
    'search',
    'Bash',
  ])('does not allow %s', (t) => expect(isOwnReadTool(t)).toBe(false));
});
