/**
 * `git-kb lint`: exit 0 on a clean repo; on a broken one, every problem with its file, line and rule, exit 5,
 * and nothing written.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addEntry, commitAll, entryText, expectUnchanged, initRepo, kbd, kbj, snapshot, writeFile, type Added } from './support.js';

let sb: Sandbox;
let good: Added;

beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  good = await addEntry(sb, { type: 'decision', title: 'A good entry', body: 'Fine.' });
});
afterAll(() => sb.cleanup());

interface Problem {
  rule: string;
  message: string;
  file: string;
  line: number;
  id?: string;
}

describe('lint', () => {
  it('passes a clean repo with exit 0', async () => {
    const r = await kbd(sb, ['lint']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('ok: 1 files, no problems');
    expect(await kbj(sb, ['lint'])).toEqual({ ok: true, files: 1, problems: [] });
  });

  it('reports every problem with file, line and rule, exits 5, and writes nothing', async () => {
    const files: Record<string, string | Buffer> = {
      // line 4 holds the malformed YAML
      'entries/kb-0001-bad-yaml.md': '---\nid: kb-0001\ntype: decision\ntitle: a: b\n---\n\nbody\n',
      'entries/kb-0002-unknown-type.md': entryText({ id: 'kb-0002', title: 'Unknown type', type: 'musing' }),
      'entries/kb-0003-dangling.md': `---\nid: kb-0003\ntitle: Dangling\ntype: decision\nlinks:\n  - rel: relates_to\n    to: kb-0999\n---\n\nAlso see [[kb-0998]].\n`,
      'entries/kb-0004-no-title.md': entryText({ id: 'kb-0004', type: 'decision' }),
      'entries/kb-0005-bookmark.md': entryText({ id: 'kb-0005', title: 'No url', type: 'bookmark' }),
      'entries/kb-0006-one.md': entryText({ id: 'kb-0006', title: 'One', type: 'decision' }),
      'entries/kb-0006-two.md': entryText({ id: 'kb-0006', title: 'Two', type: 'decision' }),
      'entries/kb-0007-mismatch.md': entryText({ id: 'kb-0070', title: 'Id and name disagree', type: 'decision' }),
      'entries/kb-0008-bad-rel.md': `---\nid: kb-0008\ntitle: Bad rel\ntype: decision\nlinks:\n  - rel: inspired_by\n    to: ${good.id}\n---\n`,
      'entries/kb-0009-js.md': "---js\n{ title: 'x' }\n---\n",
      'entries/kb-0010-binary.md': Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0x00, 0x01, 0x02]),
      'entries/kb-0011-latin1.md': Buffer.concat([Buffer.from('---\nid: kb-0011\ntitle: caf'), Buffer.from([0xe9]), Buffer.from('\ntype: decision\n---\n')]),
      'entries/notes.txt': 'not an entry',
    };
    for (const [rel, content] of Object.entries(files)) writeFile(sb, rel, content);
    await commitAll(sb, 'broken entries by hand');
    const before = await snapshot(sb);

    const r = await kbd(sb, ['lint']);
    expect(r.code).toBe(5);
    const j = await kbd(sb, ['lint', '--json']);
    expect(j.code).toBe(5);
    const out = JSON.parse(j.stdout) as { ok: boolean; files: number; problems: Problem[] };
    expect(out.ok).toBe(false);
    expect(out.files).toBe(Object.keys(files).length + 1);
    const has = (file: string, rule: string, line?: number, message?: RegExp): void => {
      const p = out.problems.find((x) => x.file === file && x.rule === rule);
      expect(p, `${file} ${rule} in ${JSON.stringify(out.problems, null, 1)}`).toBeDefined();
      if (line !== undefined) expect(p!.line, `${file} ${rule}`).toBe(line);
      if (message) expect(p!.message).toMatch(message);
      // The human output carries the same problem as file:line: message [rule].
      expect(r.stdout).toContain(`${file}:${p!.line}: ${p!.message} [${rule}]`);
    };
    has('entries/kb-0001-bad-yaml.md', 'parse', 4, /malformed YAML/);
    has('entries/kb-0002-unknown-type.md', 'type-unknown', 4, /musing/);
    has('entries/kb-0003-dangling.md', 'link-dangling', undefined, /kb-0999/);
    expect(out.problems.some((p) => p.file === 'entries/kb-0003-dangling.md' && p.message.includes('kb-0998') && p.line === 10)).toBe(true);
    has('entries/kb-0004-no-title.md', 'title-missing');
    has('entries/kb-0005-bookmark.md', 'url-missing');
    has('entries/kb-0006-one.md', 'id-duplicate', undefined, /kb-0006-two\.md/);
    has('entries/kb-0006-two.md', 'id-duplicate');
    has('entries/kb-0007-mismatch.md', 'id-mismatch', 2, /kb-0070/);
    has('entries/kb-0008-bad-rel.md', 'rel-unknown', undefined, /inspired_by/);
    has('entries/kb-0009-js.md', 'parse', 1, /js/);
    has('entries/kb-0010-binary.md', 'unreadable', 1, /binary/);
    has('entries/kb-0011-latin1.md', 'unreadable', 3, /UTF-8/);
    has('entries/notes.txt', 'stray-file');
    expect(r.stdout.trim().split('\n').pop()).toMatch(/^\d+ problems in 14 files$/);
    for (const p of out.problems) {
      expect(p.file).toBeTruthy();
      expect(p.line).toBeGreaterThanOrEqual(1);
    }
    await expectUnchanged(sb, before);
  });
});

describe('lint: kb.json', () => {
  it('reports kb.json that is not JSON, not an object, or holds a setting its readers refuse, with its line; status counts it', async () => {
    const own = makeSandbox();
    try {
      await initRepo(own);
      const cases: [string, number, RegExp][] = [
        ['{ "schema_version": 2, \n', 2, /kb\.json is not valid JSON/],
        ['[1, 2]\n', 1, /must be a JSON object/],
        ['{\n  "schema_version": 2,\n  "budgets": {"kernel_chars": "lots"}\n}\n', 3, /"budgets\.kernel_chars" must be a whole number/],
        ['{\n  "schema_version": 2,\n  "decay": {\n    "half_life": 3\n  }\n}\n', 4, /"decay\.half_life" is not a decay setting/],
      ];
      for (const [text, line, message] of cases) {
        writeFile(own, 'kb.json', text);
        const r = await kbd(own, ['lint']);
        expect(r.code, text).toBe(5);
        const found = JSON.parse((await kbd(own, ['lint', '--json'])).stdout).problems as Problem[];
        expect(found, text).toEqual([expect.objectContaining({ rule: 'kb-json', file: 'kb.json', line })]);
        expect(found[0]!.message).toMatch(message);
        if (!/budgets|decay/.test(text)) expect((await kbj(own, ['status'])).problems, text).toBe(1); // a refused setting stops status itself (exit 5, naming it)
      }
      writeFile(own, 'kb.json', '{\n  "schema_version": 2\n}\n');
      expect((await kbd(own, ['lint'])).code).toBe(0);
    } finally {
      own.cleanup();
    }
  });
});
