/**
 * Contract: `tags` counts the tags of every servable entry (facts of forbidden hosts left out), most used first,
 * then by name.
 */
import { loadCatalog } from '../adapters/index/catalog.js';
import { forbiddenHostKeys, unreadableShown } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface TagCount {
  tag: string;
  count: number;
}

/** What `tags` returns: the counts, and the files skipped because they do not read as entries (lint says why). */
export interface TagsResult {
  tags: TagCount[];
  unreadable: string[];
  /** hosts.yaml's problems when it does not load (every host's facts are then left out). */
  hostsInvalid?: string;
}

/** Every tag with the number of entries that carry it. */
export async function tagCounts(options: RepoOptions): Promise<TagsResult> {
  const { dir } = repoForRead(options);
  const catalog = await loadCatalog(dir);
  const hidden = await forbiddenHostKeys(dir);
  const counts = new Map<string, number>();
  for (const e of catalog.byId.values()) {
    if (e.host && hidden.has(e.host)) continue;
    for (const t of new Set(e.tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const tags = [...counts].map(([tag, count]) => ({ tag, count })).sort((a, b) => b.count - a.count || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  // The catalog keeps each file's parse result: the files with no entry are known without reading them again.
  const unreadable = unreadableShown(catalog.items.filter((i) => !i.entry).map((i) => i.path), hidden);
  return { tags, unreadable, ...(hidden.invalid ? { hostsInvalid: hidden.invalid } : {}) };
}
