/**
 * Contract: the entry format of spec/entry-format.md. Pure functions from text to values and back: parsing never
 * evaluates anything (`---js` front matter is refused), every problem carries the file and line it sits on, and
 * formatting an edited entry keeps unknown fields, comments and key order.
 */
import matter from 'gray-matter';
import YAML from 'yaml';
import { yamlErrorAt, yamlReason } from './yaml-error.js';
import { flowListText, plainYaml, plainYamlText } from './plain-yaml.js';
import { KbError, messageWithoutPlace, shownPath, type Place } from '../errors.js';
import { closingFence } from './fence.js';
import { checkLearningFields } from './learning.js';
import { regexRisk } from './regex-risk.js';
import { secretFreeSlugSource } from '../secrets/guard.js';
import { tagProblem } from './tags.js';
import { findLinksSection, findMarkdownLinks, findWikiLinks, linkedIds, linkName, linkTargetId, linksSectionProblems, markdownLinkId, markdownNames, targetNames } from './links.js';

export interface Link {
  rel: Rel;
  to: string;
}

/** A deterministic prose rule carried by a kernel entry (spec/entry-format.md, `rules`). */
export interface Rule {
  pattern: string;
  message: string;
  flags?: string;
}

/** A parsed, valid-enough-to-serve entry. `data` is the raw front matter, unknown fields included. */
export interface Entry {
  id: string;
  title: string;
  /** The type git-kb serves it as: its own when it is one of TYPES, else `factual_reference` (see typeWritten). */
  type: EntryType;
  /**
   * Set only when the front matter's `type` is not one of TYPES (a hand edit's `lesson`, `Decision`): the type as
   * written (one line, clipped; `''` when there is none), which every output that shows the type shows, marked as
   * not a known type (spec/entry-format.md, "Types"). Behaviour (decay, budgets, filters) follows `type`.
   */
  typeWritten?: string;
  tags: string[];
  links: Link[];
  created?: string;
  updated?: string;
  url?: string;
  appliesTo: Activity[];
  kernel: boolean;
  host?: string;
  aliases: string[];
  rules: Rule[];
  body: string;
  /** Path relative to the data repo, with forward slashes. */
  path: string;
  data: Record<string, unknown>;
}

/** One thing wrong with an entry: which rule, a message, and where. */
export interface Problem extends Place {
  rule: string;
  message: string;
  id?: string;
}

export { ACTIVITIES, ID_PATTERN, idFromFileName, idFromPath, isValidHostKey, isValidId, newId, RELS, TYPES } from './schema.js';
export type { Activity, EntryType, Rel } from './schema.js';
import { ACTIVITIES, idFromFileName, isValidHostKey, isValidId, RELS, TYPES, type Activity, type EntryType, type Rel } from './schema.js';
import { toLf } from '../text/line-ends.js';
import { clipText } from '../text/clip.js';
import { nearestType } from '../text/suggest.js';
import { foldLatin } from '../text/fold.js';

/** The longest title an entry may have, in characters (lists, search results and pointers show it on one line). */
export const TITLE_MAX = 300;

/** A file-name slug from a title: lowercase ASCII words joined by hyphens, at most 50 characters. */
export function slugify(title: string): string {
  const ascii = foldLatin(title)
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!ascii) return 'entry';
  if (ascii.length <= 50) return ascii;
  const cut = ascii.slice(0, 50);
  const lastHyphen = cut.lastIndexOf('-');
  return (lastHyphen > 20 ? cut.slice(0, lastHyphen) : cut).replace(/-+$/, '');
}

/** The slug of an entry's file name: from its title with every secret replaced first (a slug never holds one). */
export function titleSlug(title: string): string {
  return slugify(secretFreeSlugSource(title));
}

/** Where an entry lives in the data repo, by type (spec/entry-format.md, "Files"). */
export function entryPath(e: { id: string; title: string; type: string; host?: string; created?: string }): string {
  if (e.type === 'session_summary') {
    const date = /^(\d{4})-(\d{2})/.exec(e.created ?? '') ?? /^(\d{4})-(\d{2})/.exec(new Date().toISOString())!;
    return `sessions/${date[1]}/${date[2]}/${e.id}.md`;
  }
  if (e.type === 'host_fact') {
    if (!isValidHostKey(e.host)) throw new KbError('INVALID_ENTRY', `host_fact needs a valid host key, got ${JSON.stringify(e.host)}`);
    return `hosts/${e.host}/${e.id}-${titleSlug(e.title)}.md`;
  }
  return `entries/${e.id}-${titleSlug(e.title)}.md`;
}

