/**
 * Contract: reading an Obsidian vault's notes for `import` (spec/cli.md, "import"), as pure functions of paths
 * and text: which vault file a wikilink names (Obsidian's rules: a path from the vault root, a partial path that
 * ends a file's path, or a bare name matched against basenames, case-insensitive, `.md` optional for notes; a
 * name two files share goes to the one in the linking note's folder, else the shortest path), rewriting a note's
 * links to the files the import (or adopt) writes, in the body and in front matter values (Obsidian's properties
 * link too), the inline `#tags` of a body, and a note's text with its link targets left out (to recognise a
 * note imported before, whatever its links were rewritten to). Markdown links to vault files
 * (`[text](Other%20note.md)`, `![alt](assets/a.png)`) are rewritten like wikilinks. Code is never read
 * (./links.ts, maskCode).
 */
import { findMarkdownLinks, findWikiLinks, formatWikiLink, markdownTarget, maskCode, normalizePath, relativePath, type WikiLink } from './links.js';
import { normalizeTag } from './tags.js';

function dirOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i === -1 ? '' : p.slice(0, i);
}

function baseOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** Resolves wikilink targets against the files of a vault (paths relative to its root, `/` separators). */
export function vaultResolver(files: string[]): (target: string, from: string) => string | undefined {
  const byPath = new Map<string, string>();
  const byBase = new Map<string, string[]>();
  for (const f of [...files].sort()) {
    const lower = f.toLowerCase();
    byPath.set(lower, f);
    const b = baseOf(lower);
    const list = byBase.get(b);
    if (list) list.push(f);
    else byBase.set(b, [f]);
  }
  // Obsidian's choice between files a link fits alike: the one in the linking note's folder, else the shortest path.
  const nearest = (list: string[], from: string): string => {
    const here = dirOf(from).toLowerCase();
    const rank = (f: string): number => (dirOf(f).toLowerCase() === here ? 0 : 1);
    return [...list].sort((a, b) => rank(a) - rank(b) || a.length - b.length || (a < b ? -1 : 1))[0]!;
  };
  return (target, from) => {
    const t = target.replace(/\\/g, '/').trim().toLowerCase();
    if (!t) return undefined;
    // `Name` is the note Name.md; `diagram.png` the file itself (or a note `diagram.png.md`); `Name.md` the note.
    const candidates = t.endsWith('.md') ? [t] : /\.[a-z0-9]+$/.test(baseOf(t)) ? [t, `${t}.md`] : [`${t}.md`, t];
    if (t.includes('/')) {
      for (const c of candidates) {
        // A path from the vault root, then one relative to the note (./, ../), then the end of a longer path.
        const root = normalizePath(c.replace(/^\/+/, ''));
        if (root !== undefined && byPath.has(root)) return byPath.get(root);
        const rel = /^\.\.?\//.test(c) ? normalizePath(`${dirOf(from.toLowerCase())}/${c}`) : undefined;
        if (rel !== undefined && byPath.has(rel)) return byPath.get(rel);
        const ends = [...byPath.keys()].filter((p) => p.endsWith(`/${c}`));
        if (ends.length) return nearest(ends.map((p) => byPath.get(p)!), from);
      }
      return undefined;
    }
    for (const c of candidates) {
      const list = byBase.get(c);
      if (list?.length) return nearest(list, from);
    }
    return undefined;
  };
}

/** A link the import left as written, and why. */
export interface LeftLink {
  /** 1-based line in the body. */
  line: number;
  link: string;
  reason: string;
}

/**
 * Rewrites a note's wikilinks and embeds: each target that `resolve` finds in the vault is replaced by what
 * `targetFor` says the import wrote for that file (an entry's file name, an attachment's path), keeping the
 * embed mark, the `#heading` and the display text; a link to a note gets its old text as display when it had
 * none (`[[Redis notes]]` -> `[[kb-…-redis-notes|Redis notes]]`). `targetFor` returns a reason instead when the
 * file was not imported, or `{keep: true}` to leave the link exactly as written (adopt: a file that stays where it
 * is). Links to nothing in the vault (Obsidian's links to notes not written yet) are kept and
 * listed, like those whose file was skipped.
 */
export function rewriteVaultLinks(
  body: string,
  from: string,
  resolve: (target: string, from: string) => string | undefined,
  targetFor: (vaultPath: string) => { target: string; note: boolean } | { why: string } | { keep: true },
): { text: string; left: LeftLink[] } {
  const left: LeftLink[] = [];
  let out = '';
  let pos = 0;
  const lineAt = (offset: number): number => body.slice(0, offset).split('\n').length;
  for (const l of findWikiLinks(body)) {
    const raw = body.slice(l.start, l.end);
    if (!l.target) continue; // [[#heading]]: a link inside the note itself
    const file = resolve(l.target, from);
    if (!file) {
      left.push({ line: lineAt(l.start), link: raw, reason: 'no note or attachment of that name in the vault' });
      continue;
    }
    const t = targetFor(file);
    if ('keep' in t) continue;
    if ('why' in t) {
      left.push({ line: lineAt(l.start), link: raw, reason: t.why });
      continue;
    }
    const display = l.display ?? (t.note && !l.embed ? l.target : undefined);
    out += body.slice(pos, l.start) + formatWikiLink({ ...l, display }, t.target);
    pos = l.end;
  }
  return { text: out + body.slice(pos), left };
}

/**
 * A note's text with every wikilink reduced to what a reader sees of it (its display text, else the target as
 * written; an embed to a mark), so a note imported before matches its entry whatever its links were rewritten
 * to (`[[Redis notes]]` and `[[kb-…-redis-notes|Redis notes]]` read alike).
 */
