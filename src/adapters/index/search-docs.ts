/**
 * Contract: what search indexes of an entry (its text and its row, spec/search.md "What is indexed"), the names
 * of the stored index's files, and its delta: the files changed since the base was written, each with its row and
 * text. No MiniSearch here: a write keeps the delta in step (`keepSearchDelta`) without loading the search engine,
 * and search-store.ts builds on these pieces.
 */
import fs from 'node:fs';
import v8 from 'node:v8';
import { entryMetaOf, otherAliases, type EntryMeta } from '../../core/format/meta.js';
import { currentNamesKey } from './ids.js';
import type { SummaryRow } from './summary.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { readStatTableHeader } from './stat-table.js';
import { TERMS_VERSION } from '../../core/text/terms.js';
import { isEntryFilePath, readEntryText, statData, stateDir, type StatData } from '../store/layout.js';
import { bodyOf } from '../../core/format/fence.js';
import { readableLinks } from '../../core/format/links.js';

/** Bump when the stored shape or the indexed text changes (the terms have their own version, TERMS_VERSION). */
export const SEARCH_INDEX_VERSION = 11;
/**
 * The MiniSearch this code is built with (checked against node_modules by test/search-cache.test.ts). It is part
 * of the key of the stored index, because that holds MiniSearch's private fields.
 */
export const MINISEARCH_VERSION = '7.2.0';

/**
 * How many times each field is repeated in the one indexed text (the body once): BM25F's weighted term
 * frequencies, with one length normalisation over the weighted length. NOTE: measured against MiniSearch's
 * per-field scoring with boosts (each field saturated and normalised alone, with its own IDF), which let a word
 * rare in titles outweigh a note that matches the query throughout; one field won on both corpora.
 */
export const FIELD_REPEAT = { title: 3, aliases: 3, tags: 2, host: 2, url: 1 };

/** Files in the delta before it is folded into the base, and the text it may hold (characters). */
export const DELTA_MAX = 256;
export const DELTA_MAX_TEXT = 4_000_000;

/** The first word of the base file (a stat table, stat-table.ts). */
export const BASE_MAGIC = `git-kb search ${SEARCH_INDEX_VERSION} terms ${TERMS_VERSION}`;

export function baseFile(dir: string): string {
  return `${stateDir(dir)}/search.v9`;
}
export function deltaFile(dir: string): string {
  return `${stateDir(dir)}/search-delta.v9`;
}

/** An entry's body as search reads it (links made readable), '' when the file cannot be read. */
export function readBody(dir: string, p: string): string {
  try {
    return readableLinks(bodyOf(readEntryText(dir, p)));
  } catch {
    return '';
  }
}

/**
 * The indexed text of an entry as its parts, each with how many times it is repeated (FIELD_REPEAT; the body
 * once), in docText's order; `fileText`, the file's text when at hand (else the file is read). Empty fields are
 * left out; the body is always there.
 */
export function docParts(dir: string, e: EntryMeta, fileText?: string): [text: string, repeat: number][] {
  const r = FIELD_REPEAT;
  const body = fileText === undefined ? readBody(dir, e.path) : readableLinks(bodyOf(fileText));
  const fields: [string, number][] = [[e.title, r.title], [otherAliases(e.title, e.aliases).join(' '), r.aliases], [e.tags.join(' '), r.tags], [e.host ?? '', r.host], [e.url ?? '', r.url]];
  return [...fields.filter(([t]) => t !== ''), [body, 1]];
}

/** The indexed text of an entry: its parts repeated, one per line. */
export function docText(dir: string, e: EntryMeta, fileText?: string): string {
  return docParts(dir, e, fileText)
    .flatMap(([t, n]) => Array.from({ length: n }, () => t))
    .join('\n');
}

/** What search shows and filters on for one servable file: what `list` shows, and what decay and links need. */
export interface SearchMeta extends SummaryRow {
  kernel: boolean;
  /** The entry's `evergreen` front matter value, when set. */
  evergreen?: unknown;
  links: { rel: string; to: string }[];
}

/** [id, title, type, tags, created, updated, host, kernel, evergreen, type as written (Entry.typeWritten), links]: links last (hasLinks). */
export type Row = [string, string, string, string[], string | null, string | null, string | null, 0 | 1, unknown, string | null, [string, string][]];

/** The index of a row's links. */
export const ROW_LINKS = 10;

/** The `rel` a body link (`[[…]]` in the text, not a typed link) has among a row's links and in search's `via`. */
export const BODY_REL = 'body';

/** An entry's row: one JSON array (see Row); its links are the typed ones, then the body's (rel BODY_REL). */
export function rowOf(e: EntryMeta): string {
  const row: Row = [e.id, e.title, e.type, e.tags, e.created ?? null, e.updated ?? null, e.host ?? null, e.kernel ? 1 : 0, e.data.evergreen ?? null, e.typeWritten ?? null, [...e.links.map((l): [string, string] => [l.rel, l.to]), ...(e.bodyLinks ?? []).map((to): [string, string] => [BODY_REL, to])]];
  return JSON.stringify(row);
}

