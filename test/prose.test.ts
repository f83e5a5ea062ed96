import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_READ_BYTES, readBounded } from '../src/adapters/system/read-bounded.js';
import { extractProse, looksLikeProse, MAX_PROSE_CHARS, NEVER_PROSE_TOOLS, type ProsePiece } from '../src/core/prose/extract.js';

const texts = (pieces: ProsePiece[]): string[] => pieces.map((p) => p.text);
const all = (pieces: ProsePiece[]): string => texts(pieces).join('\n---\n');
const bash = (command: string, files: Record<string, string> = {}, cwd = '/repo'): ProsePiece[] =>
  extractProse('Bash', { command }, { cwd, readFile: (p) => files[p] });

describe('file writes', () => {
  it('takes a README write whole', () => {
    const content = '# Project\n\nThis tool helps you delve into notes.\n';
    expect(extractProse('Write', { file_path: '/repo/README.md', content }, { cwd: '/repo' })).toEqual([
      { source: 'README.md', text: content, line: 1 },
    ]);
  });

  it('treats text-like names and extensions as text', () => {
    for (const file_path of ['CHANGELOG', 'LICENSE', 'notes.txt', 'doc.rst', 'guide.adoc', 'x.mdx', '.git/COMMIT_EDITMSG', 'LICENSE-MIT']) {
      const pieces = extractProse('Write', { file_path, content: 'Some words here; and more {words}.' });
      expect(pieces, file_path).toHaveLength(1);
      expect(pieces[0]?.text).toBe('Some words here; and more {words}.');
    }
  });

  it('keeps only comments from a TypeScript file, never strings or identifiers', () => {
    const content = [
      "import { x } from './x.js';",
      '',
      '/**',
      ' * Computes a robust total.',
      ' */',
      'export function leverageTotal(a: number): string {',
      '  const url = "http://example.com/leverage"; // a trailing note about synergy',
      "  const s = 'leverage // not a comment';",
      '  const t = `leverage /* nor this */ ${a}`;',
      '  // first line of a run',
      '  // second line of the run',
      '  return s + t + url;',
      '}',
    ].join('\n');
    const pieces = extractProse('Write', { file_path: '/repo/src/a.ts', content }, { cwd: '/repo' });
    expect(pieces).toEqual([
      { source: 'comment in src/a.ts:4', text: 'Computes a robust total.', line: 4 },
      { source: 'comment in src/a.ts:7', text: 'a trailing note about synergy', line: 7 },
      { source: 'comment in src/a.ts:10', text: 'first line of a run\nsecond line of the run', line: 10 },
    ]);
    expect(all(pieces)).not.toMatch(/leverage|not a comment|nor this|example/);
  });

  it('skips JS regex literals that hold quotes or slashes', () => {
    const content = 'const re = /["\']/g; // quotes regex\nconst half = total / 2; // halve it\n';
    expect(texts(extractProse('Write', { file_path: 'a.js', content }))).toEqual(['quotes regex', 'halve it']);
  });

  it('handles Rust lifetimes and char literals', () => {
    const content = "fn f<'a>(x: &'a str) -> char { // pick the first char\n  '\"' // a quote char\n}\n";
    expect(texts(extractProse('Write', { file_path: 'lib.rs', content }))).toEqual(['pick the first char', 'a quote char']);
  });

  it('extracts Python docstrings and comments but not other triple-quoted strings', () => {
    const content = [
      '"""Module docstring with a robust claim."""',
      'import os',
      '',
      'SQL = """select leverage from t"""',
      '',
      'def f(x):',
      '    r"""Return x, seamlessly.',
      '',
      '    More text.',
      '    """',
      '    y = call("""leverage in an argument""")',
      "    s = '# not a comment'",
      '    return x  # the answer',
      '',
      'class C:',
      "    '''Class doc.'''",
    ].join('\n');
    const pieces = extractProse('Write', { file_path: 'm.py', content });
    expect(pieces.map((p) => [p.source, p.text])).toEqual([
      ['docstring in m.py:1', 'Module docstring with a robust claim.'],
      ['docstring in m.py:7', 'Return x, seamlessly.\n\nMore text.'],
      ['comment in m.py:13', 'the answer'],
      ['docstring in m.py:16', 'Class doc.'],
    ]);
  });

  it('extracts shell # comments, skipping $#, strings and heredoc bodies', () => {
    const content = [
      '#!/usr/bin/env bash',
      '# Deploy the robust build.',
      'echo "$# args # not a comment"',
      "echo 'single # quoted'",
      'cat <<EOF',
      '# heredoc line, not a comment',
      'EOF',
      'x=1 # set x',
    ].join('\n');
    const pieces = extractProse('Write', { file_path: 'deploy.sh', content });
    expect(pieces.map((p) => [p.text, p.line])).toEqual([
      ['Deploy the robust build.', 2],
      ['set x', 8],
    ]);
  });

  it('knows YAML, SQL, Lua, HTML and CSS comments', () => {
    expect(texts(extractProse('Write', { file_path: 'c.yml', content: "a: it's fine # yaml note\nb: '#x'\n" }))).toEqual(['yaml note']);
    expect(texts(extractProse('Write', { file_path: 'q.sql', content: "select '--x' -- sql note\n/* block */" }))).toEqual(['sql note', 'block']);
    expect(texts(extractProse('Write', { file_path: 'a.lua', content: '--[[ lua block ]]\nlocal x = 1 -- lua line' }))).toEqual(['lua block', 'lua line']);
    expect(texts(extractProse('Write', { file_path: 'i.html', content: '<p>Hi</p><!-- html note -->' }))).toEqual(['html note']);
    expect(texts(extractProse('Write', { file_path: 's.css', content: 'a { b: url(http://x); } /* css note */' }))).toEqual(['css note']);
  });

  it('drops decoration-only comments', () => {
    expect(extractProse('Write', { file_path: 'a.ts', content: '// ------\nconst a = 1;\n/* ** */' })).toEqual([]);
  });

  it('sniffs unknown extensions: code gets comments, prose gets the whole text', () => {
    const code = 'x = compute();\ny = other(x);\n// a note in code\n';
    expect(texts(extractProse('Write', { file_path: 'thing.weird', content: code }))).toEqual(['a note in code']);
    const prose = 'Dear reader,\n\nThis is a letter about the plan.\n';
    expect(texts(extractProse('Write', { file_path: 'letter.weird', content: prose }))).toEqual([prose]);
    expect(texts(extractProse('Write', { file_path: 'run', content: '#!/bin/sh\n# runs it\nexec x "$@"\n' }))).toEqual(['runs it']);
    expect(texts(extractProse('Write', { file_path: 'Dockerfile', content: 'FROM node\n# base image\nRUN echo "#x"\n' }))).toEqual(['base image']);
  });

  it('reads Edit new_string and places comments at the file line when the old text is found', () => {
    const file = 'line1\nline2\nconst a = 1;\n';
    const pieces = extractProse(
      'Edit',
      { file_path: '/repo/src/a.ts', old_string: 'const a = 1;', new_string: '// a synergy note\nconst a = 2;' },
      { cwd: '/repo', readFile: (p) => (p === '/repo/src/a.ts' ? file : undefined) },
    );
    expect(pieces).toEqual([{ source: 'comment in src/a.ts:3 (edit)', text: 'a synergy note', line: 3 }]);
    const blind = extractProse('Edit', { file_path: '/repo/src/a.ts', old_string: 'zzz', new_string: 'x;\n// note' }, { cwd: '/repo', readFile: () => undefined });
    expect(blind).toEqual([{ source: 'comment in src/a.ts (edit, line 2 of the new text)', text: 'note', line: 2 }]);
  });

  it('takes a markdown Edit whole and MultiEdit per edit', () => {
    expect(extractProse('Edit', { file_path: '/r/docs/a.md', old_string: 'x', new_string: 'New paragraph.' }, { cwd: '/r', readFile: () => undefined })).toEqual([
      { source: 'docs/a.md (edit, new text)', text: 'New paragraph.', line: 1 },
    ]);
    const multi = extractProse('MultiEdit', {
      file_path: 'docs/a.md',
      edits: [{ old_string: 'a', new_string: 'First.' }, null, { old_string: 'b' }, { old_string: 'c', new_string: 'Third.' }],
    }, { readFile: () => undefined });
    expect(multi.map((p) => [p.source, p.text])).toEqual([
      ['docs/a.md (edit 1, new text)', 'First.'],
      ['docs/a.md (edit 4, new text)', 'Third.'],
    ]);
  });

  it('handles NotebookEdit markdown and code cells', () => {
    expect(extractProse('NotebookEdit', { notebook_path: 'n.ipynb', new_source: '# Title\nSome prose.', cell_type: 'markdown' })).toEqual([
      { source: 'n.ipynb (markdown cell)', text: '# Title\nSome prose.', line: 1 },
    ]);
    expect(texts(extractProse('NotebookEdit', { notebook_path: 'n.ipynb', new_source: 'x = 1  # the count\ns = "# no"', cell_type: 'code' }))).toEqual(['the count']);
    expect(extractProse('NotebookEdit', { notebook_path: 'n.ipynb', new_source: 'x', cell_type: 'code', edit_mode: 'delete' })).toEqual([]);
  });

  it('reads the cells of a whole notebook write', () => {
    const nb = JSON.stringify({ cells: [{ cell_type: 'markdown', source: ['# Intro\n', 'Words.'] }, { cell_type: 'code', source: 'y = 2  # why two\n' }] });
    expect(extractProse('Write', { file_path: 'n.ipynb', content: nb }).map((p) => [p.source, p.text])).toEqual([
      ['n.ipynb (cell 1, markdown)', '# Intro\nWords.'],
      ['comment in n.ipynb (cell 2):1', 'why two'],
    ]);
  });
});

