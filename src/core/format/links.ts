/**
 * Contract: wikilinks as Obsidian reads them, and the link forms git-kb writes (spec/entry-format.md, "Links").
 * Pure text in, values out. Obsidian resolves `[[target]]` by a file's basename (case-insensitive) or its path in
 * the vault, never by an alias, so every link git-kb writes names the target's file: `[[kb-0042-use-pnpm|kb-0042]]`
 * (a session summary's basename is its id, so `[[kb-3lv…]]` names it already). Readers take both forms: the id is
 * the part of the target up to the slug (`kb-[0-9a-z]+`), whatever folder, slug, `.md`, `#heading` or `|display`
 * surround it, so the `[[kb-0042]]` links of v1 repos keep working for git-kb. Code (fenced blocks, inline code)
 * is not markdown to Obsidian, so links there are neither read nor rewritten.
 *
 * The generated Links section shows the typed `links:` of the front matter where Obsidian's graph and backlinks
 * see them: a block at the end of the body between two marker comments, one `- rel: [[target|id]]` line per link,
 * in the order of `links:`. `links:` stays the source of truth; the section is rewritten from it on every write.
 */
import { toLf } from '../text/line-ends.js';

/** One `[[…]]` (or embed `![[…]]`) outside code, with where it is. */
export interface WikiLink {
  /** Offset of the `[[` (or of the `!` of an embed) in the text, and of the character after `]]`. */
  start: number;
  end: number;
  embed: boolean;
  /** The link target as written (before `#` and `|`). */
  target: string;
  /** `#heading` or `#^block` part, with the `#`, or ''. */
  heading: string;
  /** The display text after `|`, or undefined. */
  display?: string;
  /**
   * The `|` was written `\|`, as inside a markdown table (where a bare `|` would end the cell): Obsidian reads it
   * as the separator all the same, and a rewrite keeps the backslash so the table still renders.
   */
  escaped?: boolean;
}

const WIKILINK = /(!?)\[\[([^\[\]\n]+?)\]\]/g;

/**
 * The text with markdown code (fenced blocks, indented fences included, and inline code spans) replaced by
 * spaces of the same length, so offsets and line numbers stay those of the original.
 */
export function maskCode(text: string): string {
  // Import masks each note's body for its tags, wikilinks and markdown links in turn: the last text is kept.
  if (text === masked.text) return masked.mask;
  const mask = maskCodeOf(text);
  masked.text = text;
  masked.mask = mask;
  return mask;
}

const masked = { text: '', mask: '' };

