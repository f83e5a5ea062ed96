/**
 * Contract: which Bash commands are git-kb's own reads (spec/hooks.md, "Own reads"): `git-kb` (or a path ending
 * in `/bin/git-kb`, or `node` running one) followed by a read-only verb (get, search, list, status, doctor, history,
 * lint, tags, host load/list/status/detect, session list/show) and plain arguments. Quotes are fine; anything a
 * shell could turn into a second command or a write (`;`, `&`, `|`, `<`, `>`, `$`, backticks, braces, a line
 * break) is not. The PreToolUse hook answers "allow" for these, so the `git-kb get` that the prompt hook's
 * pointers and the skill ask for runs without a permission prompt; everything else goes its usual way. The same
 * holds for the read-only tools of git-kb's own MCP server (`isOwnReadTool`). Pure.
 */

const READ_VERBS = /^(?:get|search|list|status|doctor|history|lint|tags|host\s+(?:load|list|status|detect)|session\s+(?:list|show))(?:\s|$)/;
const PROGRAM = /^(?:(?:node\s+)?(?:"[^"]*\/bin\/git-kb"|'[^']*\/bin\/git-kb'|[^\s'"]*\/bin\/git-kb)|git-kb|git\s+kb)\s+/;
const SHELL_SYNTAX = /[;&|<>`$(){}\n\r\\]/;

/** True when `command` is a read-only git-kb command with nothing else in it. */
export function isOwnRead(command: string): boolean {
  const c = command.trim();
  if (c.length > 2000 || SHELL_SYNTAX.test(c)) return false;
  const m = PROGRAM.exec(c);
  return !!m && isReadVerb(c.slice(m[0].length));
}

/** True when the words after `git-kb` (`--json get kb-1`, `--data DIR search x`) name a read-only verb. */
export function isReadVerb(args: string): boolean {
  // NOTE: global flags may come before the verb: --json, --data DIR.
  const rest = args.trim().replace(/^(?:(?:--json|--data\s+(?:"[^"]*"|'[^']*'|[^\s'"]+))\s+)*/, '');
  return READ_VERBS.test(rest);
}

/**
 * The tools of git-kb's MCP server that only read (their annotations say readOnlyHint; test/mcp checks the two
 * agree). Every other tool of the server writes and is asked about as usual.
 */
export const MCP_READ_TOOLS = ['search', 'get', 'list', 'tags', 'status', 'host_load', 'session_list', 'session_show'] as const;

/**
 * How Claude Code names the server's tools: `mcp__plugin_git-kb_git-kb__<tool>` as the plugin's `.mcp.json`
 * registers it, `mcp__git-kb__<tool>` as README's `claude mcp add --scope user git-kb` does.
 */
const MCP_TOOL = /^mcp__(?:plugin_git-kb_git-kb|git-kb)__([a-z_]+)$/;

/** True when `tool` is a read-only tool of git-kb's MCP server. */
export function isOwnReadTool(tool: string): boolean {
  const m = MCP_TOOL.exec(tool);
  return !!m && (MCP_READ_TOOLS as readonly string[]).includes(m[1]!);
}
