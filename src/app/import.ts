/**
 * Contract: `import DIR` turns a folder of markdown notes into entries in ONE commit. Every note is checked
 * (format, secrets) before anything is written: one bad note refuses the whole import, listing every problem
 * with file and line, unless `skipInvalid` is set. Blobs and trees are written directly (no index walk).
 * A note already in the repo (an entry of the same type, title and body) is not imported again: rerunning an
 * import, finished or killed at any point, gives each note exactly once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { entryPath, formatEntry, interpretEntry, isValidId, newId, splitEntry, titleSlug, TYPES, type Problem } from '../core/format/entry.js';
import { formatProblems, KbError } from '../core/errors.js';
import { findSecrets, redactSecrets } from '../core/secrets/scan.js';
import { redactFields, safeName } from '../core/secrets/guard.js';
import { normalizeTag } from '../core/format/tags.js';
import { decodeUtf8 } from '../core/text/utf8.js';
import { filesById } from './find.js';
import { nowStamp } from './fields.js';
import { repoForWrite, type RepoOptions } from './repo.js';
import { refuseForbidden } from './guard.js';
import { withWriteLock, type PendingFile } from '../adapters/write/transaction.js';

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

export interface ImportResult {
  imported: number;
  skipped: { file: string; reason: string }[];
  commit?: string;
  ids: string[];
  /** Each imported note: its new id and path, and the file it came from (relative to DIR). */
  entries: { id: string; path: string; source: string }[];
  /** Notes already in the repo (same type, title and body): not imported again. */
  present: { file: string; id: string }[];
  redacted: { file: string; kinds: string[]; count: number }[];
}

function walk(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (d.name.startsWith('.') || d.name === 'node_modules') continue;
    const p = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...walk(root, p));
    else if (d.isFile() && /\.(md|markdown)$/i.test(d.name)) out.push(p);
  }
  return out;
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
  const buf = fs.readFileSync(path.join(root, file));
  if (buf.includes(0)) throw new KbError('INVALID_ENTRY', `${shown}:1: binary content is not a note`, { file: shown, line: 1 });
  const text = decodeUtf8(buf, shown).replace(/\r\n?/g, '\n');
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
  const folderTags = options.tagsFromFolders ? path.dirname(shown).split('/').filter((s) => s && s !== '.') : [];
  const ownTags = Array.isArray(data.tags) ? data.tags.map(String) : typeof data.tags === 'string' ? data.tags.split(',').map((s) => s.trim()) : [];
  // Tags in written form (src/core/format/tags.ts); one that cannot be mapped is kept as it is and judged below.
  const tags = [...ownTags, ...folderTags].map((t) => t.trim()).filter(Boolean).map((t) => {
    const n = normalizeTag(t);
    return 'tag' in n ? n.tag : t;
  });
  const type = options.type ?? (typeof data.type === 'string' && (TYPES as readonly string[]).includes(data.type) ? data.type : 'factual_reference');
  const fields: Record<string, unknown> = {
    ...data,
    id: typeof data.id === 'string' ? data.id : undefined,
    title,
    type,
    tags: [...new Set(tags)],
    created: typeof data.created === 'string' ? data.created : stamp,
    updated: stamp,
  };
  return { file: shown, fields, body, nameSecrets };
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
  const norm = (s: string): string => s.replace(/\r\n?/g, '\n').replace(/^\n+/, '').replace(/\s+$/, '');
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
        raw = splitEntry(fs.readFileSync(path.join(dir, c.path), 'utf8'), c.path);
      } catch {
        continue;
      }
      if (String(raw.data.title ?? '').trim() === fields.title && raw.data.type === fields.type && norm(raw.body) === norm(body)) return c.id;
    }
    return undefined;
  };
}

/** Imports a folder of markdown notes. */
export async function importNotes(options: ImportOptions): Promise<ImportResult> {
  const root = path.resolve(options.source);
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new KbError('NOT_FOUND', `import: ${options.source} is not a directory`);
  if (options.type && !(TYPES as readonly string[]).includes(options.type)) throw new KbError('USAGE', `unknown type "${options.type}"; one of: ${TYPES.join(', ')}`);
  const files = walk(root).sort();
  const stamp = nowStamp(options.now);
  const { dir } = await repoForWrite(options);
  if (path.resolve(dir).startsWith(root + path.sep) || path.resolve(dir) === root) throw new KbError('USAGE', `import: ${options.source} contains the data repo itself; import from another folder`);
  return withWriteLock(dir, async (tx) => {
    const existing = filesById(dir);
    const taken = new Set(existing.keys());
    const findPresent = presentFinder(dir, existing);
    const present: ImportResult['present'] = [];
    const notes: (Note & { id: string; path: string; text: string })[] = [];
    const problems: Problem[] = [];
    const skipped: ImportResult['skipped'] = [];
    const redacted: ImportResult['redacted'] = [];
    for (const file of files) {
      const shown = safeName(file);
      let note: Note;
      try {
        note = readNote(root, file, shown, options, stamp);
      } catch (err) {
        const e = err as KbError;
        const line = (e.data?.line as number | undefined) ?? 1;
        problems.push({ rule: 'parse', message: e.message.replace(/^[^:]+:\d+: /, ''), file: shown, line });
        continue;
      }
      if (options.redact) {
        // Fields and body are redacted apart, before formatting: the formatter then quotes a marker value, so
        // a `[REDACTED:kind]` title stays a string (not a YAML list), and the slug is made from the marker.
        const f = redactFields(note.fields);
        const b = redactSecrets(note.body);
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
        continue;
      }
      let id = note.fields.id as string | undefined;
      if (!isValidId(id) || taken.has(id)) {
        do id = newId(options.now); while (taken.has(id));
      }
      taken.add(id);
      note.fields.id = id;
      const rel = entryPath(note.fields as { id: string; title: string; type: string });
      const text = formatEntry(note.fields, note.body);
      notes.push({ ...note, id, path: rel, text });
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
    }
    if (keep.length === 0) return { imported: 0, skipped, ids: [], entries: [], present, redacted };
    await refuseForbidden(dir, keep.map((n) => ({ text: n.text, where: n.file, host: typeof n.fields.host === 'string' ? n.fields.host : undefined })));
    const pending: PendingFile[] = keep.map((n) => ({ path: n.path, content: n.text }));
    const commit = await tx.commit(pending, `import ${keep.length} notes from ${path.basename(root)}`, {
      bulk: true,
      onProgress: (done) => options.onProgress?.(done, pending.length),
    });
    return { imported: keep.length, skipped, commit, ids: keep.map((n) => n.id), entries: keep.map((n) => ({ id: n.id, path: n.path, source: n.file })), present, redacted };
  }, { identity: options.settings });
}
