/**
 * The prose gate never breaks a session: malformed, hostile and oversized PreToolUse payloads, run through the
 * exact hooks.json command with a kernel that has rules and a stand-in judge on PATH, all exit 0 with either no
 * output or one valid deny, and nothing on stderr.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addKernel, pathWith, runGate, stubBin } from '../gate/support.js';

let sb: Sandbox;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  sb = makeSandbox('gkb-gate-bad-');
  await addKernel(sb, { title: 'House style', body: 'Plain words; no filler.', rules: [{ pattern: '\\bleverage\\b', message: 'Say "use".' }] });
  env = { PATH: pathWith(stubBin(sb, 'pass.mjs'), sb), KB_PROSE_LINT_TIMEOUT_MS: '5000' };
});
afterAll(() => sb.cleanup());

const j = (v: unknown): string => JSON.stringify(v);
const nested = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const manyKeys: Record<string, string> = {};
for (let i = 0; i < 20_000; i++) manyKeys[`k${i}`] = i % 1000 === 0 ? 'We leverage this sentence with enough words in it to read as prose.' : 'v';

const CASES: Array<[string, string | Buffer]> = [
  ['empty stdin', ''],
  ['whitespace', '   \n\t'],
  ['null', 'null'],
  ['an array', '[]'],
  ['a number', '42'],
  ['a string', '"Write"'],
  ['an open brace', '{'],
  ['truncated JSON', '{"tool_name": "Write", "tool_input": {"content": "We leverage'],
  ['an empty object', '{}'],
  ['tool_name a number', j({ tool_name: 5, tool_input: { content: 'We leverage it' } })],
  ['tool_name null', j({ tool_name: null, tool_input: { content: 'We leverage it' } })],
  ['no tool_input', j({ tool_name: 'Write' })],
  ['tool_input null', j({ tool_name: 'Write', tool_input: null })],
  ['tool_input a string', j({ tool_name: 'Write', tool_input: 'We leverage it' })],
  ['Write fields of the wrong types', j({ tool_name: 'Write', tool_input: { content: 5, file_path: [] } })],
  ['Write with an object path', j({ tool_name: 'Write', tool_input: { file_path: { a: 1 }, content: 'We leverage it' } })],
  ['Edit with null and array strings', j({ tool_name: 'Edit', tool_input: { file_path: 'README.md', old_string: null, new_string: ['x'] } })],
  ['MultiEdit edits a string', j({ tool_name: 'MultiEdit', tool_input: { file_path: 'a.md', edits: 'nope' } })],
  ['MultiEdit with junk edits', j({ tool_name: 'MultiEdit', tool_input: { file_path: 'a.md', edits: [null, 5, 'x', { new_string: 7 }, { new_string: 'We leverage' }] } })],
  ['NotebookEdit of wrong types', j({ tool_name: 'NotebookEdit', tool_input: { new_source: {}, cell_type: 7 } })],
  ['Bash command an array', j({ tool_name: 'Bash', tool_input: { command: ['git', 'commit'] } })],
  ['git commit -m with no message', j({ tool_name: 'Bash', tool_input: { command: 'git commit -m' } })],
  ['an unterminated quote', j({ tool_name: 'Bash', tool_input: { command: 'git commit -m "unterminated leverage' } })],
  ['unbalanced substitutions', j({ tool_name: 'Bash', tool_input: { command: '$(((((((((( `` $( git commit -m "$(' } })],
  ['a commit message file that is a device', j({ tool_name: 'Bash', tool_input: { command: 'git commit -F /dev/zero' } })],
  ['a body file under /proc', j({ tool_name: 'Bash', tool_input: { command: 'gh pr create --title t --body-file /proc/self/status' } })],
  ['a heredoc that never ends', j({ tool_name: 'Bash', tool_input: { command: "git commit -F - <<'EOF'\nWe leverage it\n" } })],
  ['deeply nested input', `{"tool_name":"mcp__x__create_issue","tool_input":${nested(100_000)}}`],
  ['20,000 keys', j({ tool_name: 'mcp__x__add_comment', tool_input: manyKeys })],
  ['random bytes', crypto.randomBytes(4096)],
  ['invalid UTF-8 inside strings', Buffer.concat([Buffer.from('{"tool_name":"Write","tool_input":{"file_path":"a.md","content":"We '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' leverage"}}')])],
  ['a byte order mark', `\uFEFF${j({ tool_name: 'Write', tool_input: { file_path: 'a.md', content: 'We leverage it' } })}`],
  ['a prototype-polluting tool name', j({ tool_name: '__proto__', tool_input: {} })],
  ['a __proto__ key', '{"__proto__":{"tool_name":"Write"},"tool_input":{"content":"We leverage it"}}'],
  ['cwd a number', j({ tool_name: 'Write', tool_input: { file_path: 'README.md', content: 'We leverage' }, cwd: 12345 })],
  ['a path out of a missing cwd', j({ tool_name: 'Edit', tool_input: { file_path: '../../../../etc/passwd', old_string: 'root', new_string: 'We leverage' }, cwd: '/nonexistent/dir' })],
  ['a 100,000-character tool name', j({ tool_name: 'Comment'.repeat(15_000), tool_input: { text: 'We leverage this in a sentence long enough to count as prose here.' } })],
  ['NUL characters', j({ tool_name: 'Write', tool_input: { file_path: 'a\u0000.md', content: 'We\u0000 leverage\u0000 it' } })],
  ['lone surrogates', '{"tool_name":"Write","tool_input":{"file_path":"a.md","content":"We \\ud800 leverage \\udc00 it"}}'],
  ['a 5 MB write', j({ tool_name: 'Write', tool_input: { file_path: 'big.md', content: `${'word '.repeat(1_000_000)}We leverage it.` } })],
  ['a 9 MB payload (over the stdin limit)', j({ tool_name: 'Write', tool_input: { file_path: 'big.md', content: 'x'.repeat(9_000_000) } })],
];

describe('malformed PreToolUse payloads', () => {
  it('has at least 25 cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(25);
  });

  it.each(CASES)('%s: exit 0, no output or one valid deny, nothing on stderr', async (_name, input) => {
    const r = await runGate(sb, input, env);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    if (r.stdout !== '') {
      const out = JSON.parse(r.stdout) as { hookSpecificOutput: Record<string, unknown> };
      expect(Object.keys(out)).toEqual(['hookSpecificOutput']);
      expect(out.hookSpecificOutput.hookEventName).toBe('PreToolUse');
      expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
      expect(r.stdout.length).toBeLessThanOrEqual(9_000);
    }
  });
});
