/**
 * Obsidian users see names, not ids (spec/entry-format.md, "aliases"): add, import and adopt write the title (and
 * a renamed note's old file name) into `aliases`, after the user's own, so Obsidian's quick switcher and link
 * suggestions find `kb-<id>-<slug>.md` by its name; a retitle adds the new title when git-kb's old one is there;
 * search and the prompt hook index the title once.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { aliasesWith, entryMetaOf, otherAliases } from '../../src/core/format/meta.js';
import { docParts } from '../../src/adapters/index/search-docs.js';
import { parseEntry } from '../../src/core/format/entry.js';
import { addEntry, initRepo, kbj } from './support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

const aliasesOf = (rel: string): unknown => YAML.parse(/^---\n([\s\S]*?)\n---\n/.exec(fs.readFileSync(path.join(sb.data, rel), 'utf8'))![1]!).aliases;

describe('titles as aliases', () => {
  it('merges: the user\'s aliases first and as written, names not repeated in any case, a bad value left alone', () => {
    expect(aliasesWith(undefined, ['Use pnpm'])).toEqual(['Use pnpm']);
    expect(aliasesWith(['pnpm', 'use PNPM'], ['Use pnpm', 'use-pnpm'])).toEqual(['pnpm', 'use PNPM', 'use-pnpm']);
    expect(aliasesWith('one, two', ['T'])).toBe('one, two');
    expect(otherAliases('Use pnpm', ['use pnpm ', 'pnpm'])).toEqual(['pnpm']);
    // An imported note's file name that is the title as a slug says nothing more either.
    expect(otherAliases("Don't Commit .env Files", ['dont-commit-env-files', 'secrets-in-git'])).toEqual(['secrets-in-git']);
  });

  it('the search index holds the title once, whether or not it is also an alias', () => {
    const text = (aliases: string) => `---\nid: kb-0001\ntitle: Use pnpm\ntype: decision\n${aliases}---\n\nBody.\n`;
    const with_ = entryMetaOf(parseEntry(text('aliases:\n  - Use pnpm\n'), 'entries/kb-0001-use-pnpm.md').entry!);
    const without = entryMetaOf(parseEntry(text(''), 'entries/kb-0001-use-pnpm.md').entry!);
    expect(docParts('', with_, text('aliases:\n  - Use pnpm\n'))).toEqual(docParts('', without, text('')));
  });

  it('add, import and edit --title write them; the user\'s aliases are kept', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const a = await addEntry(sb, { type: 'decision', title: 'Use pnpm for workspaces', body: 'Strict.' });
    expect(aliasesOf(a.path)).toEqual(['Use pnpm for workspaces']);

    const vault = path.join(sb.root, 'vault');
    fs.mkdirSync(vault);
    fs.writeFileSync(path.join(vault, 'old-name.md'), '---\naliases: [Mine]\n---\n# A better title\n\nText.\n');
    fs.writeFileSync(path.join(vault, 'Plain note.md'), 'Text, see [[old-name]].\n');
    const r = await kbj(sb, ['import', vault]);
    const bySource = new Map(r.entries.map((e: { source: string; path: string }) => [e.source, e.path]));
    expect(aliasesOf(bySource.get('old-name.md') as string)).toEqual(['Mine', 'A better title', 'old-name']);
    expect(aliasesOf(bySource.get('Plain note.md') as string)).toEqual(['Plain note']);

    // A retitle keeps the old name findable and adds the new one; an entry whose aliases are the user's alone
    // (a v1 entry, say) is not given any.
    await kbj(sb, ['edit', a.id, '--title', 'Use pnpm everywhere']);
    expect(aliasesOf(a.path)).toEqual(['Use pnpm for workspaces', 'Use pnpm everywhere']);
    const own = path.join(sb.data, 'entries/kb-0042-hand-made.md');
    fs.writeFileSync(own, '---\nid: kb-0042\ntitle: Hand made\ntype: decision\n---\n\nBody.\n');
    await kbj(sb, ['commit', '-m', 'hand made']);
    await kbj(sb, ['edit', 'kb-0042', '--title', 'Hand made, retitled']);
    expect(aliasesOf('entries/kb-0042-hand-made.md')).toBeUndefined();
  });
});