/**
 * Ids linked from a body by wikilinks, in both forms git-kb reads: `[[kb-0042]]` (v1) and the file-name form it
 * writes, `[[kb-0042-slug|…]]` (a heading after `#` and a display text after `|` are ignored; code is not read),
 * and by markdown links to entry files. See ./links.ts.
 */
export function wikiLinks(body: string): string[] {
  return linkedIds(body);
}

const refuseJs = {
  parse(): never {
    throw new KbError('INVALID_ENTRY', 'JavaScript front matter (---js) is never evaluated; use YAML');
  },
  stringify(): never {
    throw new KbError('INVALID_ENTRY', 'JavaScript front matter is not supported');
  },
};

/**
 * Parses front matter YAML. A key that is a list or a mapping (`? [a, b]`, `{a: 1}: x`) is refused with its line:
 * JavaScript objects cannot hold it (the YAML library would stringify it and print a warning on stderr).
 */
function parseFrontMatter(s: string): object {
  // gray-matter hands over the text between the fences from the first fence's newline on, without the last one.
  const lines = s.startsWith('\n') ? s.slice(1) : s;
  const plain = plainYaml(lines === '' || lines.endsWith('\n') ? lines : `${lines}\n`);
  if (plain) return plain;
  const lineCounter = new YAML.LineCounter();
  const doc = YAML.parseDocument(s, { lineCounter, logLevel: 'error' });
  const error = yamlErrorAt(doc, lineCounter);
  if (error) throw Object.assign(new Error(error.reason), { linePos: [{ line: error.line, col: 1 }] });
  let bad: { at: number; why: string } | undefined;
  const at = (node: unknown): number => (node as { range?: [number, number, number] }).range?.[0] ?? 0;
  YAML.visit(doc, {
    Pair(_key, pair) {
      if (YAML.isCollection(pair.key)) {
        bad = { at: at(pair.key), why: 'a key is a list or a mapping; front matter keys must be plain words' };
        return YAML.visit.BREAK;
      }
      return undefined;
    },
    // An alias inside the node it names (`links: &a [*a]`) makes a value that contains itself: every reader
    // that prints or copies it would never end, so it is refused here, with its line.
    Alias(_key, alias, path) {
      if (path.some((n) => (n as { anchor?: string }).anchor === alias.source)) {
        bad = { at: at(alias), why: `the alias *${alias.source} is inside the value it names (&${alias.source}), so that value would contain itself` };
        return YAML.visit.BREAK;
      }
      return undefined;
    },
  });
  if (bad !== undefined) throw Object.assign(new Error(bad.why), { linePos: [lineCounter.linePos(bad.at)] });
  return (doc.toJS() ?? {}) as object;
}

const MATTER_OPTIONS = {
  language: 'yaml',
  engines: {
    yaml: {
      parse: parseFrontMatter,
      stringify: (o: object): string => YAML.stringify(o, { lineWidth: 0 }),
    },
    js: refuseJs,
    javascript: refuseJs,
  },
} as unknown as Parameters<typeof matter>[1];

/**
 * What gray-matter gives for `src` (first line `---`, no language) when the first `\n---` in it is the closing
 * fence at `fence`, the shape of every file git-kb writes: the text between the fences (from the first fence's
 * newline on) to the YAML engine unless it holds only comments and blanks, and the text after the fence less one
 * line break. gray-matter itself is left the rest (a `\n----` or `\n---x` line before the fence): it copies each
 * file into a Buffer and builds its options per call, a third of a cold index build's parsing.
 */