function maskCodeOf(text: string): string {
  if (!text.includes('`') && !text.includes('~~~')) return text; // no fence and no inline code
  const lines = text.split('\n');
  const out: string[] = [];
  let fence: { ch: string; len: number } | undefined;
  for (const line of lines) {
    const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      out.push(' '.repeat(line.length));
      if (m && m[1]![0] === fence.ch && m[1]!.length >= fence.len && line.trim() === m[1]) fence = undefined;
      continue;
    }
    if (m && !(m[1]![0] === '`' && line.slice(m.index + m[0].length).includes('`'))) {
      fence = { ch: m[1]![0]!, len: m[1]!.length };
      out.push(' '.repeat(line.length));
      continue;
    }
    out.push(line);
  }
  // Inline code: a run of backticks closed by a run of the same length on the same line (kept simple: a span
  // across a line end is read as text).
  return out.join('\n').replace(/(?<!`)(`+)(?!`)[^\n]*?(?<!`)\1(?!`)/g, (s) => ' '.repeat(s.length));
}

/** Every wikilink and embed outside code, in order. */
export function findWikiLinks(text: string): WikiLink[] {
  if (!text.includes('[[')) return []; // masking only blanks characters out: no "[[" in the text, none in the mask
  const masked = maskCode(text);
  const out: WikiLink[] = [];
  for (const m of masked.matchAll(WIKILINK)) {
    // NOTE: found in the masked text (so code is never read as a link), read from the original: masking keeps
    // offsets, and a display text may hold inline code of its own.
    const from = m.index! + m[1]!.length + 2;
    const inner = text.slice(from, from + m[2]!.length);
    const bar = inner.indexOf('|');
    // `[[Target\|alias]]` (a link in a table): the backslash escapes the bar for the table, not for the link.
    const escaped = bar > 0 && inner[bar - 1] === '\\';
    const ref = bar === -1 ? inner : inner.slice(0, escaped ? bar - 1 : bar);
    // The subpath starts at the first `#` (heading, `#^block`) or `^` (a block): Obsidian allows neither in a
    // file name, so neither is ever part of the target.
    const hash = ref.search(/[#^]/);
    out.push({
      start: m.index!,
      end: m.index! + m[0].length,
      embed: m[1] === '!',
      target: (hash === -1 ? ref : ref.slice(0, hash)).trim(),
      heading: hash === -1 ? '' : ref.slice(hash).trim(),
      ...(bar === -1 ? {} : { display: inner.slice(bar + 1) }),
      ...(escaped ? { escaped } : {}),
    });
  }
  return out;
}

/** One markdown link or embed to a file, `[label](target "title")`, outside code, with where it is. */
export interface MarkdownLink {
  start: number;
  end: number;
  embed: boolean;
  label: string;
  /** The target as written (inside `<…>` when so written), before `#`. */
  raw: string;
  /** The target URL-decoded, before `#`; undefined when it does not decode. */
  path?: string;
  /** `#anchor` part with the `#`, or ''. */
  anchor: string;
  /** ` "title"` as written, or ''. */
  title: string;
}

// NOTE: linear on any text. A target or `<target>` stops at the next `[`, `]` or `<` (no file path of a vault
// holds one), so a line that opens links and never closes them (`[x](` or `[x](<` 60,000 times) is scanned once,
// not once from each `[` to the line's end (quadratic: 30 s for 240 KB); every part is bounded as well.
const MD_LINK = /(!?)\[([^\]\n]{0,4096})\]\((<[^<>\n]{1,4096}>|[^)[\]<\s]{1,4096})(\s+"[^"\n]{0,4096}")?\)/g;

/**
 * Every markdown link or embed to a file outside code, in order: web links (`scheme:…`) and anchors alone
 * (`#x`) are not files and are left out. Found in the masked text, read from the original (labels keep their code).
 */
export function findMarkdownLinks(text: string): MarkdownLink[] {
  if (!text.includes('](')) return [];
  const masked = maskCode(text);
  const out: MarkdownLink[] = [];
  for (const m of masked.matchAll(MD_LINK)) {
    const target = m[3]!.replace(/^<|>$/g, '');
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    const hash = target.indexOf('#');
    const raw = hash === -1 ? target : target.slice(0, hash);
    let decoded: string | undefined;
    try {
      decoded = decodeURI(raw);
    } catch {
      decoded = undefined;
    }
    const labelAt = m.index! + m[1]!.length + 1;
    const titleAt = labelAt + m[2]!.length + 2 + m[3]!.length;
    out.push({
      start: m.index!,
      end: m.index! + m[0].length,
      embed: m[1] === '!',
      label: text.slice(labelAt, labelAt + m[2]!.length),
      raw,
      ...(decoded !== undefined ? { path: decoded } : {}),
      anchor: hash === -1 ? '' : target.slice(hash),
      title: m[4] ? text.slice(titleAt, titleAt + m[4].length) : '',
    });
  }
  return out;
}

/** `a/b/../c` -> `a/c`; undefined when it climbs out of the root. */
export function normalizePath(p: string): string | undefined {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(part);
  }
  return out.join('/');
}

/** A path from the folder `fromDir` to `to` (both from the root), `../` as needed. */
export function relativePath(fromDir: string, to: string): string {
  const a = fromDir ? fromDir.split('/') : [];
  const b = to.split('/');
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  return [...a.slice(i).map(() => '..'), ...b.slice(i)].join('/');
}