describe('Bash', () => {
  it('takes git commit -m, several -m as paragraphs', () => {
    expect(bash('git commit -m "Fix the parser" -m \'Second paragraph.\'')).toEqual([
      { source: 'commit message', text: 'Fix the parser\n\nSecond paragraph.', line: 1 },
    ]);
  });

  it('copes with cd, &&, ;, ||, pipes, clusters and --message=', () => {
    expect(texts(bash('cd sub && git add . && git commit -am "One"; echo done || true'))).toEqual(['One']);
    expect(texts(bash('git commit --message="Two words" --amend'))).toEqual(['Two words']);
    expect(texts(bash("git -C other commit -m'Three'"))).toEqual(['Three']);
    expect(texts(bash('git status | head -1 && git commit -S -m Four'))).toEqual(['Four']);
    expect(texts(bash('FOO=1 git commit -qm "Five" -- src/a.ts'))).toEqual(['Five']);
  });

  it('handles escapes, $\'..\', and line continuations', () => {
    expect(texts(bash('git commit -m "say \\"hi\\" to \\$HOME" \\\n  -m $\'line\\nnext\\tTab\''))).toEqual(['say "hi" to $HOME\n\nline\nnext\tTab']);
    expect(texts(bash('git commit -m don\\\'t'))).toEqual(["don't"]);
  });

  it('reads -F files relative to cwd, cd and git -C', () => {
    const files = { '/repo/msg.txt': 'From a file.\n', '/repo/sub/m2.txt': 'From sub.\n', '/other/m3.txt': 'Via -C.\n' };
    expect(bash('git commit -F msg.txt', files)).toEqual([{ source: 'commit message (file msg.txt)', text: 'From a file.\n', line: 1 }]);
    expect(texts(bash('cd sub && git commit --file=m2.txt', files))).toEqual(['From sub.\n']);
    expect(texts(bash('git -C /other commit -F m3.txt', files))).toEqual(['Via -C.\n']);
    expect(bash('git commit -F missing.txt', files)).toEqual([]);
  });

  it('reads heredoc messages: -F - <<EOF and -m "$(cat <<EOF ...)"', () => {
    expect(bash("git commit -F - <<'EOF'\nTitle (closes #1)\n\nIt's done.\nEOF\necho after")).toEqual([
      { source: 'commit message', text: "Title (closes #1)\n\nIt's done.\n", line: 1 },
    ]);
    const cmd = 'git add -A && git commit -m "$(cat <<\'EOF\'\nFix: handle ) and \' in body\n\nCo-Authored-By: x\nEOF\n)"';
    expect(texts(bash(cmd))).toEqual(["Fix: handle ) and ' in body\n\nCo-Authored-By: x"]);
    expect(texts(bash('git commit -F - <<-EOF\n\tTabbed.\n\tEOF'))).toEqual(['Tabbed.\n']);
    expect(texts(bash('git commit -F - <<< "Here string"'))).toEqual(['Here string\n']);
    expect(texts(bash('echo "Piped message" | git commit -F -'))).toEqual(['Piped message\n']);
  });

  it('takes trailers, merge and tag messages', () => {
    expect(bash('git commit -m x --trailer "Co-authored-by: A <a@b>"').map((p) => p.source)).toEqual(['commit message', 'commit message --trailer']);
    expect(bash('git merge --no-ff -m "Merge it" topic')).toEqual([{ source: 'merge message', text: 'Merge it', line: 1 }]);
    expect(bash('git tag -a v1 -m "Release one"')).toEqual([{ source: 'tag message', text: 'Release one', line: 1 }]);
  });

  it('takes gh pr create title, body and body-file', () => {
    const files = { '/repo/notes.md': '## Notes\nBody from file.\n' };
    expect(bash('gh pr create --title "Add x" --body "The body." --base main', files)).toEqual([
      { source: 'gh pr create --title', text: 'Add x', line: 1 },
      { source: 'gh pr create --body', text: 'The body.', line: 1 },
    ]);
    expect(bash('gh pr create -t T -F notes.md', files)).toEqual([
      { source: 'gh pr create --title', text: 'T', line: 1 },
      { source: 'gh pr create --body-file notes.md', text: '## Notes\nBody from file.\n', line: 1 },
    ]);
    const heredoc = "gh pr create --title \"T\" --body \"$(cat <<'EOF'\n## Summary\n- one\nEOF\n)\"";
    expect(texts(bash(heredoc))).toEqual(['T', '## Summary\n- one']);
    expect(texts(bash('gh pr edit 3 --body=Changed -bAttached'))).toEqual(['Changed', 'Attached']);
  });

  it('takes gh review, comment, issue, merge, close and release bodies', () => {
    expect(bash('gh pr review 12 --request-changes -b "Please fix."')).toEqual([{ source: 'gh pr review --body', text: 'Please fix.', line: 1 }]);
    expect(bash('gh issue comment 5 --body "Thanks!"')).toEqual([{ source: 'gh issue comment --body', text: 'Thanks!', line: 1 }]);
    expect(bash('gh pr comment 5 -b "LGTM"').map((p) => p.source)).toEqual(['gh pr comment --body']);
    expect(bash('gh issue create -t "Bug" -b "Steps."').map((p) => p.source)).toEqual(['gh issue create --title', 'gh issue create --body']);
    expect(bash('gh pr merge 4 --squash --subject "S" --body "B"').map((p) => p.source)).toEqual(['gh pr merge --subject', 'gh pr merge --body']);
    expect(bash('gh issue close 9 -c "Fixed in 1.2"').map((p) => p.source)).toEqual(['gh issue close --comment']);
    expect(bash('gh release create v1 --notes "Release notes."').map((p) => p.source)).toEqual(['gh release create --notes']);
    expect(bash('gh api repos/o/r/issues/1/comments -f body="Via the API."')).toEqual([{ source: 'gh api -f body', text: 'Via the API.', line: 1 }]);
  });

  it('follows bash -c', () => {
    expect(texts(bash('bash -lc "git commit -m \'Inner\'"'))).toEqual(['Inner']);
  });

  it('ignores every other command', () => {
    for (const cmd of [
      'ls -la',
      'echo "git commit -m not-real"',
      'npm test # git commit -m x',
      'git log -m',
      'git commit',
      'git commit -C HEAD',
      'gh pr view 3 --comments',
      'gh pr list',
      'cat <<EOF\ngit commit -m nope\nEOF',
      "grep -r 'delve' .",
    ]) {
      expect(bash(cmd), cmd).toEqual([]);
    }
  });
});

