/**
 * Contract: the values shell completion offers (spec/cli.md, "Completion"), for the hidden `git-kb __complete KIND
 * WORD`: entry ids with their titles (newest first), tags (most used first), host keys, and the closed sets
 * (types, rels, activities, shells, resolve sides). Read from the catalog (cached front matter, the same source
 * `list` reads) and hosts.yaml; facts and keys of forbidden hosts are never offered. Each candidate starts with
 * WORD; a comma list (`--tags a,b`) completes its last item and a link (`--link rel:id`) its rel, then its id.
 */
import { ACTIVITIES, isValidId, RELS, TYPES } from '../core/format/schema.js';
import { tagProblem } from '../core/format/tags.js';
import { forbiddenHostKeys } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';

export const COMPLETION_KINDS = ['ids', 'tags', 'tag-list', 'hosts', 'types', 'rels', 'links', 'activities', 'activity-list', 'shells', 'sides', 'targets'] as const;
export type CompletionKind = (typeof COMPLETION_KINDS)[number];

/** One candidate: the value and what a shell may show beside it. */
export interface Candidate {
  value: string;
  description?: string;
}

const fixed = (values: readonly string[]): Candidate[] => values.map((value) => ({ value }));

/** The candidates of `kind` that start with `word`. */
export async function completions(options: RepoOptions, kind: CompletionKind, word: string): Promise<Candidate[]> {
  // A comma list completes its last item, keeping what came before.
  if (kind === 'tag-list' || kind === 'activity-list') {
    const cut = word.lastIndexOf(',') + 1;
    const head = word.slice(0, cut);
    const done = new Set(head.split(',').filter(Boolean));
    const items = await completions(options, kind === 'tag-list' ? 'tags' : 'activities', word.slice(cut));
    return items.filter((c) => !done.has(c.value)).map((c) => ({ ...c, value: head + c.value }));
  }
  if (kind === 'links') {
    const colon = word.indexOf(':');
    if (colon === -1) return RELS.filter((r) => r.startsWith(word)).map((r) => ({ value: `${r}:` }));
    const rel = word.slice(0, colon);
    if (!(RELS as readonly string[]).includes(rel)) return [];
    return (await completions(options, 'ids', word.slice(colon + 1))).map((c) => ({ ...c, value: `${rel}:${c.value}` }));
  }
  const starts = (c: Candidate): boolean => c.value.startsWith(word);
  switch (kind) {
    case 'types':
      return fixed(TYPES).filter(starts);
    case 'rels':
      return fixed(RELS).filter(starts);
    case 'activities':
      return fixed(ACTIVITIES).filter(starts);
    case 'shells':
      return fixed(['bash', 'zsh', 'fish']).filter(starts);
    case 'sides':
      return fixed(['ours', 'theirs', 'both']).filter(starts);
    case 'targets': {
      const hosts = (await completions(options, 'hosts', word.startsWith('host:') ? word.slice(5) : '')).map((c) => ({ ...c, value: `host:${c.value}` }));
      return [{ value: 'kernel', description: 'every kernel entry' }, ...hosts, ...(await completions(options, 'ids', word))].filter(starts);
    }
    default:
      break;
  }
  const { dir } = repoForRead(options);
  if (kind === 'hosts') {
    const { loadHosts } = await import('../adapters/store/hosts-file.js');
    const registry = await loadHosts(dir);
    return registry.hosts
      .filter((h) => !h.forbidden && h.key.startsWith(word))
      .map((h) => ({ value: h.key, ...(h.aliases.length ? { description: h.aliases.join(', ') } : {}) }));
  }
  const { loadCatalog } = await import('../adapters/index/catalog.js');
  const catalog = await loadCatalog(dir);
  const hidden = await forbiddenHostKeys(dir);
  const entries = [...catalog.byId.values()].filter((e) => !(e.host && hidden.has(e.host)));
  if (kind === 'tags') {
    const counts = new Map<string, number>();
    // NOTE: only tags in written form (tagProblem): a synced entry's tag such as "$(touch x)" is a lint problem, and a
    // shell puts a candidate on the command line as it is.
    for (const e of entries) for (const t of new Set(e.tags)) if (!tagProblem(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
    return [...counts]
      .filter(([t]) => t.startsWith(word))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([value, n]) => ({ value, description: `${n} entr${n === 1 ? 'y' : 'ies'}` }));
  }
  return entries
    .filter((e) => e.id.startsWith(word) && isValidId(e.id))
    .sort((a, b) => String(b.updated ?? b.created ?? '').localeCompare(String(a.updated ?? a.created ?? '')) || (a.id < b.id ? 1 : -1))
    .map((e) => ({ value: e.id, description: e.title }));
}