/** True for a row whose links (its last field) are not empty. */
export function hasLinks(row: string | null): boolean {
  return row !== null && !row.endsWith(',[]]');
}

export function metaOf(path: string, row: string): SearchMeta {
  const a = JSON.parse(row) as Row;
  return {
    id: a[0],
    title: a[1],
    type: a[2],
    tags: a[3],
    path,
    ...(a[4] !== null ? { created: a[4] } : {}),
    ...(a[5] !== null ? { updated: a[5] } : {}),
    ...(a[6] !== null ? { host: a[6] } : {}),
    kernel: a[7] === 1,
    ...(a[8] !== null ? { evergreen: a[8] } : {}),
    ...(a[9] !== null ? { type_written: a[9] } : {}),
    links: a[ROW_LINKS].map(([rel, to]) => ({ rel, to })),
  };
}

export interface DeltaFile {
  path: string;
  stat: StatData;
  /** The row and indexed text of a servable file; null for a file that does not parse. */
  row: string | null;
  text: string | null;
}

export interface Delta {
  /** The base it applies to (the base header's `base`). */
  base: string;
  namesKey: string;
  files: DeltaFile[];
  /** Paths no longer on disk (a path the base never had is harmless here). */
  gone: string[];
}

/** A changed file as the delta holds it: its stat data now, and its entry's row and text (null: it does not parse). */
export function deltaFileOf(dir: string, path: string, stat: DeltaFile['stat'], meta: EntryMeta | undefined, text: string | undefined): DeltaFile {
  return { path, stat, row: meta ? rowOf(meta) : null, text: meta ? docText(dir, meta, text) : null };
}

/** `old` (of base `base`) with the `changed` files put in and the `gone` paths taken out, under `namesKey`. */
export function withChanges(old: Delta | undefined, base: string, namesKey: string, changed: DeltaFile[], gone: string[]): Delta {
  const files = new Map((old?.files ?? []).map((f) => [f.path, f]));
  const goneSet = new Set(old?.gone ?? []);
  for (const f of changed) {
    files.set(f.path, f);
    goneSet.delete(f.path);
  }
  for (const p of gone) {
    files.delete(p);
    goneSet.add(p);
  }
  return { base, namesKey, files: [...files.values()], gone: [...goneSet] };
}

export function readDelta(dir: string, base: string): Delta | undefined {
  try {
    const d = v8.deserialize(fs.readFileSync(deltaFile(dir))) as Delta;
    return d?.base === base && Array.isArray(d.files) && Array.isArray(d.gone) ? d : undefined;
  } catch {
    return undefined;
  }
}

export function writeDelta(dir: string, delta: Delta): void {
  writeFileAtomic(deltaFile(dir), v8.serialize(delta), { fsync: false });
}

/** The base's own name and names key, read from its first line only; undefined when there is no usable base. */
function baseHead(dir: string): { base: string; namesKey: string } | undefined {
  const h = readStatTableHeader<{ base?: unknown; namesKey?: unknown }>(baseFile(dir), BASE_MAGIC);
  return typeof h?.base === 'string' && typeof h.namesKey === 'string' ? { base: h.base, namesKey: h.namesKey } : undefined;
}

/**
 * Brings the delta along with a commit the caller just wrote under the write lock (like ids.ts patchIdMap):
 * `namesBefore` is the names key taken before its files were written; only a stored index that carried exactly
 * that key gets the written entry files (their stat data now, their row and text from the content written, so
 * the next search parses nothing) and the key of the folders as they are now. Anything else is left to the next
 * search, which lists and reads what changed. A write of many files (an import) is left to it too. Never throws.
 */
export async function keepSearchDelta(dir: string, namesBefore: string, written: { path: string; content: string | Buffer | null }[]): Promise<void> {
  try {
    const entries = written.filter((f) => isEntryFilePath(f.path) && !Buffer.isBuffer(f.content));
    if (entries.length === 0 || entries.length > 64) return;
    const head = baseHead(dir);
    if (!head) return;
    const old = readDelta(dir, head.base);
    if ((old?.namesKey ?? head.namesKey) !== namesBefore) return;
    const { parseEntry } = await import('../../core/format/entry.js');
    const changed: DeltaFile[] = [];
    const gone: string[] = [];
    for (const f of entries) {
      const st = f.content === null ? undefined : fs.statSync(`${dir}/${f.path}`, { throwIfNoEntry: false });
      if (!st) {
        gone.push(f.path);
        continue;
      }
      const text = f.content as string;
      const entry = parseEntry(text, f.path).entry;
      changed.push(deltaFileOf(dir, f.path, statData(st), entry && entryMetaOf(entry), text));
    }
    writeDelta(dir, withChanges(old, head.base, currentNamesKey(dir), changed, gone));
  } catch {
    /* derived state: the next search finds the change itself */
  }
}
