/**
 * Contract: `import DIR` turns a folder of markdown notes into entries in ONE commit. Every note is checked
 * (format, secrets) before anything is written: one bad note refuses the whole import, listing every problem
 * with file and line, unless `skipInvalid` is set. Blobs and trees are written directly (no index walk).
 * A note already in the repo (an entry of the same type, title and body) is not imported again: rerunning an
 * import, finished or killed at any point, gives each note exactly once.
 *
 * An Obsidian vault keeps what its links need: wikilinks and embeds between its files are rewritten to the files
 * the import writes (display text kept), attachments (images, audio, video, PDF; at most ATTACHMENT_CAP bytes
 * each) are copied into `attachments/` in the same commit, inline `#tags` join `tags`, `date:` stands for
 * `created`, and everything not imported is reported with the reason (`skipped`, and `unresolved` for links
 * left as written). Attachments are secret-scanned like notes (text-like ones: an image has no text to scan).
 */
import { isV1Repo, readEntryText } from '../adapters/store/layout.js';
import fs from 'node:fs';
import path from 'node:path';
import { readRegularFile } from '../adapters/system/read-bounded.js';
import { entryPath, formatEntry, interpretEntry, isValidId, newId, splitEntry, TITLE_MAX, TYPES, type Problem } from '../core/format/entry.js';
import { clipText } from '../core/text/clip.js';
import { formatProblems, KbError, messageWithoutPlace } from '../core/errors.js';
import { findSecrets, forgetScans, redactSecrets, rememberScans } from '../core/secrets/scan.js';
import { redactFields, safeName } from '../core/secrets/guard.js';
import { normalizeTag } from '../core/format/tags.js';
import { linkName, stripLinksSection, writtenBody } from '../core/format/links.js';
import { inlineTags, linkSkeleton, rewriteFieldLinks, type LeftLink, rewriteMarkdownLinks, rewriteVaultLinks, vaultResolver } from '../core/format/vault.js';
import { looksBinary } from '../core/secrets/guard.js';
import { decodeUtf8 } from '../core/text/utf8.js';
import { gitignoreUpdate } from '../adapters/store/gitignore.js';
import { filesById, pathLookup, titleLookup } from './find.js';
import { nowStamp } from './fields.js';
import { repoForWrite, type RepoOptions } from './repo.js';
import { refuseForbidden } from './guard.js';
import { withWriteLock, type PendingFile } from '../adapters/write/transaction.js';
import { toLf } from '../core/text/line-ends.js';
import { aliasesWith } from '../core/format/meta.js';
import { unknownChoice } from '../core/text/suggest.js';

export interface ImportOptions extends RepoOptions {
  source: string;
  type?: string;
  tagsFromFolders?: boolean;
  skipInvalid?: boolean;
  /** Replace secret-shaped content with [REDACTED:kind] markers (and report it) instead of refusing. */
  redact?: boolean;
  onProgress?: (done: number, total: number) => void;
  now?: Date;
}

/** The largest attachment copied (10 MiB); a bigger one is skipped and reported. */
export const ATTACHMENT_CAP = 10 * 1024 * 1024;

/**
 * File types copied as attachments: what Obsidian shows and embeds (images, audio, video, PDF, and its own Bases
 * and Canvas files, which notes embed as `![[Books.base]]`; their contents are copied as they are).
 */
const ATTACHMENT_EXT = new Set(['base', 'canvas', 'png', 'jpg', 'jpeg', 'gif', 'bmp', 'svg', 'webp', 'avif', 'ico', 'tif', 'tiff', 'heic', 'pdf', 'mp3', 'wav', 'm4a', 'ogg', 'flac', '3gp', 'webm', 'mp4', 'mov', 'mkv', 'ogv']);

export interface ImportResult {
  imported: number;
  /** Everything under DIR not imported, and why: notes that failed (--skip-invalid), hidden folders, unsupported files, attachments over the cap. */
  skipped: { file: string; reason: string }[];
  /** Attachments: the vault file and where it is in the data repo (`present`: the same bytes were there already). */
  attachments: { file: string; path: string; present?: boolean }[];
  /** Wikilinks left as written: to nothing in the vault, or to a file that was not imported. */
  unresolved: { file: string; line: number; link: string; reason: string }[];
  commit?: string;
  ids: string[];
  /** Each imported note: its new id and path, and the file it came from (relative to DIR). */
  entries: { id: string; path: string; source: string }[];
  /** Notes already in the repo (same type, title and body): not imported again. */
  present: { file: string; id: string }[];
  redacted: { file: string; kinds: string[]; count: number }[];
}

