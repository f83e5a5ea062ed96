/**
 * Contract: `list` returns entries newest first, filtered by type, tag, host and date, from the catalog summary
 * (adapters/index/summary.ts: current or rebuilt from the catalog; only the rows shown are parsed).
 */
import { currentSummary, type SummaryRow, type UnknownType } from '../adapters/index/summary.js';
import { KbError } from '../core/errors.js';
import { TYPES } from '../core/format/schema.js';
import { writtenTag } from '../core/format/tags.js';
import { isoAtLeast, parseSince } from '../core/format/since.js';
import { forbiddenHostKeys, hostKeyFor, unreadableShown } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { unknownChoice } from '../core/text/suggest.js';

export interface ListOptions extends RepoOptions {
  type?: string;
  tag?: string;
  host?: string;
  since?: string;
  limit?: number;
}

/** One entry as `list` shows it: a summary row (adapters/index/summary.ts) without its host. */
export type ListItem = Omit<SummaryRow, 'host'>;

/** What `list` returns: the entries, and the files skipped because they do not read as entries (lint says why). */
export interface ListResult {
  entries: ListItem[];
  unreadable: string[];
  /** hosts.yaml's problems when it does not load (every host's facts are then left out). */
  hostsInvalid?: string;
  /**
   * Every entry whose `type` is not a known type (served, and filtered by --type, as factual_reference), whatever
   * the filters: a `--type lesson_learned` that leaves out a `type: lesson` says so (spec/cli.md, `list`).
   */
  unknownTypes: Omit<UnknownType, 'host'>[];
}

/** Lists entries. */
export async function listEntries(options: ListOptions): Promise<ListResult> {
  if (options.type && !(TYPES as readonly string[]).includes(options.type)) throw unknownChoice('type', options.type, TYPES);
  const since = options.since ? parseSince(options.since) : undefined;
  const tag = options.tag === undefined ? undefined : writtenTag(options.tag);
  const { dir } = repoForRead(options);
  const summary = await currentSummary(dir);
  const hidden = await forbiddenHostKeys(dir);
  const host = options.host === undefined ? undefined : await hostKeyFor(dir, options.host);
  const keep = (e: SummaryRow): boolean =>
    !(e.host && hidden.has(e.host)) &&
    (!options.type || e.type === options.type) &&
    (!tag || e.tags.some((t) => t.toLowerCase() === tag)) &&
    (!host || e.host === host) &&
    (!since || isoAtLeast(e.updated ?? e.created, since));
  const out: ListItem[] = [];
  const unknownTypes = summary.unknownTypes.filter((u) => !(u.host && hidden.has(u.host)) && unreadableShown([u.path], hidden).length > 0).map(({ id, path, type_written }) => ({ id, path, type_written }));
  const result: ListResult = { entries: out, unreadable: unreadableShown(summary.unreadable, hidden), unknownTypes, ...(hidden.invalid ? { hostsInvalid: hidden.invalid } : {}) };
  const limit = options.limit ?? Infinity;
  if (limit <= 0) return result;
  for await (const e of summary.rows()) {
    if (!keep(e)) continue;
    out.push({ id: e.id, title: e.title, type: e.type, ...(e.type_written !== undefined ? { type_written: e.type_written } : {}), tags: e.tags, path: e.path, created: e.created, updated: e.updated });
    if (out.length >= limit) break;
  }
  return result;
}