/** A path as a markdown link target: each part URL-encoded (spaces as `%20`, parentheses too). */
export function markdownTarget(p: string): string {
  return p.split('/').map((s) => encodeURIComponent(s).replace(/\(/g, '%28').replace(/\)/g, '%29')).join('/');
}

/** The entry id a markdown link names (`kb-0042-use-pnpm.md`, `../entries/kb-0042.md`), or undefined: only `.md` targets name entries. */
export function markdownLinkId(l: MarkdownLink): string | undefined {
  return l.path !== undefined && /\.md$/i.test(l.path) ? linkTargetId(l.path) : undefined;
}

/** The folder of a repo path ('' at the root). */
function folderOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i === -1 ? '' : p.slice(0, i);
}

/** True when the markdown link in the file `from` points at `file` (relative to `from`'s folder, as Obsidian reads it). */
export function markdownNames(l: MarkdownLink, from: string, file: string): boolean {
  if (l.path === undefined) return false;
  const dir = folderOf(from);
  const p = normalizePath(dir ? `${dir}/${l.path}` : l.path);
  return p !== undefined && p.toLowerCase() === file.toLowerCase();
}

/** The entry id a link target names, in any form git-kb reads (`kb-0042`, `kb-0042-slug`, `entries/kb-0042-slug.md`), or undefined. */
export function linkTargetId(target: string): string | undefined {
  const base = target.replace(/\\/g, '/').split('/').pop()!.replace(/\.md$/i, '');
  const m = /^(kb-[0-9a-z]+)(?:-.*)?$/.exec(base);
  return m && m[1]!.length <= 40 ? m[1] : undefined;
}

/**
 * Ids linked from a body by wikilinks (both forms) and by markdown links to entry files (`[x](kb-0042-slug.md)`),
 * code ignored, each once: wikilinks first, in order, then markdown links.
 */
export function linkedIds(body: string): string[] {
  const out = new Set<string>();
  for (const l of findWikiLinks(body)) {
    const id = linkTargetId(l.target);
    if (id) out.add(id);
  }
  for (const l of findMarkdownLinks(body)) {
    const id = markdownLinkId(l);
    if (id) out.add(id);
  }
  return [...out];
}

/** A file's basename without `.md`: what Obsidian resolves a link by. */
export function linkName(filePath: string): string {
  return filePath.split('/').pop()!.replace(/\.md$/i, '');
}

/** True when Obsidian resolves `target` to the file at `filePath`: by basename or by vault path, `.md` optional, case-insensitive. */
export function targetNames(target: string, filePath: string): boolean {
  const t = target.replace(/\\/g, '/').replace(/^\/+/, '').replace(/\.md$/i, '').toLowerCase();
  const p = filePath.replace(/\.md$/i, '').toLowerCase();
  return t === linkName(p) || t === p;
}

/** The link git-kb writes to the entry at `filePath` with id `id`: `[[basename|id]]`, or `[[id]]` when they are one. */
export function entryWikiLink(filePath: string, id: string, display = id): string {
  const name = linkName(filePath);
  return name === display ? `[[${name}]]` : `[[${name}|${display}]]`;
}

/**
 * A wikilink written back with a new target, keeping its embed mark, heading and display text (and the escaped
 * bar of a link in a table: `[[target\|display]]`).
 */
export function formatWikiLink(l: Pick<WikiLink, 'embed' | 'heading' | 'display' | 'escaped'>, target: string): string {
  return `${l.embed ? '!' : ''}[[${target}${l.heading}${l.display !== undefined ? `${l.escaped ? '\\' : ''}|${l.display}` : ''}]]`;
}

