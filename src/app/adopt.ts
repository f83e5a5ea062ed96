/**
 * Contract: `adopt` turns markdown notes that are not entries yet (a note made in Obsidian: `entries/Untitled.md`,
 * no front matter, or front matter without an id) into entries in place, in one commit: a new id; the title from
 * the note's `title`, else its first `# ` heading, else its file name; the type from `type` (the flag), else the
 * note's own valid `type`, else `factual_reference`; its other fields and its body kept as written (tags in
 * written form); `created` and `updated` set when absent. Each file is renamed to its canonical path
 * (`entries/<id>-<slug>.md`). Everything is validated first (secrets, format, links); any failure adopts
 * nothing. A file git tracks is deleted in the same commit; an untracked one is removed once the commit has
 * landed, so a kill in between leaves both files and never neither. Run again after such a kill, adopt finds the
 * note already adopted (an entry with its title and its body, word for word) and only removes the leftover: no
 * duplicate.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../core/errors.js';
import { entryPath, formatEntry, newId, splitEntry, TITLE_MAX, updateEntryText } from '../core/format/entry.js';
import { clipText } from '../core/text/clip.js';
import { linkName } from '../core/format/links.js';
import { linkSkeleton, rewriteFieldLinks, rewriteMarkdownLinks, rewriteVaultLinks, vaultResolver } from '../core/format/vault.js';
import { toLf } from '../core/text/line-ends.js';
import { aliasesWith } from '../core/format/meta.js';
import { idFromFileName, TYPES } from '../core/format/schema.js';
import { readFileAt } from '../adapters/git/git.js';
import { gitignoreUpdate } from '../adapters/store/gitignore.js';
import { entryFolderNames, isV1Repo, readEntryText, safeJoin } from '../adapters/store/layout.js';
import { refuseSecretInputs, refuseSecrets, withWriteLock, type PendingFile } from '../adapters/write/transaction.js';
import { filesById, idSet } from './find.js';
import { walk } from './import.js';
import { nowStamp, oneLineTitle, tagList, validateEntryText } from './fields.js';
import { refuseForbidden } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { unknownChoice } from '../core/text/suggest.js';

export interface AdoptOptions extends RepoOptions {
  /** Files to adopt: absolute, or relative to the data repo. None: every note in an entry folder whose name has no id. */
  paths?: string[];
  type?: string;
  now?: Date;
}

export interface AdoptResult {
  adopted: { from: string; id: string; path: string; title: string; type: string }[];
  /** With no paths given: files passed over, with why (a file whose front matter has an id is an entry already). */
  skipped?: { path: string; reason: string }[];
  commit?: string;
}

/** The repo-relative path of a file to adopt (USAGE when outside the data repo or not a markdown file). */
function relPath(dir: string, p: string): string {
  const abs = path.resolve(dir, p);
  const rel = path.relative(path.resolve(dir), abs).split(path.sep).join('/');
  safeJoin(dir, rel);
  if (!/\.(md|markdown)$/i.test(rel)) throw new KbError('USAGE', `${p} is not a markdown file (.md); only notes can be adopted`);
  if (!fs.existsSync(abs) || !fs.statSync(abs).isFile()) throw new KbError('NOT_FOUND', `no file ${p} (paths are relative to the current folder or the data repo ${dir})`);
  return rel;
}

/** The notes of the entry folders whose file name carries no id. */
function candidates(dir: string): string[] {
  const out: string[] = [];
  for (const { folder, names } of entryFolderNames(dir)) {
    for (const n of names) if (n.endsWith('.md') && !n.startsWith('.') && !idFromFileName(n) && fs.statSync(path.join(dir, folder, n)).isFile()) out.push(`${folder}/${n}`);
  }
  return out;
}

/** A note's front matter fields (none when it has none) and its body, a byte order mark dropped. */
function noteParts(text: string, rel: string): { data: Record<string, unknown>; body: string } {
  const body = text.replace(/^\uFEFF/, '');
  if (!/^---[ \t]*\r?\n/.test(body)) return { data: {}, body };
  const raw = splitEntry(body, rel);
  return { data: { ...raw.data }, body: raw.body };
}

/** The id a note's front matter gives, as text, or undefined when it gives none (or has no front matter that parses). */
function frontMatterId(dir: string, rel: string): string | undefined {
  try {
    const id = noteParts(readEntryText(dir, rel), rel).data.id;
    return id === undefined ? undefined : String(id);
  } catch {
    return undefined; // adopting it says what is wrong
  }
}