describe('other tools', () => {
  const body = 'This pull request makes the parser robust against malformed input, and adds tests.';

  it('walks MCP inputs for prose strings', () => {
    const pieces = extractProse('mcp__jira__add_comment', {
      issueKey: 'PROJ-123',
      body,
      url: 'https://example.com/a/very/long/path/that/goes/on/and/on/and/on/for/more/than/sixty',
      meta: { nested: [{ text: body }] },
      code: 'function f(x) { return x + 1; } // a long line of code here that is long enough',
      sha: 'a'.repeat(64),
    });
    expect(pieces).toEqual([
      { source: 'mcp__jira__add_comment input.body', text: body },
      { source: 'mcp__jira__add_comment input.meta.nested[0].text', text: body },
    ]);
  });

  it('keeps shorter strings under prose keys and quotes odd keys', () => {
    const pieces = extractProse('mcp__github__create_pull_request', { title: 'Make parser robust', head: 'feat/x', 'odd key': body });
    expect(pieces.map((p) => p.source)).toEqual([
      'mcp__github__create_pull_request input.title',
      'mcp__github__create_pull_request input["odd key"]',
    ]);
  });

  it('skips code, paths and ids even when long', () => {
    const input = {
      a: 'const x = require("y");\nconst z = x.map((q) => q * 2);\nexport default z;',
      b: '/home/user/projects/some project/src/components/very/deep/file name.ts',
      c: 'feat-make-parser-robust-against-malformed-input-and-add-tests-1234567',
    };
    expect(extractProse('mcp__linear__create_comment', input)).toEqual([]);
  });

  it('passes NEVER_PROSE_TOOLS at once', () => {
    for (const tool of ['Read', 'Glob', 'Grep', 'LS', 'TodoWrite', 'Task', 'WebFetch', 'WebSearch', 'BashOutput', 'KillShell', 'ExitPlanMode', 'NotebookRead']) {
      expect(NEVER_PROSE_TOOLS.has(tool), tool).toBe(true);
      expect(extractProse(tool, { prompt: body, content: body })).toEqual([]);
    }
  });

  it('looksLikeProse separates prose from non-prose', () => {
    expect(looksLikeProse(body)).toBe(true);
    expect(looksLikeProse('https://example.com/' + 'x'.repeat(80))).toBe(false);
    expect(looksLikeProse('short words')).toBe(false);
    expect(looksLikeProse('if (a) { b(); } else { c(); } while (d) { e(); } return f(g, h);')).toBe(false);
  });
});