/** What relinkText may also repair, beyond the wikilinks to entries by id. */
export interface RelinkScope {
  /** The file whose text it is: its markdown links to entries (`[x](kb-0042.md)`) are then brought to the entry's file, relative to it. */
  from?: string;
  /**
   * The entry file a wikilink target that is not an id names by an old name (a title or alias, `[[Redis notes]]`
   * after the note became `kb-…-redis-notes.md`), or undefined: a target Obsidian resolves already, or no one entry.
   */
  byName?: (target: string) => string | undefined;
  /** An entry's title, shown by the generated Links section's items (unknown: the display they had, else the id). */
  titleOf?: (id: string) => string | undefined;
}

/**
 * Rewrites every wikilink to an entry (any form) that Obsidian would not resolve into the form git-kb writes:
 * the target's basename, the old text kept as display (`[[kb-0042]]` -> `[[kb-0042-use-pnpm|kb-0042]]`,
 * `[[kb-0042|the pnpm note]]` -> `[[kb-0042-use-pnpm|the pnpm note]]`). `pathOf` gives an id's file (undefined:
 * left alone, a missing entry is lint's to report). With `scope`, also a markdown link to an entry that does not
 * name its file (`[x](kb-0042.md)` -> `[x](kb-0042-use-pnpm.md)`), and a wikilink that resolves to nothing but
 * names an entry by an old name (`[[Redis notes]]` -> `[[kb-…-redis-notes|Redis notes]]`). Links in code are not
 * touched. Returns the text and the count.
 */
export function relinkText(text: string, pathOf: (id: string) => string | undefined, scope: RelinkScope = {}): { text: string; count: number } {
  const edits: { start: number; end: number; text: string }[] = [];
  for (const l of findWikiLinks(text)) {
    const id = linkTargetId(l.target);
    if (!id) {
      const file = l.target && scope.byName ? scope.byName(l.target) : undefined;
      if (file) edits.push({ start: l.start, end: l.end, text: formatWikiLink({ ...l, display: l.embed ? l.display : l.display ?? l.target }, linkName(file)) });
      continue;
    }
    const file = pathOf(id);
    if (!file || targetNames(l.target, file)) continue;
    const display = l.display ?? id;
    const name = linkName(file);
    edits.push({ start: l.start, end: l.end, text: formatWikiLink({ ...l, display: name === display && !l.heading ? undefined : display }, name) });
  }
  if (scope.from !== undefined) {
    for (const l of findMarkdownLinks(text)) {
      const id = markdownLinkId(l);
      const file = id ? pathOf(id) : undefined;
      if (!file || markdownNames(l, scope.from, file)) continue;
      edits.push({ start: l.start, end: l.end, text: `${l.embed ? '!' : ''}[${l.label}](${markdownTarget(relativePath(folderOf(scope.from), file))}${l.anchor}${l.title})` });
    }
  }
  if (edits.length === 0) return { text, count: 0 };
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let pos = 0;
  for (const e of edits) {
    out += text.slice(pos, e.start) + e.text;
    pos = e.end;
  }
  return { text: out + text.slice(pos), count: edits.length };
}

// ---------------------------------------------------------------------------------------------------------
// The generated Links section

/** The marker line that opens the generated Links section. */
export const LINKS_OPEN = '<!-- git-kb links: generated from the "links" field above; change that field (or git-kb edit --link/--unlink), not these lines -->';
/** The marker line that closes it. */
export const LINKS_CLOSE = '<!-- git-kb links end -->';
/** How the opening marker line starts (what readers look for). */
export const LINKS_OPEN_PREFIX = '<!-- git-kb links:';
const LINKS_HEADING = '## Links';

/** One item of a Links section as read. */
export interface SectionItem {
  rel: string;
  id?: string;
  target: string;
  /** The display text after `|` (the linked entry's title as last written), or undefined. */
  display?: string;
  /** 0-based line in the body. */
  line: number;
}

/** The generated section found in a body. */
export interface LinksSection {
  /** The body without the section, trailing blank lines dropped. */
  rest: string;
  /** 0-based body lines of the opening and closing markers (close undefined: never closed). */
  open: number;
  close?: number;
  items: SectionItem[];
  /** Lines between the markers that are not a heading, a blank or a link item (0-based), for lint. */
  strays: number[];
}

