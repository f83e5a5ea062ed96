/**
 * `adopt` renames notes to `<id>-<slug>.md` as Obsidian would rename them: every link to a renamed note, in the
 * adopted notes and in the entries, is rewritten to its new file name (spec/cli.md, "adopt"; spec/entry-format.md,
 * "Links"). Each link is resolved by Obsidian's rules (test/helpers/obsidian.ts) before and after: 0 links lost.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { vaultLinkMap } from '../helpers/obsidian.js';
import { commitAll, entryText, initRepo, kbd, kbj, writeFile } from './support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');

describe('adopt keeps every link to the notes it renames', () => {
  it('wikilinks of every form, markdown links, properties and embeds, in the adopted notes and in the entries', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    fs.mkdirSync(path.join(sb.data, '.obsidian'), { recursive: true });
    writeFile(sb, 'attachments/diagram.png', PNG);
    writeFile(sb, 'entries/kb-0001-an-entry.md', entryText({ id: 'kb-0001', title: 'An entry', type: 'decision' }, 'Written before the notes were adopted: [[Redis notes]], [the queue](Postgres%20queue.md), [[Plan#Later|the plan]].'));
    await commitAll(sb, 'an entry and an image');
    writeFile(sb, 'entries/Redis notes.md', ['# Redis notes', '', 'Keeps the queue in memory. ![[diagram.png]]', '', '## Setup', '', 'Run it. ^abc', ''].join('\n'));
    writeFile(sb, 'entries/Postgres queue.md', [
      '---',
      'related: "[[Redis notes]]"',
      'see:',
      '  - "[[Plan]]"',
      '---',
      'Uses SKIP LOCKED. Compare [[Redis notes]], [[Redis notes#Setup]], [[Redis notes#^abc]], ![[Redis notes]],',
      '[[entries/Redis notes]], [[redis NOTES|lower case]], [x](Redis%20notes.md), [y](<Redis notes.md>), [z](Redis%20notes.md#Setup).',
      '',
      '| note | link |',
      '|---|---|',
      '| redis | [[Redis notes\\|the notes]] |',
      '',
      '`[[Redis notes]]` in code is no link. [[Nowhere]] is a link to nothing.',
      '',
    ].join('\n'));
    writeFile(sb, 'entries/Plan.md', '# The plan\n\n- [[Postgres queue]] is the queue; [[An entry]] is no file name.\n- [[kb-0001-an-entry|the entry]], [by id](kb-0001.md).\n\n## Later\n\nDone.\n');
    writeFile(sb, 'Inbox/Idea.md', 'An idea: [the plan](../entries/Plan.md), ![d](../attachments/diagram.png), [[Redis notes]].\n');

    const before = vaultLinkMap(sb.data);
    const r = await kbj(sb, ['adopt', 'entries/Redis notes.md', 'entries/Postgres queue.md', 'entries/Plan.md', 'Inbox/Idea.md']);
    expect(r.adopted).toHaveLength(4);
    await expectCleanRepo(sb.data);
    const became = new Map<string, string>(r.adopted.map((a: { from: string; path: string }) => [a.from, a.path]));
    const after = vaultLinkMap(sb.data);

    let resolved = 0;
    const lost: string[] = [];
    for (const [note, links] of before) {
      const now = after.get(became.get(note) ?? note);
      if (!now) {
        lost.push(`${note}: gone`);
        continue;
      }
      const left = now.map((l) => l.dest ?? '(nothing)');
      for (const l of links.filter((x) => x.dest)) {
        resolved++;
        const want = became.get(l.dest!) ?? l.dest!;
        const i = left.indexOf(want);
        if (i === -1) lost.push(`${note}: ${l.link.raw} -> ${l.dest}; now nothing resolves to ${want}`);
        else left.splice(i, 1);
      }
    }
    expect(lost).toEqual([]);
    expect(resolved).toBe(21); // [[An entry]] (a title) and [by id](kb-0001.md) resolve to nothing in Obsidian

    // The old names are what a reader sees; the table keeps its escaped bar; the property links are rewritten.
    const pq = fs.readFileSync(path.join(sb.data, became.get('entries/Postgres queue.md')!), 'utf8');
    const redis = path.basename(became.get('entries/Redis notes.md')!, '.md');
    const plan = path.basename(became.get('entries/Plan.md')!, '.md');
    expect(pq).toContain(`related: "[[${redis}|Redis notes]]"`);
    expect(pq).toContain(`  - "[[${plan}|Plan]]"`);
    expect(pq).toContain(`Compare [[${redis}|Redis notes]], [[${redis}#Setup|Redis notes]], [[${redis}#^abc|Redis notes]], ![[${redis}]],`);
    expect(pq).toContain(`[[${redis}|entries/Redis notes]], [[${redis}|lower case]], [x](${redis}.md), [y](${redis}.md), [z](${redis}.md#Setup).`);
    expect(pq).toContain(`| redis | [[${redis}\\|the notes]] |`);
    expect(pq).toContain('`[[Redis notes]]` in code is no link. [[Nowhere]] is a link to nothing.');
    const idea = fs.readFileSync(path.join(sb.data, became.get('Inbox/Idea.md')!), 'utf8');
    expect(idea).toContain(`An idea: [the plan](${plan}.md), ![d](../attachments/diagram.png), [[${redis}|Redis notes]].`);
    // The entry written before: links rewritten, nothing else (its front matter byte for byte).
    const entry = fs.readFileSync(path.join(sb.data, 'entries/kb-0001-an-entry.md'), 'utf8');
    expect(entry).toBe(entryText({ id: 'kb-0001', title: 'An entry', type: 'decision' }, `Written before the notes were adopted: [[${redis}|Redis notes]], [the queue](${path.basename(became.get('entries/Postgres queue.md')!)}), [[${plan}#Later|the plan]].`));

    // What no rename can fix is lint's and relink's: a link by an entry's title, a markdown link by its bare id
    // (problems relink repairs), and a link to nothing (a hint: Obsidian's note not yet written).
    const planPath = became.get('entries/Plan.md')!;
    const lineOf = (rel: string, text: string): number => fs.readFileSync(path.join(sb.data, rel), 'utf8').split('\n').findIndex((l) => l.includes(text)) + 1;
    // Obsidian finds the renamed notes by the names people know: the title and the old file name are aliases.
    const aliasesOf = (text: string): unknown => YAML.parse(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!).aliases;
    expect(aliasesOf(fs.readFileSync(path.join(sb.data, planPath), 'utf8'))).toEqual(['The plan', 'Plan']);
    expect(aliasesOf(pq)).toEqual(['Postgres queue']);
    const lint = await kbd(sb, ['lint', '--json']);
    expect(lint.code).toBe(5);
    const found = JSON.parse(lint.stdout);
    expect(found.problems.map((p: { rule: string; file: string; line: number }) => `${p.file}:${p.line} ${p.rule}`)).toEqual([`${planPath}:${lineOf(planPath, '[[An entry]]')} link-renamed`, `${planPath}:${lineOf(planPath, '[by id]')} link-stale`]);
    expect(found.hints.map((p: { rule: string; file: string; line: number }) => `${p.file}:${p.line} ${p.rule}`)).toEqual([`${became.get('entries/Postgres queue.md')!}:${lineOf(became.get('entries/Postgres queue.md')!, '[[Nowhere]]')} link-unresolved`]);
    expect((await kbd(sb, ['lint'])).stdout).toContain('2 problems');
    const rl = await kbj(sb, ['relink']);
    expect(rl.changed.map((c: { path: string }) => c.path)).toEqual([planPath]);
    expect(rl.unresolved).toEqual([{ path: became.get('entries/Postgres queue.md')!, line: lineOf(became.get('entries/Postgres queue.md')!, '[[Nowhere]]'), link: '[[Nowhere]]' }]);
    expect(fs.readFileSync(path.join(sb.data, planPath), 'utf8')).toContain(`- [[${path.basename(became.get('entries/Postgres queue.md')!, '.md')}|Postgres queue]] is the queue; [[kb-0001-an-entry|An entry]] is no file name.\n- [[kb-0001-an-entry|the entry]], [by id](kb-0001-an-entry.md).`);
    const again = await kbd(sb, ['lint', '--json']);
    expect(again.code).toBe(0);
    expect((await kbd(sb, ['lint'])).stdout).toContain('1 hint: links to notes not written yet');
    expect(JSON.parse(again.stdout).problems ?? []).toEqual([]);
    await expectCleanRepo(sb.data);
  });
});
