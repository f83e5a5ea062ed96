/**
 * The prose gate, layer 1, as Claude Code runs it: the exact PreToolUse command of hooks/hooks.json as a
 * process, a payload of every covered kind on stdin, a data repo whose kernel entry carries rules, and no
 * `claude` on PATH (so no judge). Denies name the rule, quote the phrase and say where it is; code, URLs,
 * commands that publish nothing and excluded tools pass with no output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kb, makeSandbox, run, type Sandbox } from '../helpers/cli.js';
import { addKernel, parseDeny, pathWith, payload, preToolUseEntry, runGate } from '../gate/support.js';
import { MCP_READ_TOOLS } from '../../src/core/gate/own-reads.js';

let sb: Sandbox;
let kernelId: string;
let project: string;
let env: NodeJS.ProcessEnv;

const RULES = [
  { pattern: '\\bleverag(e|es|ed|ing)\\b', message: 'Say "use", not "leverage".' },
  { pattern: '!{2,}', message: 'One exclamation mark at most.', flags: '' },
  { pattern: '\\bsynerg(y|ies)\\b', message: 'No corporate filler.' },
];

beforeAll(async () => {
  sb = makeSandbox('gkb-gate-');
  const added = await addKernel(sb, { title: 'House style', body: 'Plain words only. Never "leverage"; one exclamation mark at most.', rules: RULES });
  kernelId = added.id;
  project = path.join(sb.root, 'project');
  fs.mkdirSync(path.join(project, 'docs'), { recursive: true });
  fs.writeFileSync(path.join(project, 'README.md'), '# Tool\n\nIntro line.\nSecond line to replace.\nLast line.\n');
  fs.writeFileSync(path.join(project, 'msg.txt'), 'Cache results\n\nWe leverage a small LRU here.\n');
  fs.writeFileSync(path.join(project, 'notes.md'), 'Thanks for the review!! Fixed.\n');
  env = { PATH: pathWith(undefined, sb) };
});
afterAll(() => sb.cleanup());

const gate = (tool: string, input: unknown, extra: NodeJS.ProcessEnv = {}) => runGate(sb, payload(tool, input, project), { ...env, ...extra });

async function expectDeny(tool: string, input: unknown): Promise<string> {
  const r = await gate(tool, input);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  return parseDeny(r).hookSpecificOutput.permissionDecisionReason;
}

async function expectAllow(tool: string, input: unknown, extra: NodeJS.ProcessEnv = {}): Promise<void> {
  const r = await gate(tool, input, extra);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
}

describe('hooks.json wiring', () => {
  it('matches file writes, Bash and tools named for comments, reviews, revisions, issues, tickets and PRs', () => {
    const entry = preToolUseEntry();
    expect(entry.hooks[0]!.command).toContain('${CLAUDE_PLUGIN_ROOT}/bin/git-kb-hook');
    expect(entry.hooks[0]!.command).toMatch(/ pretool$/);
    // NOTE: Claude Code reads a matcher with regex characters as an unanchored JavaScript regular expression.
    const re = new RegExp(entry.matcher);
    for (const name of [
      'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Bash', 'AddComment', 'SubmitReview', 'CreateRevision', 'UpdateIssue',
      'OpenTicket', 'CreatePullRequest', 'mcp__github__create_pull_request', 'mcp__github__add_issue_comment',
      'mcp__github__create_pending_pull_request_review', 'mcp__linear__create_issue', 'mcp__jira__create_ticket',
    ]) {
      expect(re.test(name), name).toBe(true);
    }
    for (const name of ['Read', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'Task', 'LS']) expect(re.test(name), name).toBe(false);
  });

  it('matches exactly the read-only tools of git-kb\'s MCP server, which it allows; its writes ask as usual', async () => {
    const re = new RegExp(preToolUseEntry().matcher);
    for (const server of ['plugin_git-kb_git-kb', 'git-kb']) {
      for (const tool of MCP_READ_TOOLS) expect(re.test(`mcp__${server}__${tool}`), tool).toBe(true);
      for (const tool of ['add', 'edit', 'delete', 'prune', 'promote', 'compact_check']) expect(re.test(`mcp__${server}__${tool}`), tool).toBe(false);
    }
    const r = await gate('mcp__plugin_git-kb_git-kb__search', { query: ['redis eviction'] });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'git-kb: a read-only tool of the knowledge base' } });
    // Even with the prose gate off, as for git-kb's own Bash reads.
    expect(JSON.parse((await gate('mcp__git-kb__get', { ids: ['kb-0042'] }, { KB_PROSE_LINT: 'off' })).stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    // A write sent by a broader matcher is not allowed: no output, Claude Code asks as usual.
    await expectAllow('mcp__plugin_git-kb_git-kb__add', { type: 'decision', title: 'x', body: 'y' });
  });
});

describe('git-kb install', () => {
  it('wires the same PreToolUse entry into ~/.claude/settings.json, and its command denies like the plugin\'s', async () => {
    const r = await kb(sb, ['install', '--json']);
    expect(r.code).toBe(0);
    const settings = JSON.parse(fs.readFileSync(path.join(sb.home, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, Array<{ matcher?: string; hooks: Array<{ command: string }> }>> };
    const entry = settings.hooks.PreToolUse!.find((g) => g.hooks.some((h) => / pretool$/.test(h.command)))!;
    expect(entry.matcher).toBe(preToolUseEntry().matcher);
    const input = JSON.stringify(payload('Write', { file_path: path.join(project, 'README.md'), content: 'We leverage it.' }, project));
    const out = await run('sh', ['-c', entry.hooks[0]!.command], { env: { ...sb.env, ...env, GIT_KB_DATA: sb.data }, input });
    expect(parseDeny(out).hookSpecificOutput.permissionDecisionReason).toContain('"leverage"');
  });
});

describe('layer 1 denies', () => {
  it('a banned word in a README write, naming the rule, quoting the phrase and giving file and line', async () => {
    const reason = await expectDeny('Write', { file_path: path.join(project, 'README.md'), content: '# Tool\n\nIt helps.\nWe leverage a cache.\n' });
    expect(reason).toContain('git-kb prose gate');
    expect(reason).toContain(`- README.md:4: "leverage" breaks rule 1 of ${kernelId} (House style): Say "use", not "leverage".`);
    expect(reason).toContain('git-kb get');
  });

  it('every rule broken, each occurrence with its own line', async () => {
    const reason = await expectDeny('Write', { file_path: 'docs/guide.md', content: 'Leveraging caches!!\n\nSynergy first.\n' });
    expect(reason).toContain('- docs/guide.md:1: "Leveraging" breaks rule 1');
    expect(reason).toContain('- docs/guide.md:1: "!!" breaks rule 2');
    expect(reason).toContain('- docs/guide.md:3: "Synergy" breaks rule 3');
  });

  it('a banned word in a source comment, but never in code, strings or identifiers', async () => {
    const code = 'const leverage = 1;\nexport function leverageAll(): string {\n  return "leverage";\n}\n';
    await expectAllow('Write', { file_path: path.join(project, 'src/lib.ts'), content: code });
    const reason = await expectDeny('Write', { file_path: path.join(project, 'src/lib.ts'), content: `${code}// We leverage the cache here.\n` });
    expect(reason).toContain('- comment in src/lib.ts:5: "leverage" breaks rule 1');
  });

  it('an Edit, located by the line of old_string in the file on disk', async () => {
    const reason = await expectDeny('Edit', { file_path: path.join(project, 'README.md'), old_string: 'Second line to replace.', new_string: 'We leverage it.' });
    expect(reason).toContain('- README.md:4 (edit): "leverage" breaks rule 1');
  });

  it('a MultiEdit, naming the edit', async () => {
    const reason = await expectDeny('MultiEdit', {
      file_path: path.join(project, 'docs/new.md'),
      edits: [{ old_string: 'a', new_string: 'Fine words.' }, { old_string: 'b', new_string: 'Wow!!' }],
    });
    expect(reason).toContain('- docs/new.md (edit 2, new text), line 1: "!!"');
    expect(reason).toContain('"!!"');
  });

  it('a NotebookEdit markdown cell', async () => {
    const reason = await expectDeny('NotebookEdit', { notebook_path: path.join(project, 'a.ipynb'), cell_type: 'markdown', new_source: 'Here we leverage pandas.' });
    expect(reason).toContain('- a.ipynb (markdown cell), line 1: "leverage"');
  });

  it('a commit message given with -m, -F FILE and a heredoc', async () => {
    let reason = await expectDeny('Bash', { command: 'git add -A && git commit -m "Cache results" -m "We leverage an LRU."' });
    expect(reason).toContain('- commit message, line 3: "leverage" breaks rule 1');
    reason = await expectDeny('Bash', { command: 'git commit -F msg.txt' });
    expect(reason).toContain('commit message (file msg.txt), line 3');
    reason = await expectDeny('Bash', { command: "git commit -F - <<'EOF'\nShip it!!\n\nDone.\nEOF" });
    expect(reason).toContain('- commit message, line 1: "!!" breaks rule 2');
  });

  it('PR and issue bodies, comments, review bodies and body files from gh', async () => {
    let reason = await expectDeny('Bash', { command: 'gh pr create --title "Add cache" --body "This PR lets us leverage an LRU."' });
    expect(reason).toContain('gh pr create --body');
    reason = await expectDeny('Bash', { command: 'gh issue create -t "Synergy" -b "Plain body text here."' });
    expect(reason).toContain('gh issue create --title');
    reason = await expectDeny('Bash', { command: 'gh issue comment 12 --body-file notes.md' });
    expect(reason).toContain('gh issue comment --body-file notes.md');
    reason = await expectDeny('Bash', { command: 'gh pr review 3 --comment --body "Nice synergy in this change."' });
    expect(reason).toContain('gh pr review --body');
  });

  it('prose strings of other matched tools (MCP and custom)', async () => {
    let reason = await expectDeny('mcp__github__create_pull_request', { owner: 'o', repo: 'r', title: 'Cache', body: 'This change lets the service leverage a cache for every request it serves!!' });
    expect(reason).toContain('mcp__github__create_pull_request input.body');
    expect(reason).toContain('rule 1');
    expect(reason).toContain('rule 2');
    reason = await expectDeny('AddComment', { issue: 'KB-12', text: 'I think we can leverage the existing queue for this and ship it next week.' });
    expect(reason).toContain('AddComment input.text');
  });
});

describe('layer 1 passes', () => {
  it('code fences, inline code and URLs inside prose', async () => {
    const content = 'Run this:\n\n```sh\nnpm run leverage!!\n```\n\nSee `leverage()` and https://example.com/leverage!!x for details.\n';
    await expectAllow('Write', { file_path: path.join(project, 'README.md'), content });
  });

  it('commands that publish nothing', async () => {
    for (const command of ['ls -la leverage/', 'echo "we leverage synergy!!"', 'grep -r leverage .', 'git log --grep leverage', 'git commit --amend --no-edit']) {
      await expectAllow('Bash', { command });
    }
  });

  it('tools that never publish prose, whatever their input', async () => {
    const input = { file_path: 'README.md', pattern: 'leverage!!', content: 'We leverage synergy!!', prompt: 'We leverage synergy!! '.repeat(5), url: 'https://x.y', todos: [{ content: 'We leverage synergy!! in every sentence we write here' }] };
    for (const tool of ['Read', 'Grep', 'Glob', 'TodoWrite', 'Task', 'WebFetch', 'WebSearch', 'LS']) await expectAllow(tool, input);
  });

  it('clean prose', async () => {
    await expectAllow('Write', { file_path: path.join(project, 'README.md'), content: '# Tool\n\nIt uses a cache.\n' });
    await expectAllow('Bash', { command: 'git commit -m "Use an LRU cache for lookups"' });
  });

  it('everything when KB_PROSE_LINT is 0, false, no or off', async () => {
    for (const v of ['0', 'false', 'no', 'off', 'OFF']) {
      await expectAllow('Write', { file_path: path.join(project, 'README.md'), content: 'We leverage it!!' }, { KB_PROSE_LINT: v });
    }
    const r = await gate('Write', { file_path: path.join(project, 'README.md'), content: 'We leverage it!!' }, { KB_PROSE_LINT: 'rules' });
    parseDeny(r);
  });

  it('logs its decision when KB_HOOK_DEBUG is on (any spelling of on), and not when it is off', async () => {
    const file = path.join(sb.root, 'pretool-debug.jsonl');
    await expectAllow('Write', { file_path: path.join(project, 'README.md'), content: '# Tool\n\nIt uses a cache.\n' }, { KB_HOOK_DEBUG: ' Yes', KB_HOOK_DEBUG_FILE: file });
    const records = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(records.at(-1)).toMatchObject({ event: 'pretool', tool: 'Write', decision: 'allow' });
    fs.rmSync(file);
    await expectAllow('Write', { file_path: path.join(project, 'README.md'), content: '# Tool\n\nIt uses a cache.\n' }, { KB_HOOK_DEBUG: 'off', KB_HOOK_DEBUG_FILE: file });
    expect(fs.existsSync(file)).toBe(false);
  });

  it('everything when there is no data repo, or no kernel rules', async () => {
    await expectAllow('Write', { file_path: 'README.md', content: 'We leverage it!!' }, { GIT_KB_DATA: path.join(sb.root, 'nowhere') });
    const other = makeSandbox('gkb-gate-empty-');
    try {
      await addKernel(other, { title: 'Style without rules', body: 'Be brief.' });
      const r = await runGate(other, payload('Write', { file_path: 'README.md', content: 'We leverage it!!' }), { PATH: pathWith(undefined, other) });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
    } finally {
      other.cleanup();
    }
  });
});