function splitAtFence(src: string, fence: number): { data: unknown; content: string } {
  const block = src.slice(3, fence);
  const data = block.replace(/^\s*#[^\n]+/gm, '').trim() === '' ? {} : parseFrontMatter(block);
  let content = src.slice(fence + 4);
  if (content[0] === '\r') content = content.slice(1);
  if (content[0] === '\n') content = content.slice(1);
  return { data, content };
}

/** The raw split of a file: front matter object, body, and the line where the body starts. */
export interface RawEntry {
  data: Record<string, unknown>;
  body: string;
  /** The front matter source between the fences (without them). */
  frontmatter: string;
  /** 1-based line of the first body line. */
  bodyLine: number;
}

/**
 * Splits a file into front matter and body without judging the fields. Throws KbError INVALID_ENTRY with the
 * file and line for anything that is not a readable entry: no front matter, a missing closing fence, a
 * non-YAML language, malformed YAML, or front matter that is not a mapping.
 */
export function splitEntry(text: string, file: string): RawEntry {
  if (text.includes('\u0000')) throw invalid('binary content (NUL byte) is not an entry', file, 1);
  const src = toLf(text).replace(/^\uFEFF/, '');
  const first = src.slice(0, src.indexOf('\n') === -1 ? src.length : src.indexOf('\n'));
  if (!/^---\s*$/.test(first)) {
    if (/^---\s*\S/.test(first)) {
      const lang = first.slice(3).trim();
      throw invalid(`front matter in "${lang}" is refused: only YAML front matter is read (never evaluated)`, file, 1);
    }
    throw invalid(`no front matter: an entry starts with a line "---"; a plain markdown note becomes an entry with "git-kb adopt ${shownPath(file)}"`, file, 1);
  }
  const close = closingFence(src);
  if (!close) throw invalid('front matter is not closed by a line "---"', file, 1);
  const fmEnd = close.start;
  const frontmatter = src.slice(first.length + 1, fmEnd + 1);
  let parsed: { data: unknown; content: string };
  try {
    // NOTE: a file naming an `excerpt_separator` goes to gray-matter, which reads that field (an excerpt).
    const own = src.indexOf('\n---', 3) === fmEnd && !src.includes('excerpt_separator');
    parsed = own ? splitAtFence(src, fmEnd) : matter(src, MATTER_OPTIONS as never);
  } catch (err) {
    throw yamlError(err, file);
  }
  const data = parsed.data as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw invalid('front matter must be a YAML mapping of fields', file, 2);
  }
  const body = parsed.content.replace(/^\n/, '');
  // The front matter's lines (it ends with a newline, so split gives one extra), both fences, and the blank
  // line after the closing fence when there is one (it is not part of the body).
  const bodyLine = frontmatter.split('\n').length + 2 + (body.length < parsed.content.length ? 1 : 0);
  return { data: data as Record<string, unknown>, body, frontmatter, bodyLine };
}

function yamlError(err: unknown, file: string): KbError {
  if (err instanceof KbError) return new KbError(err.code, `${file}:1: ${err.message}`, { file, line: 1 });
  const e = err as { message?: string; linePos?: { line: number; col: number }[] };
  // NOTE: gray-matter hands YAML the text from the end of the opening fence, newline included, so YAML's line
  // numbers are already the file's.
  const line = e.linePos?.[0] ? e.linePos[0].line : 2;
  const reason = yamlReason(String(e.message ?? err));
  return invalid(`malformed YAML front matter: ${reason}`, file, line);
}

/** Sorts `list` from `from` on, in place. NOTE: no spread into splice: 130,000 link problems overflow the stack. */
function sortTail<T>(list: T[], from: number, order: (a: T, b: T) => number): void {
  const tail = list.slice(from).sort(order);
  for (let i = 0; i < tail.length; i++) list[from + i] = tail[i]!;
}

function invalid(message: string, file: string, line: number): KbError {
  return new KbError('INVALID_ENTRY', `${file}:${line}: ${message}`, { file, line });
}

/** The 1-based file line of a top-level front matter key, for messages (2 when not found). */
export function lineOfKey(frontmatter: string, key: string): number {
  const lines = frontmatter.split('\n');
  for (let i = 0; i < lines.length; i++) if (lines[i]!.startsWith(`${key}:`)) return i + 2;
  return 2;
}

function stringList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.map(String);
  return undefined;
}

function dateString(v: unknown): string | undefined {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'string') return v;
  return undefined;
}

/**
 * A front matter `type` that is not one of TYPES as the outputs show it: one line, at most 60 characters, `''`
 * when there is none; a value that is not text (a list, a number) as YAML's flow form would write it.
 */
export function writtenType(v: unknown): string {
  if (v === undefined || v === null) return '';
  return clipText(typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : flowText(v), 60);
}