/** Adopts notes as entries (one commit). */
export async function adoptNotes(options: AdoptOptions): Promise<AdoptResult> {
  if (options.type !== undefined && !(TYPES as readonly string[]).includes(options.type)) throw unknownChoice('--type', options.type, TYPES);
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const named = Boolean(options.paths?.length);
    const skipped: NonNullable<AdoptResult['skipped']> = [];
    // NOTE: with no paths, a file whose front matter already has an id is an entry with a file name that lacks it
    // (lint reports it), not a note: it is passed over and named, so one such file does not stop every adoption.
    const rels = [...new Set(named ? options.paths!.map((p) => relPath(dir, p)) : candidates(dir))].filter((rel) => {
      if (named) return true;
      const id = frontMatterId(dir, rel);
      if (id !== undefined) skipped.push({ path: rel, reason: `it already has an id (${id}): an entry, not a note to adopt; "git-kb lint" says what is wrong with it` });
      return id === undefined;
    });
    const withSkipped = (r: AdoptResult): AdoptResult => (skipped.length ? { ...r, skipped } : r);
    if (rels.length === 0) return withSkipped({ adopted: [] });
    const ids = idSet(dir);
    const v1 = isV1Repo(dir);
    const stamp = nowStamp(options.now);
    const notes = rels.map((rel) => {
      // The file name and the note as they are, before a title, tags (lower-cased) or a slug are made of them.
      refuseSecretInputs({ 'the file name': rel });
      const text = readEntryText(dir, rel);
      refuseSecrets(text, rel);
      const { data, body } = noteParts(text, rel);
      if (data.id !== undefined) throw new KbError('USAGE', `${rel} already has an id (${String(data.id)}): it is an entry, not a note to adopt ("git-kb lint" says what is wrong with it)`, { file: rel });
      const heading = /^#[ \t]+(.+?)[ \t#]*$/m.exec(body)?.[1];
      // A title the note did not give (its heading or file name) is cut to TITLE_MAX; one it gave is judged as written.
      const title = oneLineTitle(typeof data.title === 'string' && data.title.trim() ? data.title : clipText(heading?.trim() || path.basename(rel).replace(/\.(md|markdown)$/i, ''), TITLE_MAX));
      const own = typeof data.type === 'string' && (TYPES as readonly string[]).includes(data.type) ? data.type : undefined;
      const type = options.type ?? own ?? 'factual_reference';
      let id = newId(options.now, Math.random, v1);
      while (ids.has(id)) id = newId(options.now, Math.random, v1);
      ids.add(id);
      const tags = tagList(Array.isArray(data.tags) ? data.tags.map(String) : typeof data.tags === 'string' ? data.tags : undefined);
      // The title and the old file name are aliases: Obsidian finds the renamed note by the names people know.
      const aliases = aliasesWith(data.aliases, [title, path.basename(rel).replace(/\.(md|markdown)$/i, '')]);
      const fields: Record<string, unknown> = { ...data, id, title, type, tags, aliases, created: data.created ?? stamp, updated: stamp };
      const to = entryPath(fields as { id: string; title: string; type: string; host?: string; created?: string });
      return { from: rel, id, title, type, to, fields, body, content: '', host: typeof data.host === 'string' ? data.host : undefined };
    });
    // A note left by a kill after its commit (see the contract) is adopted already: its leftover file goes, no new entry.
    const already = await adoptedBefore(dir, notes);
    // Links: every link of the adopted notes and of the entries to a renamed note names its new file (./links.ts).
    const relinked = relinkRenamed(dir, notes.map((n) => ({ ...n, to: already.get(n.from)?.path ?? n.to })));
    for (const n of notes) n.content = relinked.adopted.get(n.from) ?? formatEntry(n.fields, n.body);
    const fresh = notes.filter((n) => !already.has(n.from));
    const done = (commit?: string): AdoptResult => {
      for (const from of already.keys()) fs.rmSync(safeJoin(dir, from), { force: true });
      const adopted = notes.map((n) => ({ from: n.from, id: already.get(n.from)?.id ?? n.id, path: already.get(n.from)?.path ?? n.to, title: n.title, type: n.type }));
      return withSkipped(commit ? { adopted, commit } : { adopted });
    };
    if (fresh.length === 0) return done();
    for (const n of fresh) refuseSecrets(n.content, n.to);
    for (const n of fresh) validateEntryText(n.content, n.to, (x) => ids.has(x));
    await refuseForbidden(dir, fresh.map((n) => ({ text: n.content, where: n.to, host: n.host })));
    const files: PendingFile[] = fresh.map((n) => ({ path: n.to, content: n.content }));
    for (const [p, content] of relinked.entries) {
      refuseSecrets(content, p);
      files.push({ path: p, content });
    }
    const untracked: string[] = [];
    for (const n of fresh) {
      if (await readFileAt(dir, 'HEAD', n.from).catch(() => undefined)) files.push({ path: n.from, content: null });
      else untracked.push(n.from);
    }
    const ignore = fs.existsSync(path.join(dir, '.obsidian')) ? gitignoreUpdate(dir) : undefined;
    if (ignore) files.push(ignore);
    const outside = fresh.some((n) => !/^(entries|hosts|sessions)\//.test(n.from));
    const message = fresh.length === 1 ? `adopt ${fresh[0]!.id}: ${fresh[0]!.title} (was ${fresh[0]!.from})` : `adopt ${fresh.length} notes as entries`;
    const commit = await tx.commit(files, message, { anyPath: outside });
    for (const u of untracked) fs.rmSync(safeJoin(dir, u), { force: true });
    return done(commit);
  }, { identity: options.settings });
}