export function linkSkeleton(body: string): string {
  let out = '';
  let pos = 0;
  for (const l of findWikiLinks(body)) {
    out += body.slice(pos, l.start) + (l.embed ? '![[]]' : `[[${visible(l)}]]`);
    pos = l.end;
  }
  // Markdown links to files (not web links) keep their text; their targets are the import's to rewrite.
  return (out + body.slice(pos)).replace(/(!?\[[^\]\n]*\])\((?![a-z][a-z0-9+.-]*:|#)(<[^>\n]+>|[^)\s]+)(\s+"[^"\n]*")?\)/gi, '$1()');
}

function visible(l: WikiLink): string {
  return l.display ?? l.target;
}

/**
 * The inline tags of a body (Obsidian's: `#` then letters, digits, `_`, `-`, `/`, at least one not a digit, at
 * the start of a line or after a space; never in code, and never a heading, which has a space after its `#`s),
 * in written form (normalizeTag), each once.
 */
export function inlineTags(body: string): string[] {
  const out: string[] = [];
  // Masking only blanks characters out, so a body with no `#` before a tag character has no tag in the mask.
  if (!/#[\p{L}\p{N}_/-]/u.test(body)) return out;
  const text = maskCode(body).replace(/\[\[[^\]\n]*\]\]/g, (m) => ' '.repeat(m.length)).replace(/<!--[\s\S]*?-->/g, (m) => m.replace(/[^\n]/g, ' '));
  for (const m of text.matchAll(/(?<=^|[\s(,;])#([\p{L}\p{N}_/-]+)/gmu)) {
    const n = normalizeTag(m[1]!.replace(/\/+$/, ''));
    if ('tag' in n && !out.includes(n.tag)) out.push(n.tag);
  }
  return out;
}

/**
 * Rewrites a note's markdown links and embeds to vault files (`[text](Other%20note.md)`, `![alt](assets/a.png)`)
 * as `rewriteVaultLinks` does wikilinks: the target is read as Obsidian does (URL-decoded; relative to the note,
 * else from the vault root, else by name), and written as a path from where the entry lands (`newDir`) to what
 * the import wrote, spaces as `%20`; `#anchor` and a title are kept. Web links (`scheme:`), anchors alone and
 * code are left alone; a link to a vault file that was not imported is kept and listed.
 */
export function rewriteMarkdownLinks(
  body: string,
  from: string,
  newDir: string,
  resolve: (target: string, from: string) => string | undefined,
  files: Set<string>,
  targetFor: (vaultPath: string) => { target: string; note: boolean; path: string } | { why: string } | { keep: true },
): { text: string; left: LeftLink[] } {
  const left: LeftLink[] = [];
  let out = '';
  let pos = 0;
  const lineAt = (offset: number): number => body.slice(0, offset).split('\n').length;
  for (const l of findMarkdownLinks(body)) {
    const decoded = l.path;
    if (!decoded) continue;
    const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
    const rel = normalizePath(dir ? `${dir}/${decoded}` : decoded);
    const root = normalizePath(decoded.replace(/^\/+/, ''));
    const file = (rel !== undefined && files.has(rel) ? rel : undefined) ?? (root !== undefined && files.has(root) ? root : undefined) ?? resolve(decoded, from);
    const raw = body.slice(l.start, l.end);
    if (!file) {
      if (/\.[a-z0-9]+$/i.test(decoded)) left.push({ line: lineAt(l.start), link: raw, reason: 'no note or attachment at that path in the vault' });
      continue;
    }
    const t = targetFor(file);
    if ('keep' in t) continue;
    if ('why' in t) {
      left.push({ line: lineAt(l.start), link: raw, reason: t.why });
      continue;
    }
    out += `${body.slice(pos, l.start)}${l.embed ? '!' : ''}[${l.label}](${markdownTarget(relativePath(newDir, t.path))}${l.anchor}${l.title})`;
    pos = l.end;
  }
  return { text: out + body.slice(pos), left };
}

/** Front matter fields that are never link text (what git-kb itself reads them as). */
const NOT_LINK_FIELDS = new Set(['id', 'title', 'type', 'tags', 'created', 'updated', 'links', 'url', 'host', 'rules']);

/**
 * Front matter values with their wikilinks rewritten by `rewrite`: Obsidian's properties link too (a text, or a
 * list of texts, `categories: ["[[Books]]"]`), so a note's links there must survive a rename like those of its
 * body. Only top-level texts and lists of texts are read (what Obsidian's properties hold); the fields git-kb
 * reads as its own (id, title, type, tags, dates, links, url, host, rules) are not link text. Returns the fields
 * (a new object only when something changed) and the names of the fields changed.
 */
export function rewriteFieldLinks(fields: Record<string, unknown>, rewrite: (text: string) => string): { fields: Record<string, unknown>; changed: string[] } {
  const changed: string[] = [];
  let out = fields;
  for (const [k, v] of Object.entries(fields)) {
    if (NOT_LINK_FIELDS.has(k)) continue;
    let next: unknown = v;
    if (typeof v === 'string' && v.includes('[[')) next = rewrite(v);
    else if (Array.isArray(v) && v.some((x) => typeof x === 'string' && x.includes('[['))) {
      const list = v.map((x) => (typeof x === 'string' && x.includes('[[') ? rewrite(x) : x));
      if (list.some((x, i) => x !== v[i])) next = list;
    }
    if (next !== v) {
      if (out === fields) out = { ...fields };
      out[k] = next;
      changed.push(k);
    }
  }
  return { fields: out, changed };
}