/**
 * Finds the generated Links section of a body (undefined when it has none). Nothing a person wrote is ever taken
 * for part of it: a line inside it that is not a heading, a blank or a link item is a stray and stays in `rest`
 * (above where the section is written again), and a section with no closing marker ends at its last item.
 */
export function findLinksSection(body: string): LinksSection | undefined {
  if (!body.includes(LINKS_OPEN_PREFIX)) return undefined;
  const lines = body.split('\n');
  const open = lines.findIndex((l) => l.trim().startsWith(LINKS_OPEN_PREFIX));
  if (open === -1) return undefined;
  let close: number | undefined;
  const items: SectionItem[] = [];
  const strays: number[] = [];
  let last = open;
  for (let i = open + 1; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (l === LINKS_CLOSE) {
      close = i;
      break;
    }
    if (l === '' || l === LINKS_HEADING) continue;
    const m = /^- ([a-z_]+): (\[\[[^\[\]\n]+\]\])$/.exec(l);
    const link = m ? findWikiLinks(m[2]!)[0] : undefined;
    if (!m || !link) {
      strays.push(i);
      continue;
    }
    const id = linkTargetId(link.target);
    items.push({ rel: m[1]!, target: link.target, line: i, ...(id ? { id } : {}), ...(link.display !== undefined ? { display: link.display } : {}) });
    last = i;
  }
  let end: number;
  if (close !== undefined) end = close + 1;
  else {
    // Not closed: the section is the opening marker and the items up to the last one; what follows is text.
    end = last + 1;
    strays.splice(0, strays.length, ...strays.filter((i) => i < end));
  }
  const kept = strays.map((i) => lines[i]!);
  const above = lines.slice(0, open).join('\n').trimEnd();
  const own = kept.join('\n').trim();
  const before = above && own ? `${above}\n\n${own}` : above || own;
  const after = lines.slice(end).join('\n').replace(/^\s*\n/, '').trimEnd();
  const rest = before && after ? `${before}\n\n${after}` : before || after;
  return { rest, open, close, items, strays };
}

/** The body without its generated Links section (the body as a person wrote it). */
export function stripLinksSection(body: string): string {
  const s = findLinksSection(body);
  return s ? s.rest : body;
}

/**
 * What a Links section item shows for an entry: its title, so people see names in Obsidian's reading view, graph
 * hover and backlinks; the id when the title is unknown or would break the link (`[`, `]`, `|`, a line break).
 */
function itemDisplay(id: string, title: string | undefined): string {
  const t = title?.trim();
  return t && !/[[\]|\n\r]/.test(t) ? t : id;
}

/** The display texts of a section's items that are not the bare id (titles as last written), by id. */
function sectionDisplays(section: LinksSection | undefined): Map<string, string> {
  const shown = new Map<string, string>();
  for (const i of section?.items ?? []) if (i.id && i.display !== undefined && i.display !== i.id) shown.set(i.id, i.display);
  return shown;
}

/**
 * The Links section for `links` (empty string for none); `pathOf` names each target's file (undefined: `[[id]]`),
 * `titleOf` its title, shown as the display text (`[[kb-0042-use-pnpm|Use pnpm]]`; unknown: the id).
 */
export function renderLinksSection(links: { rel: string; to: string }[], pathOf: (id: string) => string | undefined, titleOf?: (id: string) => string | undefined): string {
  if (links.length === 0) return '';
  const items = links.map((l) => {
    const file = pathOf(l.to);
    return `- ${l.rel}: ${file ? entryWikiLink(file, l.to, itemDisplay(l.to, titleOf?.(l.to))) : `[[${l.to}]]`}`;
  });
  return [LINKS_OPEN, LINKS_HEADING, '', ...items, LINKS_CLOSE].join('\n');
}

/**
 * A body with its Links section rewritten from `links` (removed when there are none), at the end. A target whose
 * title `titleOf` does not know keeps the display text its item had in the old section (a merge, a recurrence).
 */
