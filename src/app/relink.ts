/**
 * Contract: `relink` brings every entry's links to the form Obsidian follows (spec/entry-format.md, "Links"), in
 * one commit: body wikilinks to entries that Obsidian cannot resolve (the v1 `[[kb-0042]]`, or a file name an
 * entry no longer has) rewritten to `[[<file name>|<display>]]`, and the generated Links section rewritten from
 * each entry's `links:`. Only those bytes change (the front matter is not touched, `updated` is not bumped: the
 * entries say the same thing). An entry that does not parse is left alone and listed; running it twice changes
 * nothing the second time. A forbidden host's facts are never touched; a file in conflict form is left for resolve.
 */
import { splitEntry } from '../core/format/entry.js';
import { messageWithoutPlace } from '../core/errors.js';
import { hostOfPath, isValidId } from '../core/format/schema.js';
import { findMarkdownLinks, findWikiLinks, linkTargetId, markdownLinkId, writtenBody } from '../core/format/links.js';
import { linkNames, type LinkNames } from './link-names.js';
import { readEntryText } from '../adapters/store/layout.js';
import { refuseSecrets, withWriteLock, type PendingFile } from '../adapters/write/transaction.js';
import { filesById, pathLookup } from './find.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { forbiddenHostKeys } from './guard.js';
import { findConflicts } from '../core/merge/marks.js';
import { toLf } from '../core/text/line-ends.js';

export interface RelinkResult {
  /** The entries rewritten, with their paths. */
  changed: { id: string; path: string }[];
  /** Links left as they are because they resolve to no file and name no entry by an old name (lint: link-unresolved). */
  unresolved: { path: string; line: number; link: string }[];
  /** Files left alone because they do not parse (lint says why). */
  unreadable: { path: string; reason: string }[];
  commit?: string;
}

/** The entry text with its body in written form (undefined: unchanged). Throws when it does not parse. */
export function relinkEntryText(text: string, file: string, pathOf: (id: string) => string | undefined, names?: LinkNames, titleOf?: (id: string) => string | undefined): string | undefined {
  const src = toLf(text).replace(/^\uFEFF/, '');
  const raw = splitEntry(src, file);
  const links = Array.isArray(raw.data.links)
    ? (raw.data.links as { rel?: unknown; to?: unknown }[]).filter((l) => l && typeof l.rel === 'string' && typeof l.to === 'string' && isValidId(l.to)).map((l) => ({ rel: l.rel as string, to: l.to as string }))
    : [];
  const scope = names ? { from: file, byName: (target: string) => names.unresolved(target, file, false) || undefined, titleOf } : { titleOf };
  const body = writtenBody(raw.body, links, pathOf, scope).trimEnd();
  if (body === raw.body.trimEnd()) return undefined;
  // The front matter is kept byte for byte; only the body is replaced.
  const head = src.slice(0, src.length - raw.body.length).replace(/\n*$/, '\n');
  return `${head}${body ? `\n${body}\n` : ''}`;
}

/** The links of an entry's text that resolve to no file and name no entry (what relink cannot repair), with their lines. */
function unresolvedLinks(text: string, file: string, names: LinkNames): RelinkResult['unresolved'] {
  const src = toLf(text);
  const raw = splitEntry(src, file);
  const at = src.length - raw.body.length;
  const lineAt = (offset: number): number => src.slice(0, at + offset).split('\n').length;
  const out: RelinkResult['unresolved'] = [];
  for (const l of findWikiLinks(raw.body)) {
    if (l.target && !linkTargetId(l.target) && names.unresolved(l.target, file, false) === '') out.push({ path: file, line: lineAt(l.start), link: raw.body.slice(l.start, l.end) });
  }
  for (const l of findMarkdownLinks(raw.body)) {
    if (l.path && !markdownLinkId(l) && names.unresolved(l.path, file, true) === '') out.push({ path: file, line: lineAt(l.start), link: raw.body.slice(l.start, l.end) });
  }
  return out.sort((a, b) => a.line - b.line);
}

/**
 * The entries whose `links:` name `id`, with their generated Links section showing `title` for it: what a retitle
 * of `id` writes beside it in the same commit, so the display text other entries show for it (in Obsidian too)
 * follows the new title. As relink: only the body changes (`updated` is not bumped), a forbidden host's facts and a
 * file in conflict form or that does not parse are left alone (lint and relink say why).
 */
export async function linkersRetitled(dir: string, id: string, title: string, pathOf: (id: string) => string | undefined): Promise<PendingFile[]> {
  const { loadCatalog } = await import('../adapters/index/catalog.js');
  const catalog = await loadCatalog(dir);
  const linkers = [...catalog.byId.values()].filter((e) => e.id !== id && e.links.some((l) => l.to === id));
  if (linkers.length === 0) return [];
  const hidden = await forbiddenHostKeys(dir);
  const titleOf = (x: string): string | undefined => (x === id ? title : catalog.byId.get(x)?.title);
  const out: PendingFile[] = [];
  for (const e of linkers) {
    const host = hostOfPath(e.path);
    if (host && hidden.has(host)) continue;
    try {
      const text = readEntryText(dir, e.path);
      if (findConflicts(text).length > 0) continue;
      const next = relinkEntryText(text, e.path, pathOf, undefined, titleOf);
      if (next === undefined) continue;
      refuseSecrets(next, e.path);
      out.push({ path: e.path, content: next });
    } catch {
      // does not parse (or cannot be read): left as it is
    }
  }
  return out;
}

/** Rewrites the links of every entry that needs it, in one commit. */
export async function relinkRepo(options: RepoOptions): Promise<RelinkResult> {
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const index = filesById(dir);
    const pathOf = pathLookup(index);
    const changed: RelinkResult['changed'] = [];
    const unresolved: RelinkResult['unresolved'] = [];
    const unreadable: RelinkResult['unreadable'] = [];
    const { loadCatalog } = await import('../adapters/index/catalog.js');
    const catalog = await loadCatalog(dir);
    const names = linkNames(dir, [...catalog.byId.values()].map((e) => ({ path: e.path, title: e.title, aliases: e.aliases })));
    const pending: PendingFile[] = [];
    const hidden = await forbiddenHostKeys(dir);
    for (const [id, files] of [...index].sort(([a], [b]) => (a < b ? -1 : 1))) {
      for (const f of files) {
        // A forbidden host's facts are never written; a file in conflict form waits for `git-kb resolve`.
        const host = hostOfPath(f.path);
        if (host && hidden.has(host)) continue;
        let next: string | undefined;
        try {
          const text = readEntryText(dir, f.path);
          if (findConflicts(text).length > 0) {
            unreadable.push({ path: f.path, reason: 'holds an unresolved sync conflict (git-kb resolve)' });
            continue;
          }
          next = relinkEntryText(text, f.path, pathOf, names, (x) => catalog.byId.get(x)?.title);
          unresolved.push(...unresolvedLinks(next ?? text, f.path, names));
        } catch (err) {
          unreadable.push({ path: f.path, reason: err instanceof Error ? messageWithoutPlace(err) : String(err) });
          continue;
        }
        if (next === undefined) continue;
        refuseSecrets(next, f.path);
        pending.push({ path: f.path, content: next });
        changed.push({ id, path: f.path });
      }
    }
    if (pending.length === 0) return { changed, unresolved, unreadable };
    const commit = await tx.commit(pending, `relink ${pending.length} entr${pending.length === 1 ? 'y' : 'ies'}: links in the form Obsidian follows`);
    return { changed, unresolved, unreadable, commit };
  }, { identity: options.settings });
}