/**
 * The notes' renames as Obsidian would have made them: every wikilink, embed and markdown link (body and front
 * matter properties) that resolved to a note being adopted, in the adopted notes themselves and in every entry,
 * now names the note's new file (`[[Redis notes]]` -> `[[kb-…-redis-notes|Redis notes]]`, the old name kept as
 * what a reader sees); a moved note's relative markdown links to files that stay are rewritten from its new folder.
 * Links are resolved before the renames, by Obsidian's rules, against every file of the data repo. Returns the
 * adopted notes' texts and the entries changed (path -> text); links to anything else are left as written.
 */
function relinkRenamed(dir: string, notes: { from: string; to: string; fields: Record<string, unknown>; body: string }[]): { adopted: Map<string, string>; entries: Map<string, string> } {
  const adopted = new Map<string, string>();
  const entries = new Map<string, string>();
  const walked = walk(dir);
  const vaultFiles = [...walked.notes, ...walked.others.map((o) => o.file)];
  const resolve = vaultResolver(vaultFiles);
  const fileSet = new Set(vaultFiles);
  const moved = new Map(notes.map((n) => [n.from, n.to]));
  const rewrite = (body: string, from: string, to: string): string => {
    const tf = (file: string): { target: string; note: boolean; path: string } | { keep: true } => {
      const m = moved.get(file);
      return m ? { target: linkName(m), note: true, path: m } : { keep: true };
    };
    const wiki = rewriteVaultLinks(body, from, resolve, tf).text;
    const stays = path.posix.dirname(from) === path.posix.dirname(to);
    return rewriteMarkdownLinks(wiki, from, path.posix.dirname(to), resolve, fileSet, (file) => {
      const t = tf(file);
      return 'keep' in t && !stays ? { target: file, note: file.endsWith('.md'), path: file } : t;
    }).text;
  };
  for (const n of notes) {
    const own = rewriteFieldLinks(n.fields, (t) => rewrite(t, n.from, n.to));
    adopted.set(n.from, formatEntry(own.fields, rewrite(n.body, n.from, n.to)));
  }
  if (moved.size === 0) return { adopted, entries };
  for (const files of filesById(dir).values()) {
    for (const f of files) {
      let text: string;
      let raw;
      try {
        text = toLf(readEntryText(dir, f.path));
        raw = splitEntry(text, f.path);
      } catch {
        continue; // an entry that does not parse is lint's to report
      }
      if (!text.includes('[[') && !text.includes('](')) continue;
      const body = rewrite(raw.body, f.path, f.path);
      const own = rewriteFieldLinks(raw.data, (t) => rewrite(t, f.path, f.path));
      if (body === raw.body && own.changed.length === 0) continue;
      const next = own.changed.length
        ? updateEntryText(text, f.path, Object.fromEntries(own.changed.map((k) => [k, own.fields[k]])), body)
        : `${text.slice(0, text.length - raw.body.length)}${body}`;
      entries.set(f.path, next);
    }
  }
  return { adopted, entries };
}

/**
 * The untracked notes among `notes` that an earlier adopt committed already (killed before it removed them): an
 * entry with the same title whose body is the note's, word for word. Only entries of that title are read.
 */
async function adoptedBefore(dir: string, notes: { from: string; title: string; body: string }[]): Promise<Map<string, { id: string; path: string }>> {
  const out = new Map<string, { id: string; path: string }>();
  const { loadCatalog } = await import('../adapters/index/catalog.js');
  const catalog = await loadCatalog(dir);
  const byTitle = new Map<string, { id: string; path: string }[]>();
  for (const e of catalog.byId.values()) byTitle.set(e.title, [...(byTitle.get(e.title) ?? []), { id: e.id, path: e.path }]);
  for (const n of notes) {
    const same = byTitle.get(n.title);
    if (!same || (await readFileAt(dir, 'HEAD', n.from).catch(() => undefined))) continue;
    // Links compare by what a reader sees: the entry holds them rewritten to the renamed files (relinkRenamed).
    const body = linkSkeleton(n.body).trim();
    for (const e of same) {
      let text: string;
      try {
        text = readEntryText(dir, e.path);
      } catch {
        continue;
      }
      if (linkSkeleton(splitEntry(text, e.path).body).trim() === body) {
        out.set(n.from, e);
        break;
      }
    }
  }
  return out;
}