export function withLinksSection(body: string, links: { rel: string; to: string }[], pathOf: (id: string) => string | undefined, titleOf?: (id: string) => string | undefined): string {
  const old = findLinksSection(toLf(body));
  const shown = sectionDisplays(old);
  const rest = (old ? old.rest : toLf(body)).trimEnd();
  const section = renderLinksSection(links, pathOf, (id) => titleOf?.(id) ?? shown.get(id));
  if (!section) return rest;
  return rest ? `${rest}\n\n${section}` : section;
}

/** The display text each linked id's section item shows (its title as last written), from a body's section. */
export function sectionTitles(body: string): (id: string) => string | undefined {
  const shown = sectionDisplays(findLinksSection(toLf(body)));
  return (id) => shown.get(id);
}

/** The file each linked id's section item names, from a body's section (for a merge that must rewrite it). */
export function sectionTargets(body: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const i of findLinksSection(body)?.items ?? []) if (i.id) out.set(i.id, i.target);
  return out;
}

/**
 * What is wrong with a body's Links section against the entry's `links` (lint, `links-section`): a section that
 * is not closed, holds other lines, lists other links than `links:` (or in another order), or exists with no
 * links. Each with its 0-based body line. A missing section for an entry that has links is `missing` (a hint:
 * v1 entries have none until `git-kb relink`).
 */
export function linksSectionProblems(body: string, links: { rel: string; to: string }[]): { problems: { line: number; message: string }[]; missing: boolean } {
  const s = findLinksSection(body);
  if (!s) return { problems: [], missing: links.length > 0 };
  const problems: { line: number; message: string }[] = [];
  if (s.close === undefined) problems.push({ line: s.open, message: `the generated Links section is not closed by a line "${LINKS_CLOSE}"` });
  for (const l of s.strays) problems.push({ line: l, message: 'a line inside the generated Links section is not a "- rel: [[link]]" item (write your own text above the section)' });
  const want = links.map((l) => `${l.rel} ${l.to}`);
  const have = s.items.map((i) => `${i.rel} ${i.id ?? i.target}`);
  if (want.join('\n') !== have.join('\n')) {
    const missing = want.filter((w) => !have.includes(w));
    const extra = have.filter((h) => !want.includes(h));
    const parts = [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `not in "links": ${extra.join(', ')}` : '', !missing.length && !extra.length ? 'in another order' : ''].filter(Boolean);
    problems.push({ line: s.open, message: `the generated Links section does not match the "links" field (${parts.join('; ')})` });
  }
  return { problems, missing: false };
}

/**
 * A body as git-kb writes it: the person's text with every entry link in the file-name form Obsidian follows
 * (relinkText), then the Links section generated from `links` (none when there are none).
 */
export function writtenBody(body: string, links: { rel: string; to: string }[], pathOf: (id: string) => string | undefined, scope: RelinkScope = {}): string {
  const lf = toLf(body);
  const old = findLinksSection(lf);
  const own = relinkText(old ? old.rest : lf, pathOf, scope).text;
  // Where no title is known, an item keeps the display text it had in the old section.
  const shown = sectionDisplays(old);
  return withLinksSection(own, links, pathOf, (id) => scope.titleOf?.(id) ?? shown.get(id));
}

/**
 * A body as a reader sees its links, for the search and prompt indexes: each wikilink as its display text (else
 * its target), so `[[kb-0042-use-pnpm|kb-0042]]` lends an entry the id it shows, not the words of another
 * entry's file name.
 */
export function readableLinks(body: string): string {
  if (!body.includes('[[')) return body;
  let out = '';
  let pos = 0;
  for (const l of findWikiLinks(body)) {
    out += `${body.slice(pos, l.start)}${l.display ?? `${l.target}${l.heading ? ` ${l.heading.slice(1)}` : ''}`}`;
    pos = l.end;
  }
  return out + body.slice(pos);
}
