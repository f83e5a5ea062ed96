/**
 * Contract: `adopt` turns markdown notes that are not entries yet (a note made in Obsidian: `entries/Untitled.md`,
 * no front matter, or front matter without an id) into entries in place, in one commit: a new id; the title from
 * the note's `title`, else its first `# ` heading, else its file name; the type from `type` (the flag), else the
 * note's own valid `type`, else `factual_reference`; its other fields and its body kept as written (tags in
 * written form); `created` and `updated` set when absent. Each file is renamed to its canonical path
 * (`entries/<id>-<slug>.md`). Everything is validated first (secrets, format, links); any failure adopts
 * nothing. A file git tracks is deleted in the same commit; an untracked one is removed once the commit has
 * landed, so a kill in between leaves both files and never neither.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../core/errors.js';
import { entryPath, formatEntry, newId, splitEntry } from '../core/format/entry.js';
import { idFromFileName, TYPES } from '../core/format/schema.js';
import { readFileAt } from '../adapters/git/git.js';
import { gitignoreUpdate } from '../adapters/store/gitignore.js';
import { entryFolderNames, readEntryText, safeJoin } from '../adapters/store/layout.js';
import { refuseSecretInputs, refuseSecrets, withWriteLock, type PendingFile } from '../adapters/write/transaction.js';
import { idSet } from './find.js';
import { nowStamp, oneLineTitle, tagList, validateEntryText } from './fields.js';
import { refuseForbidden } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface AdoptOptions extends RepoOptions {
  /** Files to adopt: absolute, or relative to the data repo. None: every note in an entry folder whose name has no id. */
  paths?: string[];
  type?: string;
  now?: Date;
}

export interface AdoptResult {
  adopted: { from: string; id: string; path: string; title: string; type: string }[];
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

/** Adopts notes as entries (one commit). */
export async function adoptNotes(options: AdoptOptions): Promise<AdoptResult> {
  if (options.type !== undefined && !(TYPES as readonly string[]).includes(options.type)) throw new KbError('USAGE', `unknown --type "${options.type}"; one of: ${TYPES.join(', ')}`);
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const rels = [...new Set(options.paths?.length ? options.paths.map((p) => relPath(dir, p)) : candidates(dir))];
    if (rels.length === 0) return { adopted: [] };
    const ids = idSet(dir);
    const stamp = nowStamp(options.now);
    const notes = rels.map((rel) => {
      // The file name and the note as they are, before a title, tags (lower-cased) or a slug are made of them.
      refuseSecretInputs({ 'the file name': rel });
      const text = readEntryText(dir, rel);
      refuseSecrets(text, rel);
      let data: Record<string, unknown> = {};
      let body = text.replace(/^\uFEFF/, '');
      if (/^---[ \t]*\r?\n/.test(body)) {
        const raw = splitEntry(body, rel);
        data = { ...raw.data };
        body = raw.body;
      }
      if (data.id !== undefined) throw new KbError('USAGE', `${rel} already has an id (${String(data.id)}): it is an entry, not a note to adopt ("git-kb lint" says what is wrong with it)`, { file: rel });
      const heading = /^#[ \t]+(.+?)[ \t#]*$/m.exec(body)?.[1];
      const title = oneLineTitle(typeof data.title === 'string' && data.title.trim() ? data.title : heading?.trim() || path.basename(rel).replace(/\.(md|markdown)$/i, ''));
      const own = typeof data.type === 'string' && (TYPES as readonly string[]).includes(data.type) ? data.type : undefined;
      const type = options.type ?? own ?? 'factual_reference';
      let id = newId(options.now);
      while (ids.has(id)) id = newId(options.now);
      ids.add(id);
      const tags = tagList(Array.isArray(data.tags) ? data.tags.map(String) : typeof data.tags === 'string' ? data.tags : undefined);
      const fields: Record<string, unknown> = { ...data, id, title, type, tags, created: data.created ?? stamp, updated: stamp };
      const content = formatEntry(fields, body);
      const to = entryPath(fields as { id: string; title: string; type: string; host?: string; created?: string });
      return { from: rel, id, title, type, to, content, host: typeof data.host === 'string' ? data.host : undefined };
    });
    for (const n of notes) refuseSecrets(n.content, n.to);
    for (const n of notes) validateEntryText(n.content, n.to, (x) => ids.has(x));
    await refuseForbidden(dir, notes.map((n) => ({ text: n.content, where: n.to, host: n.host })));
    const files: PendingFile[] = notes.map((n) => ({ path: n.to, content: n.content }));
    const untracked: string[] = [];
    for (const n of notes) {
      if (await readFileAt(dir, 'HEAD', n.from).catch(() => undefined)) files.push({ path: n.from, content: null });
      else untracked.push(n.from);
    }
    const ignore = fs.existsSync(path.join(dir, '.obsidian')) ? gitignoreUpdate(dir) : undefined;
    if (ignore) files.push(ignore);
    const outside = notes.some((n) => !/^(entries|hosts|sessions)\//.test(n.from));
    const message = notes.length === 1 ? `adopt ${notes[0]!.id}: ${notes[0]!.title} (was ${notes[0]!.from})` : `adopt ${notes.length} notes as entries`;
    const commit = await tx.commit(files, message, { anyPath: outside });
    for (const u of untracked) fs.rmSync(safeJoin(dir, u), { force: true });
    return { adopted: notes.map((n) => ({ from: n.from, id: n.id, path: n.to, title: n.title, type: n.type })), commit };
  }, { identity: options.settings });
}