/** What a walk of DIR found: notes, other files (with their size), and what it passed over. */
export interface Walked {
  notes: string[];
  others: { file: string; size: number }[];
  passed: { file: string; reason: string }[];
  /** DIR holds `.obsidian/`: it is an Obsidian vault. */
  vault: boolean;
}

/** Every file of a folder as a vault holds it (hidden folders, node_modules and symbolic links passed over). */
export function walk(root: string, rel = '', into: Walked = { notes: [], others: [], passed: [], vault: false }): Walked {
  let dirents: fs.Dirent[];
  try {
    dirents = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
  } catch (err) {
    // A folder that cannot be listed (no permission, gone meanwhile: /proc) is passed over, not a crash.
    if (!rel) throw err;
    into.passed.push({ file: `${rel}/`, reason: `cannot be listed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
    return into;
  }
  for (const d of dirents.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.name === '.obsidian' && !rel && d.isDirectory()) {
      into.vault = true;
      into.passed.push({ file: `${p}/`, reason: "Obsidian's settings folder: not imported (the data repo's .gitignore keeps it out)" });
      continue;
    }
    if (d.name.startsWith('.')) {
      into.passed.push({ file: d.isDirectory() ? `${p}/` : p, reason: 'hidden: not imported' });
      continue;
    }
    if (d.name === 'node_modules') {
      into.passed.push({ file: `${p}/`, reason: 'node_modules: not imported' });
      continue;
    }
    if (d.isSymbolicLink()) into.passed.push({ file: p, reason: 'a symbolic link: not followed' });
    else if (d.isDirectory()) walk(root, p, into);
    else if (d.isFile() && /\.(md|markdown)$/i.test(d.name)) into.notes.push(p);
    else if (d.isFile()) {
      const st = fs.statSync(path.join(root, p), { throwIfNoEntry: false });
      if (st) into.others.push({ file: p, size: st.size });
    }
    else into.passed.push({ file: p, reason: 'not a regular file' });
  }
  return into;
}

interface Note {
  /** The note's path relative to DIR as messages and results name it: any secret in it replaced by its marker. */
  file: string;
  fields: Record<string, unknown>;
  body: string;
  /** Secrets in the note's own path (a file named after a token): refused, or redacted with --redact. */
  nameSecrets: { kind: string; preview: string }[];
}

/** A title made from a file name: `-` and `_` read as spaces, except inside a [REDACTED:kind] marker. */
function titleFromName(name: string): string {
  return name.replace(/\.(md|markdown)$/i, '').replace(/\[REDACTED:[a-z0-9-]+\]|[-_]+/g, (m) => (m.startsWith('[') ? m : ' ')).trim();
}

function readNote(root: string, file: string, shown: string, options: ImportOptions, stamp: string): Note {
  const abs = path.join(root, file);
  let buf: Buffer;
  try {
    buf = readRegularFile(abs, shown);
  } catch (err) {
    throw new KbError('INVALID_ENTRY', `${shown}:1: ${(err as Error).message.replace(`${shown}: ${abs} is `, 'the note is ')}`, { file: shown, line: 1 });
  }
  if (buf.includes(0)) throw new KbError('INVALID_ENTRY', `${shown}:1: binary content is not a note`, { file: shown, line: 1 });
  const text = toLf(decodeUtf8(buf, shown));
  let data: Record<string, unknown> = {};
  let body = text;
  if (/^---[ \t]*\S*[ \t]*\n/.test(text)) {
    const raw = splitEntry(text, file);
    data = { ...raw.data };
    body = raw.body;
  }
  let title = typeof data.title === 'string' ? data.title.trim() : '';
  if (!title) {
    const m = /^\s*#[ \t]+(.+?)[ \t#]*$/m.exec(body);
    if (m && body.slice(0, m.index).trim() === '') {
      title = m[1]!.trim();
      body = body.slice(m.index + m[0].length).replace(/^\n+/, '');
    }
  }
  // NOTE: the file name is scanned as it is, before `_` becomes a space: a token named file must not hide.
  const nameSecrets = findSecrets(file).map((f) => ({ kind: f.kind, preview: f.preview }));
  if (!title) title = titleFromName(path.basename(shown));
  // A title the note did not give (its heading or file name) is cut to TITLE_MAX; one it gave is judged as written.
  if (typeof data.title !== 'string' || !data.title.trim()) title = clipText(title, TITLE_MAX);
  const folderTags = options.tagsFromFolders ? path.dirname(shown).split('/').filter((s) => s && s !== '.') : [];
  const ownTags = Array.isArray(data.tags) ? data.tags.map(String) : typeof data.tags === 'string' ? data.tags.split(',').map((s) => s.trim()) : [];
  // Tags in written form (src/core/format/tags.ts); one that cannot be mapped is kept as it is and judged below.
  // Inline #tags of the body (not in code, not headings) are tags too, as Obsidian reads them.
  const tags = [...ownTags, ...folderTags, ...inlineTags(body)].map((t) => t.trim()).filter(Boolean).map((t) => {
    const n = normalizeTag(t);
    return 'tag' in n ? n.tag : t;
  });
  const type = options.type ?? (typeof data.type === 'string' && (TYPES as readonly string[]).includes(data.type) ? data.type : 'factual_reference');
  // A vault's own `type` property that is not a git-kb type (`type: ["[[Apps]]"]`: a category, a link) is kept
  // as `vault_type`, links and all, rather than dropped for git-kb's closed `type`.
  const vaultType = data.type !== undefined && data.type !== null && data.type !== type && !(typeof data.type === 'string' && (TYPES as readonly string[]).includes(data.type)) && data.vault_type === undefined ? { vault_type: data.type } : {};
  const fields: Record<string, unknown> = {
    ...data,
    ...vaultType,
    id: typeof data.id === 'string' ? data.id : undefined,
    title,
    type,
    // The title and the note's file name (what its links and the user called it) are aliases: Obsidian's quick
    // switcher finds the entry by them, and relink repairs a later [[Old name]] with them.
    aliases: aliasesWith(data.aliases, [title, path.basename(shown).replace(/\.(md|markdown)$/i, '')]),
    tags: [...new Set(tags)],
    created: createdOf(data) ?? stamp,
    updated: stamp,
  };
  return { file: shown, fields, body, nameSecrets };
}

/** A note's creation date: its `created`, else its `date` (Obsidian's and many templates' field) when it is one. */
function createdOf(data: Record<string, unknown>): string | undefined {
  if (typeof data.created === 'string') return data.created; // judged by the format like any field
  const d = data.date instanceof Date ? data.date.toISOString() : data.date;
  if (typeof d === 'string' && /^\d{4}-\d{2}-\d{2}/.test(d.trim()) && !Number.isNaN(Date.parse(d.trim()))) return d.trim();
  return undefined;
}

/** The file-name key two entries of one title share: the folder by type and the title slug (sessions: the folder). */
function slugKey(rel: string): string {
  const m = /^(entries|hosts\/[^/]+)\/kb-[0-9a-z]+-(.*)\.md$/.exec(rel);
  return m ? `${m[1]}/${m[2]}` : rel.replace(/\/[^/]*$/, '');
}

/**
 * Finds, for a note about to be imported, the existing entry with the same type, title and body. Only files
 * whose name carries the note's title slug are read, so the check costs a few reads, not a repo walk.
 */
function presentFinder(dir: string, existing: Map<string, { path: string }[]>): (fields: Record<string, unknown>, body: string) => string | undefined {
  const byKey = new Map<string, { id: string; path: string }[]>();
  for (const [id, files] of existing) {
    for (const f of files) {
      const k = slugKey(f.path);
      const list = byKey.get(k);
      if (list) list.push({ id, path: f.path });
      else byKey.set(k, [{ id, path: f.path }]);
    }
  }
  // Bodies compare with their links reduced to what a reader sees (./vault.ts linkSkeleton): the entry holds the
  // note's links rewritten to the files this import wrote, the note as it was.
  const norm = (s: string): string => linkSkeleton(stripLinksSection(toLf(s))).replace(/^\n+/, '').trimEnd();
  return (fields, body) => {
    let rel: string;
    try {
      rel = entryPath({ ...(fields as { title: string; type: string; host?: string; created?: string }), id: 'kb-0' });
    } catch {
      return undefined; // an invalid host: the note is refused below, with its line
    }
    for (const c of byKey.get(slugKey(rel)) ?? []) {
      let raw;
      try {
        raw = splitEntry(readEntryText(dir, c.path), c.path);
      } catch {
        continue;
      }
      if (String(raw.data.title ?? '').trim() === fields.title && raw.data.type === fields.type && norm(raw.body) === norm(body)) return c.id;
    }
    return undefined;
  };
}

/** A copied attachment's place in the data repo: `attachments/<name>`, numbered when another file has that name. */
function attachmentPlace(dir: string, name: string, bytes: Buffer, claimed: Set<string>): { path: string; present: boolean } {
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : '';
  for (let n = 1; ; n++) {
    const rel = `attachments/${n === 1 ? name : `${stem}-${n}${ext}`}`;
    if (claimed.has(rel.toLowerCase())) continue;
    const abs = path.join(dir, rel);
    if (!fs.existsSync(abs)) return { path: rel, present: false };
    if (fs.statSync(abs).isFile() && fs.readFileSync(abs).equals(bytes)) return { path: rel, present: true };
  }
}

/** Imports a folder of markdown notes. */
export async function importNotes(options: ImportOptions): Promise<ImportResult> {
  const root = path.resolve(options.source);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new KbError('NOT_FOUND', `import: ${options.source} is not a directory`);
  if (options.type && !(TYPES as readonly string[]).includes(options.type)) throw unknownChoice('type', options.type, TYPES);
  const walked = walk(root);
  const stamp = nowStamp(options.now);
  const { dir } = await repoForWrite(options);
  if (path.resolve(dir).startsWith(root + path.sep) || path.resolve(dir) === root) throw new KbError('USAGE', `import: ${options.source} contains the data repo itself; import from another folder`);
  try {
    return await importLocked(options, root, walked, stamp, dir);
  } finally {
    forgetScans(); // also when the import is refused before the transaction's guard ran
  }
}

/** The import under the write lock (importNotes checked the folder and found the repo). */
async function importLocked(options: ImportOptions, root: string, walked: ReturnType<typeof walk>, stamp: string, dir: string): Promise<ImportResult> {
  const files = walked.notes;
  const v1 = isV1Repo(dir);
  return withWriteLock(dir, async (tx) => {
    const existing = filesById(dir);
    const taken = new Set(existing.keys());
    const findPresent = presentFinder(dir, existing);
    const present: ImportResult['present'] = [];
    const notes: (Note & { id: string; path: string; source: string; text: string })[] = [];
    const problems: Problem[] = [];
    const skipped: ImportResult['skipped'] = walked.passed.map((p) => ({ file: safeName(p.file), reason: p.reason }));
    const redacted: ImportResult['redacted'] = [];
    // Where each vault file went: a note's entry path (imported or present), an attachment's path, or why not.
    const placed = new Map<string, { path: string; note: boolean } | { why: string }>();

    // Attachments first: the notes' embeds are rewritten to where they land.
    const attachments: ImportResult['attachments'] = [];
    const attachmentFiles: PendingFile[] = [];
    const claimed = new Set<string>();
    for (const o of walked.others) {
      const shown = safeName(o.file);
      const ext = /\.([^./]+)$/.exec(o.file)?.[1]?.toLowerCase() ?? '';
      if (!ATTACHMENT_EXT.has(ext)) {
        const why = ext ? `unsupported file type .${ext}: only notes (.md) and attachments (images, audio, video, PDF, Obsidian .base and .canvas) are imported` : 'unsupported file (no extension): only notes (.md) and attachments (images, audio, video, PDF, Obsidian .base and .canvas) are imported';
        skipped.push({ file: shown, reason: why });
        placed.set(o.file, { why: 'not imported (unsupported file type)' });
        continue;
      }
      if (o.size > ATTACHMENT_CAP) {
        const why = `attachment of ${(o.size / 1048576).toFixed(1)} MiB is over the ${ATTACHMENT_CAP / 1048576} MiB cap: not copied`;
        skipped.push({ file: shown, reason: why });
        placed.set(o.file, { why: `not imported (over the ${ATTACHMENT_CAP / 1048576} MiB attachment cap)` });
        continue;
      }
      const bytes = fs.readFileSync(path.join(root, o.file));
      // Secrets: the name always; the content when it is text (an SVG, say), as for notes (spec/secrets.md).
      const found = [...findSecrets(o.file), ...(looksBinary(bytes) ? [] : findSecrets(bytes.toString('utf8')))];
      if (found.length > 0) {
        if (options.redact) {
          const why = `holds secret-shaped content (${[...new Set(found.map((f) => f.kind))].join(', ')}): not copied (--redact does not edit attachments)`;
          skipped.push({ file: shown, reason: why });
          placed.set(o.file, { why: 'not imported (secret-shaped content)' });
        } else {
          for (const f of found) problems.push({ rule: 'secret', message: `secret-shaped content in an attachment (${f.kind}, ${f.preview})`, file: shown, line: f.line });
        }
        continue;
      }
      const place = attachmentPlace(dir, path.basename(o.file), bytes, claimed);
      claimed.add(place.path.toLowerCase());
      placed.set(o.file, { path: place.path, note: false });
      attachments.push({ file: shown, path: place.path, ...(place.present ? { present: true } : {}) });
      if (!place.present) attachmentFiles.push({ path: place.path, content: bytes });
    }

    // Each note's text as it would be written when its links need no rewriting: checked for secrets below, and
    // the same text handed to the transaction, whose guard then finds it scanned already (scan.ts).
    rememberScans(); // until the transaction's guard has scanned the same texts (it forgets them)
    for (const file of files) {
      const shown = safeName(file);
      let note: Note;
      try {
        note = readNote(root, file, shown, options, stamp);
      } catch (err) {
        const e = err as KbError;
        const line = (e.data?.line as number | undefined) ?? 1;
        problems.push({ rule: 'parse', message: messageWithoutPlace(e), file: shown, line });
        placed.set(file, { why: 'not imported (it does not parse)' });
        continue;
      }
      let id = note.fields.id as string | undefined;
      if (!isValidId(id) || taken.has(id)) {
        do id = newId(options.now, Math.random, v1); while (taken.has(id));
      }
      let text: string | undefined;
      if (options.redact) {
        // Fields and body are redacted apart, before formatting: the formatter then quotes a marker value, so
        // a `[REDACTED:kind]` title stays a string (not a YAML list), and the slug is made from the marker. The
        // body stands as it is in the entry as it will be written (when its links need no rewriting, as for most
        // notes): when that scans clean, redacting the body would change nothing (test/secrets.test.ts), and the
        // write's guard finds that scan done.
        const f = redactFields(note.fields);
        text = formatEntry({ ...f.fields, id }, note.body);
        const b = findSecrets(text).length > 0 ? redactSecrets(note.body) : { text: note.body, count: 0, kinds: [] };
        if (b.count > 0) text = undefined;
        const kinds = [...new Set([...note.nameSecrets.map((x) => x.kind), ...f.kinds, ...b.kinds])];
        const count = note.nameSecrets.length + f.count + b.count;
        if (count > 0) redacted.push({ file: note.file, kinds, count });
        note.fields = f.fields;
        note.body = b.text;
        note.nameSecrets = [];
      }
      const already = findPresent(note.fields, note.body);
      if (already) {
        present.push({ file: note.file, id: already });
        const at = existing.get(already)?.[0]?.path;
        if (at) placed.set(file, { path: at, note: true });
        continue;
      }
      taken.add(id);
      note.fields.id = id;
      const rel = entryPath(note.fields as { id: string; title: string; type: string });
      notes.push({ ...note, id, path: rel, source: file, text: text ?? formatEntry(note.fields, note.body) });
    }
    for (const n of notes) {
      // The fields are plain values this module built, so they are judged directly (no YAML round trip).
      const raw = { data: n.fields, body: n.body, frontmatter: '', bodyLine: 1 };
      const found = interpretEntry(raw, n.path, { idExists: (x) => taken.has(x) }).problems.map((p) => ({ ...p, file: n.file, line: undefined }));
      for (const s of [...n.nameSecrets, ...findSecrets(n.text)]) found.push({ rule: 'secret', message: `secret-shaped content (${s.kind}, ${s.preview})`, file: n.file, line: undefined });
      problems.push(...found);
    }
    let keep = notes;
    if (problems.length > 0) {
      if (!options.skipInvalid || problems.some((p) => p.rule === 'secret')) {
        const secret = problems.some((p) => p.rule === 'secret');
        throw new KbError(secret ? 'SECRET_DETECTED' : 'INVALID_ENTRY', `import refused, nothing written (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${formatProblems(problems)}${secret ? '\n(--redact imports them with each secret replaced by a [REDACTED:kind] marker)' : '\n(--skip-invalid imports the rest)'}`, { problems });
      }
      const bad = new Set(problems.map((p) => p.file));
      for (const p of problems) skipped.push({ file: p.file!, reason: p.message });
      keep = notes.filter((n) => !bad.has(n.file));
      for (const n of notes) if (bad.has(n.file)) placed.set(n.source, { why: 'not imported (invalid; see skipped)' });
    }
    for (const n of keep) placed.set(n.source, { path: n.path, note: true });

    // Links: the vault's wikilinks and embeds to the files written here, then entry links and the Links section
    // in the form Obsidian follows (./links.ts).
    const vaultFiles = [...files, ...walked.others.map((o) => o.file)];
    const resolve = vaultResolver(vaultFiles);
    const fileSet = new Set(vaultFiles);
    const targetFor = (vaultPath: string): { target: string; note: boolean; path: string } | { why: string } => {
      const p = placed.get(vaultPath);
      if (!p) return { why: 'not imported' };
      if ('why' in p) return p;
      return p.note ? { target: linkName(p.path), note: true, path: p.path } : { target: p.path, note: false, path: p.path };
    };
    const newPaths = new Map(keep.map((n) => [n.id, n.path]));
    const known = pathLookup(existing);
    const pathOf = (id: string): string | undefined => newPaths.get(id) ?? known(id);
    const newTitles = new Map(keep.map((n) => [n.id, n.fields.title as string]));
    const knownTitle = titleLookup(dir, known);
    const unresolved: ImportResult['unresolved'] = [];
    const texts = keep.map((n) => {
      const wiki = rewriteVaultLinks(n.body, n.source, resolve, targetFor);
      const md = rewriteMarkdownLinks(wiki.text, n.source, path.posix.dirname(n.path), resolve, fileSet, targetFor);
      // Links in front matter values (Obsidian's properties) are rewritten as in the body.
      const fieldLeft: LeftLink[] = [];
      const own = rewriteFieldLinks(n.fields, (t) => {
        const r = rewriteVaultLinks(t, n.source, resolve, targetFor);
        fieldLeft.push(...r.left.map((l) => ({ ...l, line: 1 })));
        return r.text;
      });
      for (const l of [...fieldLeft, ...wiki.left, ...md.left].sort((a, b) => a.line - b.line)) unresolved.push({ file: n.file, line: l.line, link: l.link, reason: l.reason });
      const links = Array.isArray(n.fields.links) ? (n.fields.links as { rel: string; to: string }[]) : [];
      const body = writtenBody(md.text, links, pathOf, { titleOf: (id) => newTitles.get(id) ?? knownTitle(id) });
      return body === n.body && own.changed.length === 0 ? n.text : formatEntry(own.fields, body);
    });
    const ignore = walked.vault ? gitignoreUpdate(dir) : undefined;
    const result = { skipped, attachments, unresolved, present, redacted };
    if (keep.length === 0 && attachmentFiles.length === 0) return { imported: 0, ids: [], entries: [], ...result };
    await refuseForbidden(dir, keep.map((n, i) => ({ text: texts[i]!, where: n.file, host: typeof n.fields.host === 'string' ? n.fields.host : undefined })));
    const pending: PendingFile[] = [...keep.map((n, i) => ({ path: n.path, content: texts[i]! })), ...attachmentFiles, ...(ignore ? [ignore] : [])];
    const what = [`${keep.length} notes`, ...(attachmentFiles.length ? [`${attachmentFiles.length} attachment${attachmentFiles.length === 1 ? '' : 's'}`] : [])].join(' and ');
    const commit = await tx.commit(pending, `import ${what} from ${path.basename(root)}`, {
      bulk: true,
      onProgress: (done) => options.onProgress?.(done, pending.length),
    });
    return { imported: keep.length, commit, ids: keep.map((n) => n.id), entries: keep.map((n) => ({ id: n.id, path: n.path, source: n.file })), ...result };
  }, { identity: options.settings });
}
