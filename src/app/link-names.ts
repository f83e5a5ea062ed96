/**
 * Contract: which link targets that are not entry ids resolve in the data repo, by Obsidian's rules, against every
 * file of it (entries, attachments, other notes: ../core/format/vault.ts), and which entry an unresolved one
 * names by an old name: its title or one of its aliases, case-insensitive, `.md` optional, when exactly one entry
 * has that name (`[[Redis notes]]` after the note became `entries/kb-…-redis-notes.md`). What `relink` repairs
 * and `lint` reports (spec/entry-format.md, "Links"). The repo is walked once, on the first question.
 */
import { normalizePath } from '../core/format/links.js';
import { vaultResolver } from '../core/format/vault.js';
import { walk } from './import.js';

/** An entry's file and the names it was known by. */
export interface NamedEntry {
  path: string;
  title: string;
  aliases: readonly string[];
}

export interface LinkNames {
  /**
   * For a link target that is not an entry id (a wikilink target, or a markdown link's decoded path with
   * `markdown`) in the file `from`: undefined when it resolves to a file of the repo; else the path of the one
   * entry an old name of it names, or '' when none does.
   */
  unresolved(target: string, from: string, markdown: boolean): string | undefined;
}

/** The link names of the repo at `dir` with its entries `entries`. */
export function linkNames(dir: string, entries: Iterable<NamedEntry>): LinkNames {
  let files: { resolve: (target: string, from: string) => string | undefined; set: Set<string> } | undefined;
  const repoFiles = (): NonNullable<typeof files> => {
    if (!files) {
      const w = walk(dir);
      const all = [...w.notes, ...w.others.map((o) => o.file)];
      files = { resolve: vaultResolver(all), set: new Set(all) };
    }
    return files;
  };
  const byName = new Map<string, string | null>();
  for (const e of entries) {
    for (const n of new Set([e.title, ...e.aliases].map((x) => x.trim().toLowerCase()).filter(Boolean))) {
      const had = byName.get(n);
      byName.set(n, had === undefined || had === e.path ? e.path : null); // a name two entries share names neither
    }
  }
  return {
    unresolved(target, from, markdown) {
      const f = repoFiles();
      if (markdown) {
        const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
        const rel = normalizePath(dir ? `${dir}/${target}` : target);
        const root = normalizePath(target.replace(/^\/+/, ''));
        if ((rel !== undefined && f.set.has(rel)) || (root !== undefined && f.set.has(root)) || f.resolve(target, from)) return undefined;
        // Only links to notes can name an entry by an old name; other files are attachments.
        if (!/\.md$/i.test(target) && /\.[a-z0-9]+$/i.test(target)) return '';
      } else if (f.resolve(target, from)) return undefined;
      const name = target.replace(/\\/g, '/').split('/').pop()!.replace(/\.md$/i, '').trim().toLowerCase();
      return byName.get(name) ?? '';
    },
  };
}