function flowText(v: unknown): string {
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return `[${v.join(', ')}]`;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * lint's `type-unknown` message: the type as written, that the entry is served as factual_reference meanwhile,
 * the nearest known type with the edit that sets it, and the closed set.
 */
function unknownTypeMessage(v: unknown, id: string | undefined): string {
  const shown = v === undefined || v === null ? 'no "type"' : `unknown type ${JSON.stringify(writtenType(v))}`;
  const near = nearestType(writtenType(v));
  const fix = near ? `; did you mean ${near}? "git-kb edit ${id ?? 'ID'} --type ${near}" sets it` : `; "git-kb edit ${id ?? 'ID'} --type T" sets one`;
  return `${shown} (git-kb serves the entry as factual_reference meanwhile)${fix}; one of: ${TYPES.join(', ')}`;
}

/** Options for judging an entry: how to tell whether a linked id exists, and which file it is. */
export interface CheckOptions {
  idExists?: (id: string) => boolean;
  /** The path of the entry with an id (lint): links are then also checked against Obsidian's resolution. */
  pathOf?: (id: string) => string | undefined;
  /**
   * For a link target that is not an id (lint): undefined when it resolves to a file of the repo, else the entry
   * an old name of it names (a title or alias: `link-renamed`, relink repairs it), or '' (`link-unresolved`).
   */
  unresolvedTarget?: (target: string, from: string, markdown: boolean) => string | undefined;
}

/**
 * Reads the typed fields of raw front matter and checks them against the format. Returns the entry (or
 * undefined when it cannot be served at all) and every problem found, each with its file and line.
 */
export function interpretEntry(raw: RawEntry, file: string, options: CheckOptions = {}): { entry?: Entry; problems: Problem[]; hints: Problem[] } {
  const d = raw.data;
  const problems: Problem[] = [];
  const hints: Problem[] = [];
  // NOTE: each key's line is found once: an entry with 20,000 problems on one key (links to itself) would
  // otherwise split the front matter 20,000 times, quadratic in the file's size.
  const keyLines = new Map<string, number>();
  const at = (key: string): number => {
    let line = keyLines.get(key);
    if (line === undefined) keyLines.set(key, (line = lineOfKey(raw.frontmatter, key)));
    return line;
  };
  const problem = (rule: string, message: string, key: string): void => {
    problems.push({ rule, message, file, line: at(key), id: typeof d.id === 'string' ? d.id : undefined });
  };

  const fileName = file.split('/').pop() ?? file;
  const fileId = idFromFileName(fileName);
  const id = typeof d.id === 'string' ? d.id : undefined;
  if (!id) problem('id-missing', `missing "id" field; a note made outside git-kb becomes an entry with "git-kb adopt ${shownPath(file)}"`, 'id');
  else if (!isValidId(id)) problem('id-invalid', `id "${id}" must match kb-[0-9a-z]+`, 'id');
  else if (fileId && fileId !== id) problem('id-mismatch', `id "${id}" does not match the file name's id "${fileId}"`, 'id');
  if (!fileId) problem('file-name', `file name "${fileName}" must be <id>-<slug>.md`, 'id');

  const title = typeof d.title === 'string' ? d.title.trim() : typeof d.title === 'number' ? String(d.title) : '';
  if (!title) problem('title-missing', 'missing or empty "title"', 'title');
  else if (/[\r\n]/.test(title)) problem('title-multiline', '"title" must be one line (it holds a line break)', 'title');
  else if (/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(title)) problem('title-control', '"title" holds control characters (terminal escapes)', 'title');
  else if (title.length > TITLE_MAX) problem('title-long', `"title" is ${title.length} characters, over ${TITLE_MAX}: a title is the line a later reader searches for and lists; put the rest in the body`, 'title');

  const type = d.type as EntryType;
  const typeKnown = typeof d.type === 'string' && (TYPES as readonly string[]).includes(d.type);
  if (!typeKnown) problem('type-unknown', unknownTypeMessage(d.type, typeof d.id === 'string' && isValidId(d.id) ? d.id : undefined), 'type');

  const tags = stringList(d.tags);
  if (!tags) problem('tags-invalid', '"tags" must be a list of strings', 'tags');
  for (const t of tags ?? []) {
    const why = tagProblem(t.trim());
    if (why) problem('tag-invalid', why, 'tags');
  }

  const links: Link[] = [];
  if (d.links !== undefined && d.links !== null) {
    if (!Array.isArray(d.links)) problem('links-invalid', '"links" must be a list of {rel, to}', 'links');
    else {
      for (const l of d.links as unknown[]) {
        const link = l as { rel?: unknown; to?: unknown };
        if (!link || typeof link !== 'object' || typeof link.to !== 'string') {
          problem('links-invalid', `link ${JSON.stringify(l)} must be {rel, to}`, 'links');
          continue;
        }
        if (typeof link.rel !== 'string' || !(RELS as readonly string[]).includes(link.rel)) {
          problem('rel-unknown', `unknown rel ${JSON.stringify(link.rel ?? null)}; one of: ${RELS.join(', ')}`, 'links');
          continue;
        }
        if (!isValidId(link.to)) problem('link-invalid', `link target "${link.to}" is not an id`, 'links');
        else if (link.to === id) problem('link-self', `link ${link.rel} → ${link.to}: an entry cannot link to itself (git-kb edit ${link.to} --unlink ${link.to} removes it)`, 'links');
        else if (options.idExists && !options.idExists(link.to)) problem('link-dangling', `link to missing entry ${link.to}`, 'links');
        links.push({ rel: link.rel as Rel, to: link.to });
      }
    }
  }
  checkBodyLinks(raw, file, links, options, typeof d.id === 'string' ? d.id : undefined, problems, hints);

  const url = typeof d.url === 'string' ? d.url.trim() : undefined;
  if (d.url !== undefined && typeof d.url !== 'string') problem('url-invalid', '"url" must be a string', 'url');
  if (type === 'bookmark' && !url) problem('url-missing', 'a bookmark needs a "url"', 'url');
  if (url && !/^[a-z][a-z0-9+.-]*:\S+$/i.test(url)) problem('url-invalid', `"url" is not a URL: ${url}`, 'url');

  const appliesTo = stringList(d.applies_to);
  if (!appliesTo) problem('applies-to-invalid', '"applies_to" must be a list', 'applies_to');
  for (const a of appliesTo ?? []) {
    if (!(ACTIVITIES as readonly string[]).includes(a)) problem('activity-unknown', `unknown activity "${a}" in applies_to; one of: ${ACTIVITIES.join(', ')}`, 'applies_to');
  }

  if (d.kernel !== undefined && typeof d.kernel !== 'boolean') problem('kernel-invalid', '"kernel" must be true or false', 'kernel');
  const host = typeof d.host === 'string' ? d.host : undefined;
  if (d.host !== undefined && !isValidHostKey(d.host)) problem('host-invalid', `"host" must be a host key, got ${JSON.stringify(d.host)}`, 'host');
  if (type === 'host_fact' && !host) problem('host-missing', 'a host_fact needs a "host"', 'host');

  const aliases = stringList(d.aliases);
  if (!aliases) problem('aliases-invalid', '"aliases" must be a list of strings', 'aliases');

  const rules = checkRules(d.rules, (m) => problem('rule-invalid', m, 'rules'));
  checkLearningFields(d, problem);

  for (const key of ['created', 'updated'] as const) {
    const v = d[key];
    if (v !== undefined && (dateString(v) === undefined || Number.isNaN(Date.parse(dateString(v)!)))) {
      problem('date-invalid', `"${key}" must be a date (YYYY-MM-DD or ISO 8601), got ${JSON.stringify(v)}`, key);
    }
  }

  if (!id || !isValidId(id)) return { problems, hints };
  const entry: Entry = {
    id,
    title: title || id,
    type: typeKnown ? type : 'factual_reference',
    ...(typeKnown ? {} : { typeWritten: writtenType(d.type) }),
    tags: (tags ?? []).map((t) => t.trim()).filter(Boolean),
    links,
    created: dateString(d.created),
    updated: dateString(d.updated),
    url,
    appliesTo: (appliesTo ?? []).filter((a): a is Activity => (ACTIVITIES as readonly string[]).includes(a)),
    kernel: d.kernel === true,
    host,
    aliases: aliases ?? [],
    rules,
    body: raw.body,
    path: file,
    data: d,
  };
  return { entry, problems, hints };
}

/**
 * The body's links: a wikilink to a missing entry (`link-dangling`), one that names an entry by a file name that
 * is not its own, so Obsidian cannot follow it (`link-stale`, a hand rename), the generated Links section out of
 * step with `links:` (`links-section`); and, as hints, v1 links `[[kb-0042]]` that Obsidian cannot follow
 * (`link-old-form`) and an entry with links but no Links section (`links-section-missing`). `git-kb relink` fixes
 * all but the dangling ones.
 */
function checkBodyLinks(raw: RawEntry, file: string, links: Link[], options: CheckOptions, id: string | undefined, problems: Problem[], hints: Problem[]): void {
  // NOTE: the offsets of the body's line breaks, found once; each link's line is a binary search among them (the
  // body split up to each link was quadratic in the links: a hub of 200,000 links took minutes).
  const breaks: number[] = [];
  for (let i = raw.body.indexOf('\n'); i >= 0; i = raw.body.indexOf('\n', i + 1)) breaks.push(i);
  const lineAt = (offset: number): number => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (breaks[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return raw.bodyLine + lo;
  };
  const section = findLinksSection(raw.body);
  const sectionLines = new Set(section?.items.map((i) => i.line) ?? []);
  const at = (p: Omit<Problem, 'file' | 'id'>): Problem => ({ ...p, file, ...(id ? { id } : {}) });
  const firstProblem = problems.length;
  const firstHint = hints.length;
  const unresolved = (shown: string, target: string, line: number, markdown: boolean): void => {
    const r = options.unresolvedTarget?.(target, file, markdown);
    if (r === undefined) return;
    if (r) problems.push(at({ rule: 'link-renamed', message: `${shown} resolves to no file, but names ${linkName(r)} by an old name (its title or an alias), so Obsidian cannot follow it; "git-kb relink" rewrites it`, line }));
    else hints.push(at({ rule: 'link-unresolved', message: `${shown} resolves to no file in the data repo (Obsidian shows it as a note not yet written)`, line }));
  };
  for (const m of findMarkdownLinks(raw.body)) {
    const line = lineAt(m.start);
    const shown = raw.body.slice(m.start, m.end);
    const target = markdownLinkId(m);
    if (!target) {
      if (m.path) unresolved(shown, m.path, line, true);
      continue;
    }
    if (options.idExists && !options.idExists(target)) {
      problems.push(at({ rule: 'link-dangling', message: `${shown} in the body names a missing entry`, line }));
      continue;
    }
    const path = options.pathOf?.(target);
    if (path && !markdownNames(m, file, path)) problems.push(at({ rule: 'link-stale', message: `${shown} does not name the file of ${target} (${path}), so Obsidian cannot follow it; "git-kb relink" rewrites it`, line }));
  }
  for (const l of findWikiLinks(raw.body)) {
    const target = linkTargetId(l.target);
    const line = lineAt(l.start);
    if (!target) {
      if (l.target) unresolved(raw.body.slice(l.start, l.end), l.target, line, false);
      continue;
    }
    const inSection = sectionLines.has(line - raw.bodyLine);
    if (options.idExists && !options.idExists(target)) {
      // A section item to a missing id is the `links` field's dangling link, reported there once.
      if (!inSection) problems.push(at({ rule: 'link-dangling', message: `[[${l.target}]] in the body names a missing entry`, line }));
      continue;
    }
    const path = options.pathOf?.(target);
    if (!path || targetNames(l.target, path)) continue;
    if (l.target === target) {
      hints.push(at({ rule: 'link-old-form', message: `[[${l.target}]] is found by git-kb but not by Obsidian (no file is named ${target}); "git-kb relink" writes it as [[${linkName(path)}|${target}]]`, line }));
    } else {
      problems.push(at({ rule: 'link-stale', message: `[[${l.target}]] names ${target} by a file name it no longer has (${path}), so Obsidian cannot follow it; "git-kb relink" rewrites it`, line }));
    }
  }
  // Markdown links and wikilinks in the order of their lines.
  const byLine = (a: Problem, b: Problem): number => (a.line ?? 0) - (b.line ?? 0);
  sortTail(problems, firstProblem, byLine);
  sortTail(hints, firstHint, byLine);
  const s = linksSectionProblems(raw.body, links);
  for (const p of s.problems) problems.push(at({ rule: 'links-section', message: `${p.message}; "git-kb relink" rewrites it`, line: raw.bodyLine + p.line }));
  if (s.missing && options.pathOf) {
    hints.push(at({ rule: 'links-section-missing', message: 'the typed "links" are not shown in the body, so Obsidian\'s graph does not see them; "git-kb relink" adds the generated Links section', line: lineOfKey(raw.frontmatter, 'links') }));
  }
}

/** Upper bound on a rule pattern's source, so a rule cannot smuggle in a huge regular expression. */
const MAX_RULE_PATTERN = 500;

/**
 * Checks that a rule pattern compiles, matches something, and cannot run away on long input (the analysis of
 * ./regex-risk.ts: back-references, repetition inside repetition, overlapping repeated alternatives,
 * two open-ended runs across words). Returns a reason when refused.
 */
export function ruleRisk(pattern: string, flags = 'i'): string | undefined {
  if (pattern.length > MAX_RULE_PATTERN) return `pattern longer than ${MAX_RULE_PATTERN} characters`;
  if (!/^[dgimsuy]*$/.test(flags) || new Set(flags).size !== flags.length) return `flags "${flags}" are not valid regular expression flags`;
  let re: RegExp;
  try {
    re = new RegExp(pattern, flags.replace(/[gy]/g, ''));
  } catch (err) {
    return `does not compile: ${(err as Error).message}`;
  }
  if (re.test('')) return 'matches empty text, so it would flag every piece of prose; it must match at least one character';
  return regexRisk(pattern, flags);
}

function checkRules(v: unknown, report: (message: string) => void): Rule[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    report('"rules" must be a list of {pattern, message, flags?}');
    return [];
  }
  const rules: Rule[] = [];
  v.forEach((r: unknown, i) => {
    const rule = r as Partial<Rule> | null;
    if (!rule || typeof rule !== 'object' || typeof rule.pattern !== 'string' || typeof rule.message !== 'string') {
      report(`rules[${i}] must be {pattern, message, flags?} with string values`);
      return;
    }
    const flags = rule.flags === undefined ? 'i' : rule.flags;
    if (typeof flags !== 'string') {
      report(`rules[${i}].flags must be a string`);
      return;
    }
    const risk = ruleRisk(rule.pattern, flags);
    if (risk) {
      report(`rules[${i}] pattern /${rule.pattern}/: ${risk}`);
      return;
    }
    rules.push({ pattern: rule.pattern, message: rule.message, ...(rule.flags !== undefined ? { flags } : {}) });
  });
  return rules;
}

/** Parses and checks an entry file in one step (see splitEntry and interpretEntry). */
export function parseEntry(text: string, file: string, options: CheckOptions = {}): { entry?: Entry; problems: Problem[]; hints: Problem[] } {
  let raw: RawEntry;
  try {
    raw = splitEntry(text, file);
  } catch (err) {
    if (err instanceof KbError) {
      const line = (err.data.line as number | undefined) ?? 1;
      return { problems: [{ rule: 'parse', message: messageWithoutPlace(err), file, line }], hints: [] };
    }
    throw err;
  }
  return interpretEntry(raw, file, options);
}

/** Field order for new entries; fields not listed keep their place after these. */
const FIELD_ORDER = ['id', 'title', 'type', 'tags', 'aliases', 'links', 'url', 'host', 'applies_to', 'kernel', 'rules', 'pattern_key', 'recurrences', 'seen', 'created', 'updated'];

/**
 * Lists v1's scripts read from one line (`tags: [a, b]`; a block list reads there as `[]`), so git-kb writes them
 * in that flow form whenever their items allow it (spec/entry-format.md, "v1 readers").
 */
const FLOW_LISTS = new Set(['tags', 'applies_to']);

/** One top-level field as git-kb writes it (lines ending in "\n"). */
function fieldText(key: string, value: unknown): string {
  const field = { [key]: value };
  return (FLOW_LISTS.has(key) ? flowListText(key, value) : undefined) ?? plainYamlText(field) ?? YAML.stringify(field, { lineWidth: 0 });
}

/** Formats a new entry file from its fields and body. Empty lists and false flags are left out. */
export function formatEntry(fields: Record<string, unknown>, body: string): string {
  const ordered: Record<string, unknown> = {};
  for (const key of FIELD_ORDER) if (key in fields) ordered[key] = fields[key];
  for (const key of Object.keys(fields)) if (!(key in ordered)) ordered[key] = fields[key];
  for (const [k, v] of Object.entries(ordered)) {
    if (v === undefined || v === null || (Array.isArray(v) && v.length === 0 && k !== 'tags') || (k === 'kernel' && v === false)) delete ordered[k];
  }
  const yaml = Object.entries(ordered).map(([k, v]) => fieldText(k, v)).join('');
  const text = toLf(body).trimEnd();
  return `---\n${yaml}---\n${text ? `\n${text}\n` : ''}`;
}

/** A piece of front matter text: one top-level field (its key, value and line ends) or what lies between them. */
interface Piece {
  key?: string;
  text: string;
}

/**
 * The front matter cut into its top-level fields and the comments and blank lines between them, so that joined
 * they give `fm` back byte for byte; undefined for a shape this does not cut (flow mapping, not a mapping).
 */
function frontMatterPieces(fm: string): Piece[] | undefined {
  const doc = YAML.parseDocument(fm, { logLevel: 'error' });
  if (doc.errors.length || !YAML.isMap(doc.contents) || doc.contents.flow) return undefined;
  const pieces: Piece[] = [];
  let at = 0;
  for (const pair of doc.contents.items) {
    const key = pair.key as YAML.Scalar | null;
    if (!YAML.isScalar(key) || !key.range) return undefined;
    const start = key.range[0];
    if (start < at || (start > 0 && fm[start - 1] !== '\n')) return undefined;
    const value = pair.value as YAML.Node | null;
    let end = value && YAML.isNode(value) && value.range ? value.range[1] : key.range[2];
    if (end > 0 && fm[end - 1] !== '\n') end = fm.indexOf('\n', end) === -1 ? fm.length : fm.indexOf('\n', end) + 1;
    if (start > at) pieces.push({ text: fm.slice(at, start) });
    pieces.push({ key: String(key.value), text: fm.slice(start, end) });
    at = end;
  }
  if (at < fm.length) pieces.push({ text: fm.slice(at) });
  return pieces.map((p) => p.text).join('') === fm ? pieces : undefined;
}

/**
 * The front matter `fm` with `changes` made (undefined, or an empty list other than `tags`, deletes a field),
 * touching only the lines of the fields that change: every other field, comment and blank line stays byte for
 * byte as it was, so a v1 file keeps its `tags: [a, b]` and a hand-written one its quoting. A field that is
 * new goes after the field it follows in FIELD_ORDER (or last).
 */
function patchFrontMatter(fm: string, data: Record<string, unknown>, changes: Record<string, unknown>): string | undefined {
  const pieces = frontMatterPieces(fm);
  if (!pieces) return undefined;
  const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
  for (const [key, value] of Object.entries(changes)) {
    const drop = value === undefined || (Array.isArray(value) && value.length === 0 && key !== 'tags');
    const i = pieces.findIndex((p) => p.key === key);
    if (i === -1) {
      if (drop) continue;
      const order = FIELD_ORDER.indexOf(key);
      let after = -1;
      pieces.forEach((p, j) => {
        const o = p.key === undefined ? -1 : FIELD_ORDER.indexOf(p.key);
        if (order === -1 || (o !== -1 && o < order)) after = p.key === undefined ? after : j;
      });
      if (after === -1 && order !== -1) {
        const before = pieces.findIndex((p) => p.key !== undefined && FIELD_ORDER.indexOf(p.key) > order);
        after = before === -1 ? pieces.length - 1 : before - 1;
      }
      pieces.splice(after + 1, 0, { key, text: fieldText(key, value) });
      continue;
    }
    if (drop) pieces.splice(i, 1);
    else if (!same(data[key], value)) pieces[i] = { key, text: fieldText(key, value) };
  }
  return pieces.map((p) => p.text).join('');
}

/**
 * Rewrites an existing entry file with some fields changed (undefined deletes a field) and optionally a new
 * body. Only the lines of the changed fields are rewritten; every other field, comment and the key order stay
 * byte for byte as they were.
 */
export function updateEntryText(text: string, file: string, changes: Record<string, unknown>, body?: string): string {
  const raw = splitEntry(text, file);
  let yaml = patchFrontMatter(raw.frontmatter, raw.data, changes);
  if (yaml === undefined) {
    const doc = YAML.parseDocument(raw.frontmatter);
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined || (Array.isArray(value) && value.length === 0 && key !== 'tags')) doc.delete(key);
      else doc.set(key, doc.createNode(value));
    }
    yaml = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
  }
  const newBody = toLf(body ?? raw.body).trimEnd();
  return `---\n${yaml}---\n${newBody ? `\n${newBody}\n` : ''}`;
}
