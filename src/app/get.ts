/**
 * Contract: `get` returns entry files verbatim, by id, without parsing the repo or listing its folders (the id map); `links` adds each entry's 1-hop
 * neighbours (both directions) from the catalog. Every unknown id is reported, none silently skipped. A file that
 * does not read as an entry (list and search skip it) is returned as it is, with why (spec/cli.md, "Entries that
 * do not read").
 */
import { KbError } from '../core/errors.js';
import { hostOfPath, TYPES } from '../core/format/schema.js';
import { readEntryText } from '../adapters/store/layout.js';
import { plainYaml } from '../core/format/plain-yaml.js';
import { locateEntryFile, type Locator } from './find.js';
import { forbiddenHostKeys } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface GetOptions extends RepoOptions {
  ids: string[];
  links?: boolean;
}

export interface GotEntry {
  id: string;
  path: string;
  text: string;
  /** Why the file does not read as an entry (`file:line: reason`), when it does not. */
  unreadable?: string;
  /**
   * The front matter's `type` when it is not a type git-kb knows (`''`: none): the entry is served as
   * factual_reference meanwhile (spec/cli.md, `get`).
   */
  type_written?: string;
  links?: { id: string; title: string; rel: string; direction: 'out' | 'in' }[];
}

/** Reads entries by id. */
export async function getEntries(options: GetOptions): Promise<GotEntry[]> {
  if (options.ids.length === 0) throw new KbError('USAGE', 'get needs at least one id');
  const { dir } = repoForRead(options);
  const loc: Locator = { dir };
  const hidden = await forbiddenHostKeys(dir);
  const missing: string[] = [];
  const out: GotEntry[] = [];
  for (const id of options.ids) {
    try {
      const f = locateEntryFile(loc, id);
      const host = hostOfPath(f.path);
      if (host && hidden.invalid) throw new KbError('INVALID_ENTRY', `${id} is a fact about host "${host}", and no host's facts are loaded while hosts.yaml does not load: ${hidden.invalid}`, { id, host });
      if (host && hidden.has(host)) throw new KbError('FORBIDDEN_HOST', `${id} is a fact about the forbidden host "${host}": never loaded`, { id, host });
      const text = readEntryText(dir, f.path);
      const { why, typeWritten } = await readsAs(text, f.path);
      out.push({ id, path: f.path, text, ...(why ? { unreadable: why } : {}), ...(typeWritten !== undefined ? { type_written: typeWritten } : {}) });
    } catch (err) {
      if (err instanceof KbError && err.code === 'NOT_FOUND') missing.push(id);
      else throw err;
    }
  }
  if (missing.length > 0) {
    throw new KbError('NOT_FOUND', `no entry with id ${missing.join(', ')}; "git-kb search" or "git-kb list" shows what exists`, { ids: missing, found: out.map((e) => e.id) });
  }
  if (options.links) {
    const { loadCatalog } = await import('../adapters/index/catalog.js');
    const { linkNeighbours } = await import('../adapters/index/search.js');
    const catalog = await loadCatalog(dir);
    for (const e of out) {
      e.links = linkNeighbours(catalog, e.id).map((n) => ({ id: n.entry.id, title: n.entry.title, rel: n.rel, direction: n.direction }));
    }
  }
  return out;
}

/**
 * How an entry file's text reads: why it does not read as an entry (no front matter, malformed YAML, no id: what
 * list and search skip), as `file:line: reason`; and its type as written when that is not a known type. NOTE:
 * front matter the plain reader takes, with an id and a known type, is the common case and needs no YAML library;
 * only another file loads the parser.
 */
async function readsAs(text: string, file: string): Promise<{ why?: string; typeWritten?: string }> {
  const fm = /^---\n([\s\S]*?\n)---(?:\n|$)/.exec(text);
  const plain = fm ? plainYaml(fm[1]!) : undefined;
  if (plain && typeof plain.id === 'string' && plain.id !== '' && typeof plain.type === 'string' && (TYPES as readonly string[]).includes(plain.type)) return {};
  const { parseEntry } = await import('../core/format/entry.js');
  const { entry, problems } = parseEntry(text, file);
  if (entry) return entry.typeWritten !== undefined ? { typeWritten: entry.typeWritten } : {};
  const p = problems[0];
  return { why: p ? `${p.file}:${p.line}: ${p.message}` : `${file}: does not read as an entry` };
}