describe('malformed input never throws', () => {
  const huge = 'x'.repeat(5_000_000);
  const cases: Array<[string, unknown]> = [
    ['Write', null],
    ['Write', undefined],
    ['Write', 42],
    ['Write', 'a string'],
    ['Write', []],
    ['Write', { file_path: 12, content: {} }],
    ['Write', { file_path: 'a.ts' }],
    ['Edit', { file_path: 'a.md', new_string: 7 }],
    ['Edit', { new_string: null }],
    ['MultiEdit', { file_path: 'a.md', edits: 'nope' }],
    ['MultiEdit', { file_path: 'a.md', edits: [1, 'x', [], { new_string: {} }] }],
    ['NotebookEdit', { new_source: ['x'] }],
    ['Bash', { command: 5 }],
    ['Bash', { command: '' }],
    ['Bash', { command: 'git commit -m "unterminated' }],
    ['Bash', { command: "git commit -m 'unterminated" }],
    ['Bash', { command: 'git commit -m "$(cat <<EOF\nno end' }],
    ['Bash', { command: 'git commit -m $((1<<2)) ${x' }],
    ['Bash', { command: 'git commit -m ' + '$('.repeat(10_000) }],
    ['Bash', { command: 'git commit -F - <<' }],
    ['Bash', { command: '\\' }],
    ['Bash', { command: "$'\\x" }],
    ['Bash', { command: 'gh pr create --body' }],
    ['Bash', { command: 'gh' }],
    ['Bash', { command: 'git -C' }],
    ['Write', { file_path: 'a.ts', content: '/* unterminated ' + huge }],
    ['Write', { file_path: 'a.py', content: '"""' + huge }],
    ['Write', { file_path: 'n.ipynb', content: '{"cells": 3}' }],
    ['Write', { file_path: 'n.ipynb', content: '{not json' }],
    ['mcp__x__comment', null],
    ['mcp__x__comment', 'a prose string that is quite long enough to count as prose in a tool input'],
    ['mcp__x__comment', { a: { b: { c: { d: { e: { f: { g: { h: { i: { j: { k: { l: { m: { n: 'deep prose string that is long enough to be taken as prose if reached' } } } } } } } } } } } } } }],
    ['mcp__x__comment', { big: huge + ' ' + huge }],
    ['mcp__x__comment', Array.from({ length: 50_000 }, () => 'x')],
    ['', { command: 'git commit -m x' }],
    [42 as unknown as string, {}],
    [null as unknown as string, {}],
  ];

  it.each(cases.map((c, k) => [k, ...c] as const))('case %i: %s', (_k, tool, input) => {
    const pieces = extractProse(tool, input, { cwd: '/repo', readFile: () => undefined });
    expect(Array.isArray(pieces)).toBe(true);
    const total = pieces.reduce((n, p) => n + p.text.length, 0);
    expect(total).toBeLessThanOrEqual(MAX_PROSE_CHARS);
    for (const p of pieces) expect(typeof p.source).toBe('string');
  });

  it('survives a throwing readFile and hostile getters', () => {
    const readFile = (): string => {
      throw new Error('boom');
    };
    expect(extractProse('Bash', { command: 'git commit -F m.txt' }, { readFile })).toEqual([]);
    const hostile = Object.defineProperty({}, 'body', { enumerable: true, get: () => { throw new Error('getter'); } });
    expect(extractProse('mcp__x__comment', hostile)).toEqual([]);
    expect(extractProse('Write', { file_path: 'a.md', content: 'ok' }, null as unknown as undefined)).toHaveLength(1);
  });

  it('caps a 5 MB markdown write (a scan that grew faster than the text would not end within the test timeout)', () => {
    const content = 'word '.repeat(1_000_000);
    const pieces = extractProse('Write', { file_path: 'big.md', content });
    expect(pieces[0]?.text.length).toBe(MAX_PROSE_CHARS);
  });

  it('scans a 5 MB source file with many comments in linear time', () => {
    const content = 'const a = "x"; // note here\n'.repeat(180_000);
    const pieces = extractProse('Write', { file_path: 'big.ts', content });
    expect(pieces.length).toBeGreaterThan(0);
    expect(pieces.reduce((n, p) => n + p.text.length, 0)).toBeLessThanOrEqual(MAX_PROSE_CHARS);
  });

  it('reads -F files only through the reader it is given (the gate gives readBounded)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prose-'));
    writeFileSync(join(dir, 'msg.txt'), 'On disk.\n');
    expect(texts(extractProse('Bash', { command: 'git commit -F msg.txt' }, { cwd: dir, readFile: readBounded }))).toEqual(['On disk.\n']);
    expect(extractProse('Bash', { command: 'git commit -F msg.txt' }, { cwd: dir })).toEqual([]);
  });

  it('readBounded reads a regular file of bounded size, and nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prose-'));
    writeFileSync(join(dir, 'small.txt'), 'ok');
    writeFileSync(join(dir, 'big.txt'), 'x'.repeat(11));
    expect(readBounded(join(dir, 'small.txt'))).toBe('ok');
    expect(readBounded(join(dir, 'big.txt'), 10)).toBeUndefined();
    expect(readBounded(dir)).toBeUndefined();
    expect(readBounded(join(dir, 'missing.txt'))).toBeUndefined();
    expect(MAX_READ_BYTES).toBe(2_000_000);
  });
});

describe('comment lines', () => {
  it('places a block comment or docstring at the line of its first text, not of its opening marker', () => {
    const ts = 'let a = 1;\n/**\n *\n * First text.\n * Second.\n */\n';
    expect(extractProse('Write', { file_path: 'a.ts', content: ts })).toEqual([{ source: 'comment in a.ts:4', text: 'First text.\nSecond.', line: 4 }]);
    const py = 'def f():\n    """\n    Summary here.\n    """\n';
    expect(extractProse('Write', { file_path: 'a.py', content: py })).toEqual([{ source: 'docstring in a.py:3', text: 'Summary here.', line: 3 }]);
    expect(extractProse('Write', { file_path: 'b.ts', content: '/* inline */ x;' })).toEqual([{ source: 'comment in b.ts:1', text: 'inline', line: 1 }]);
  });
});
