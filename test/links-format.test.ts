/**
 * The pure link functions (src/core/format/links.ts, src/core/format/vault.ts) and what the merge does with the
 * generated Links section (src/core/merge/merge.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  entryWikiLink,
  findLinksSection,
  findWikiLinks,
  linkedIds,
  linksSectionProblems,
  linkTargetId,
  readableLinks,
  relinkText,
  stripLinksSection,
  targetNames,
  withLinksSection,
  writtenBody,
} from '../src/core/format/links.js';
import { inlineTags, linkSkeleton, rewriteMarkdownLinks, rewriteVaultLinks, vaultResolver } from '../src/core/format/vault.js';
import { parseEntry } from '../src/core/format/entry.js';
import { mergeEntryText, resolveConflictText } from '../src/core/merge/merge.js';

const paths: Record<string, string> = { 'kb-0042': 'entries/kb-0042-use-pnpm.md', 'kb-3lvn09zbq0': 'sessions/2026/11/kb-3lvn09zbq0.md' };
const pathOf = (id: string): string | undefined => paths[id];

describe('reading links', () => {
  it('takes the id from every form: v1, file name, path, .md, heading, display', () => {
    for (const t of ['kb-0042', 'kb-0042-use-pnpm', 'entries/kb-0042-use-pnpm', 'entries/kb-0042-use-pnpm.md', 'KB-0042'.toLowerCase()]) expect(linkTargetId(t)).toBe('kb-0042');
    expect(linkTargetId('Redis notes')).toBeUndefined();
    expect(linkedIds('a [[kb-0042-use-pnpm|pnpm]] b [[kb-0042#Why]] c ![[kb-0001]] `[[kb-0002]]`\n```\n[[kb-0003]]\n```\n[[Other]]')).toEqual(['kb-0042', 'kb-0001']);
    const [l] = findWikiLinks('x ![[kb-0042-use-pnpm#Why|the why]] y');
    expect(l).toMatchObject({ embed: true, target: 'kb-0042-use-pnpm', heading: '#Why', display: 'the why' });
  });
  it("resolves as Obsidian does: basename or vault path, case-insensitive, .md optional", () => {
    expect(targetNames('kb-0042-use-pnpm', paths['kb-0042']!)).toBe(true);
    expect(targetNames('KB-0042-Use-Pnpm.md', paths['kb-0042']!)).toBe(true);
    expect(targetNames('entries/kb-0042-use-pnpm', paths['kb-0042']!)).toBe(true);
    expect(targetNames('kb-0042', paths['kb-0042']!)).toBe(false);
    expect(targetNames('kb-3lvn09zbq0', paths['kb-3lvn09zbq0']!)).toBe(true);
    expect(entryWikiLink(paths['kb-0042']!, 'kb-0042')).toBe('[[kb-0042-use-pnpm|kb-0042]]');
    expect(entryWikiLink(paths['kb-3lvn09zbq0']!, 'kb-3lvn09zbq0')).toBe('[[kb-3lvn09zbq0]]');
  });
  it('a reader sees display text: the index gets no words from other entries\' file names', () => {
    expect(readableLinks('see [[kb-0042-use-pnpm|kb-0042]] and [[Redis notes#Setup]]')).toBe('see kb-0042 and Redis notes Setup');
  });
});

describe('writing links', () => {
  it('relinks what Obsidian cannot follow, keeping display text and headings, never code', () => {
    const r = relinkText('[[kb-0042]] [[kb-0042|pnpm]] [[kb-0042#Why]] ![[kb-0042]] [[kb-0042-use-pnpm|ok]] [[kb-3lvn09zbq0]] [[kb-9999]] `[[kb-0042]]`', pathOf);
    expect(r.text).toBe('[[kb-0042-use-pnpm|kb-0042]] [[kb-0042-use-pnpm|pnpm]] [[kb-0042-use-pnpm#Why|kb-0042]] ![[kb-0042-use-pnpm|kb-0042]] [[kb-0042-use-pnpm|ok]] [[kb-3lvn09zbq0]] [[kb-9999]] `[[kb-0042]]`');
    expect(r.count).toBe(4);
    expect(relinkText(r.text, pathOf).count).toBe(0);
  });
  it('writes one Links section at the end, from links:, and reads it back', () => {
    const links = [{ rel: 'relates_to', to: 'kb-0042' }, { rel: 'mentions', to: 'kb-3lvn09zbq0' }];
    const body = withLinksSection('Text.', links, pathOf);
    expect(body).toBe('Text.\n\n<!-- git-kb links: generated from the "links" field above; change that field (or git-kb edit --link/--unlink), not these lines -->\n## Links\n\n- relates_to: [[kb-0042-use-pnpm|kb-0042]]\n- mentions: [[kb-3lvn09zbq0]]\n<!-- git-kb links end -->');
    expect(withLinksSection(`${body}\n`, links, pathOf)).toBe(body);
    expect(withLinksSection(body, [], pathOf)).toBe('Text.');
    expect(stripLinksSection(body)).toBe('Text.');
    expect(findLinksSection(body)!.items.map((i) => [i.rel, i.id])).toEqual([['relates_to', 'kb-0042'], ['mentions', 'kb-3lvn09zbq0']]);
    expect(linksSectionProblems(body, links)).toEqual({ problems: [], missing: false });
    expect(linksSectionProblems('Text.', links).missing).toBe(true);
    expect(linksSectionProblems(body, links.slice(0, 1)).problems[0]!.message).toMatch(/not in "links": mentions kb-3lvn09zbq0/);
    expect(linksSectionProblems(body.replace('<!-- git-kb links end -->', 'text after'), links).problems.map((p) => p.message)).toEqual([expect.stringMatching(/not closed/)]);
    expect(linksSectionProblems(body.replace('## Links\n', '## Links\nstray\n'), links).problems.map((p) => p.message)).toEqual([expect.stringMatching(/is not a "- rel: \[\[link\]\]" item/)]);
    // A person's text after the section moves above it on the next write.
    expect(writtenBody(`${body}\n\nLater text [[kb-0042]].`, links, pathOf)).toBe(withLinksSection('Text.\n\nLater text [[kb-0042-use-pnpm|kb-0042]].', links, pathOf));
  });
  it('lint reads section items once: a dangling typed link is the links field\'s finding, not the section\'s too', () => {
    const text = `---\nid: kb-0001\ntitle: T\ntype: decision\nlinks:\n  - rel: relates_to\n    to: kb-0404\n---\n\n${withLinksSection('Body.', [{ rel: 'relates_to', to: 'kb-0404' }], () => undefined)}\n`;
    const r = parseEntry(text, 'entries/kb-0001-t.md', { idExists: (id) => id === 'kb-0001', pathOf: (id) => (id === 'kb-0001' ? 'entries/kb-0001-t.md' : undefined) });
    expect(r.problems.map((p) => p.rule)).toEqual(['link-dangling']);
  });
});

describe('Links section items show titles', () => {
  const pathOf = (id: string) => ({ 'kb-0042': 'entries/kb-0042-use-pnpm.md', 'kb-0007': 'entries/kb-0007-odd.md' } as Record<string, string>)[id];
  const links = [{ rel: 'relates_to', to: 'kb-0042' }, { rel: 'supersedes', to: 'kb-0007' }];
  it('the title when known and safe in a link, else the id; kept from the old section when no title is known', () => {
    const titles: Record<string, string> = { 'kb-0042': 'Use pnpm', 'kb-0007': 'Odd [title] | here' };
    const body = withLinksSection('Text.', links, pathOf, (id) => titles[id]);
    expect(body).toContain('- relates_to: [[kb-0042-use-pnpm|Use pnpm]]\n- supersedes: [[kb-0007-odd|kb-0007]]\n');
    expect(findLinksSection(body)!.items.map((i) => i.id)).toEqual(['kb-0042', 'kb-0007']);
    // Rewritten with no titles at hand (a merge, a recurrence): the display texts stay.
    expect(writtenBody(`${body}\n\nMore.`, links, pathOf)).toBe(withLinksSection('Text.\n\nMore.', links, pathOf, (id) => titles[id]));
    expect(linksSectionProblems(body, links).problems).toEqual([]);
  });
});

describe('vault links', () => {
  const files = ['Redis notes.md', 'databases/Postgres queue.md', 'projects/deep/Plan.md', 'a/Same.md', 'b/Same.md', 'assets/diagram.png', 'Note.v2.md'];
  const resolve = vaultResolver(files);
  it('resolves by name, path, partial path, relative path, nearest of two names, extension', () => {
    expect(resolve('Redis notes', 'x.md')).toBe('Redis notes.md');
    expect(resolve('redis NOTES.md', 'x.md')).toBe('Redis notes.md');
    expect(resolve('databases/Postgres queue', 'x.md')).toBe('databases/Postgres queue.md');
    expect(resolve('deep/Plan', 'x.md')).toBe('projects/deep/Plan.md');
    expect(resolve('../../databases/Postgres queue', 'projects/deep/Plan.md')).toBe('databases/Postgres queue.md');
    expect(resolve('Same', 'b/x.md')).toBe('b/Same.md');
    expect(resolve('Same', 'a/x.md')).toBe('a/Same.md');
    expect(resolve('diagram.png', 'x.md')).toBe('assets/diagram.png');
    expect(resolve('diagram', 'x.md')).toBeUndefined();
    expect(resolve('Note.v2', 'x.md')).toBe('Note.v2.md');
    expect(resolve('Nowhere', 'x.md')).toBeUndefined();
  });
  it('rewrites to the new targets with display text, and lists what it leaves', () => {
    const placed: Record<string, { target: string; note: boolean } | { why: string }> = {
      'Redis notes.md': { target: 'kb-0001-redis-notes', note: true },
      'assets/diagram.png': { target: 'attachments/diagram.png', note: false },
      'databases/Postgres queue.md': { why: 'not imported (invalid)' },
    };
    const body = 'A [[Redis notes]], [[Redis notes#Setup|setup]], ![[diagram.png|300]], [[Postgres queue]],\n[[Nowhere]], [[#Local]], `[[Redis notes]]`.';
    const r = rewriteVaultLinks(body, 'x.md', resolve, (p) => placed[p] ?? { why: 'not imported' });
    expect(r.text).toBe('A [[kb-0001-redis-notes|Redis notes]], [[kb-0001-redis-notes#Setup|setup]], ![[attachments/diagram.png|300]], [[Postgres queue]],\n[[Nowhere]], [[#Local]], `[[Redis notes]]`.');
    expect(r.left).toEqual([
      { line: 1, link: '[[Postgres queue]]', reason: 'not imported (invalid)' },
      { line: 2, link: '[[Nowhere]]', reason: 'no note or attachment of that name in the vault' },
    ]);
    expect(linkSkeleton(r.text)).toBe(linkSkeleton(body));
  });
  it('rewrites every form Obsidian resolves: the escaped bar of a table, headings, blocks, embeds, folders, case, markdown links', () => {
    const placed: Record<string, { target: string; note: boolean; path: string }> = {
      'Redis notes.md': { target: 'kb-0001-redis-notes', note: true, path: 'entries/kb-0001-redis-notes.md' },
      'databases/Postgres queue.md': { target: 'kb-0002-postgres-queue', note: true, path: 'entries/kb-0002-postgres-queue.md' },
    };
    const body = [
      '| a | [[Redis notes\\|the notes]] | [[Redis notes#Setup\\|setup]] |',
      '[[Redis notes]] [[Redis notes#Setup]] [[Redis notes#^abc]] [[Redis notes^abc]] ![[Redis notes]] [[databases/Postgres queue]] [[REDIS NOTES]]',
      '[x](Redis%20notes.md) [y](<Redis notes.md>) [z](databases/Postgres%20queue.md#Why) [w](Redis%20notes)',
    ].join('\n');
    const tf = (p: string) => placed[p] ?? { why: 'not imported' };
    const wiki = rewriteVaultLinks(body, 'x.md', resolve, tf);
    const md = rewriteMarkdownLinks(wiki.text, 'x.md', 'entries', resolve, new Set(files), tf);
    expect(wiki.left).toEqual([]);
    expect(md.left).toEqual([]);
    expect(md.text.split('\n')).toEqual([
      '| a | [[kb-0001-redis-notes\\|the notes]] | [[kb-0001-redis-notes#Setup\\|setup]] |',
      '[[kb-0001-redis-notes|Redis notes]] [[kb-0001-redis-notes#Setup|Redis notes]] [[kb-0001-redis-notes#^abc|Redis notes]] [[kb-0001-redis-notes^abc|Redis notes]] ![[kb-0001-redis-notes]] [[kb-0002-postgres-queue|databases/Postgres queue]] [[kb-0001-redis-notes|REDIS NOTES]]',
      '[x](kb-0001-redis-notes.md) [y](kb-0001-redis-notes.md) [z](kb-0002-postgres-queue.md#Why) [w](kb-0001-redis-notes.md)',
    ]);
  });
  it('reads [[Target\\|alias]] as Obsidian does: the target without the backslash', () => {
    const [l] = findWikiLinks('| [[kb-0042-use-pnpm\\|pnpm]] |');
    expect(l).toMatchObject({ target: 'kb-0042-use-pnpm', display: 'pnpm', escaped: true });
    expect(linkedIds('| [[kb-0042\\|pnpm]] |')).toEqual(['kb-0042']);
    expect(relinkText('| [[kb-0042\\|pnpm]] |', () => 'entries/kb-0042-use-pnpm.md').text).toBe('| [[kb-0042-use-pnpm\\|pnpm]] |');
  });
  it('collects inline tags as Obsidian reads them', () => {
    const body = '# Heading\n#Top tag and #two-words, #nested/Deep. #123 is not; a#b is not; [[x#y]] is not; `#code`;\n```\n#fenced\n```\n<!-- #hidden -->\n(#paren)';
    expect(inlineTags(body)).toEqual(['top', 'two-words', 'nested/deep', 'paren']);
  });
});

describe('merging the Links section', () => {
  const fm = (links: string[], updated: string): string =>
    `---\nid: kb-0001\ntitle: Hub\ntype: decision\n${links.length ? `links:\n${links.map((l) => `  - rel: ${l.split(':')[0]}\n    to: ${l.split(':')[1]}\n`).join('')}` : ''}updated: ${updated}\n---\n\n`;
  const ln = (l: string): { rel: string; to: string } => ({ rel: l.split(':')[0]!, to: l.split(':')[1]! });
  const entry = (links: string[], body: string, updated: string): string => `${fm(links, updated)}${withLinksSection(body, links.map(ln), pathOf)}\n`;
  it('writes one section from the merged links when both sides added one', () => {
    const base = entry([], 'Hub.', '2026-01-01T00:00:00Z');
    const ours = entry(['relates_to:kb-0042'], 'Hub.\n\nOurs.', '2026-01-02T00:00:00Z');
    const theirs = entry(['mentions:kb-3lvn09zbq0'], 'Hub.', '2026-01-03T00:00:00Z');
    const m = mergeEntryText(base, ours, theirs, 'entries/kb-0001-hub.md', 'OPEN');
    expect(m.conflict).toBe(false);
    expect(m.text).toBe(entry(['relates_to:kb-0042', 'mentions:kb-3lvn09zbq0'], 'Hub.\n\nOurs.', '2026-01-03T00:00:00Z'));
  });
  it('resolve --keep both keeps one section for both sides\' links', () => {
    const ours = entry(['relates_to:kb-0042'], 'Ours.', '2026-01-02T00:00:00Z');
    const theirs = entry(['mentions:kb-3lvn09zbq0'], 'Theirs.', '2026-01-03T00:00:00Z');
    const m = mergeEntryText(undefined, ours, theirs, 'entries/kb-0001-hub.md', '<<<<<<< git-kb conflict: x');
    expect(m.conflict).toBe(true);
    const both = resolveConflictText(m.text, 'both', 'entries/kb-0001-hub.md')!;
    expect(both.match(/<!-- git-kb links:/g)).toHaveLength(1);
    expect(findLinksSection(both.split('---\n').slice(2).join('---\n'))!.items.map((i) => i.id)).toEqual(['kb-0042', 'kb-3lvn09zbq0']);
    expect(both).toContain('Ours.\n\nTheirs.');
  });
});

describe('nothing a person wrote is lost to the Links section', () => {
  const links = [{ rel: 'relates_to', to: 'kb-0042' }];
  const section = withLinksSection('', links, pathOf);
  it('keeps a line written inside the section, above the new one', () => {
    const body = `Text.\n\n${section.replace('## Links\n', '## Links\nMy own note here.\n')}`;
    expect(writtenBody(body, links, pathOf)).toBe(withLinksSection('Text.\n\nMy own note here.', links, pathOf));
  });
  it('reads a section with no closing marker only up to its last item', () => {
    const body = `Text.\n\n${section.replace('\n<!-- git-kb links end -->', '')}\n\nParagraph after.`;
    expect(findLinksSection(body)!.close).toBeUndefined();
    expect(writtenBody(body, links, pathOf)).toBe(withLinksSection('Text.\n\nParagraph after.', links, pathOf));
  });
});

describe('the compaction grade reads both link forms as one target', () => {
  it('[[kb-0042]] and [[kb-0042-use-pnpm|kb-0042]] are the same link', async () => {
    const { linkTargets } = await import('../src/core/compact/grade.js');
    expect(linkTargets('a [[kb-0042]] b [[kb-0042-use-pnpm|kb-0042]] c [[Other note]]').map((l) => l.target)).toEqual(['kb-0042', 'kb-0042', 'Other note']);
  });
});
