/**
 * Contract: `delete` removes entries in one commit. Every other entry that links to one of them (a `links:`
 * edge or a link in its body, as the entry format reads them) would be left with a dangling link, so the delete
 * is refused (CONFLICT, listing each linking file and line) unless `force`, which deletes anyway and reports the
 * links it leaves dangling. Links between the deleted entries themselves do not count.
 */
import { KbError } from '../core/errors.js';
import { parseEntry, type Problem } from '../core/format/entry.js';
import { listEntryFiles, readEntryText } from '../adapters/store/layout.js';
import { withWriteLock } from '../adapters/write/transaction.js';
import { filesById, findEntryFile } from './find.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface DeleteOptions extends RepoOptions {
  ids: string[];
  force?: boolean;
}

/** A link another entry holds to a deleted one. */
export interface DanglingLink {
  /** The linking entry (its file name's id) and where the link is. */
  from: string;
  file: string;
  line: number;
  to: string;
}

export interface DeleteResult {
  deleted: { id: string; path: string }[];
  commit: string;
  /** The links left dangling (only with force; without it, any makes the delete fail). */
  dangling: DanglingLink[];
}

/** Links from entries outside `gone` to entries in it, by re-checking each entry as if `gone` did not exist. */
export function linksInto(dir: string, gone: Set<string>, exists: (id: string) => boolean): DanglingLink[] {
  const out: DanglingLink[] = [];
  for (const f of listEntryFiles(dir, { withStat: false })) {
    if (gone.has(f.id)) continue;
    let text: string;
    try {
      text = readEntryText(dir, f.path);
    } catch {
      continue; // unreadable: lint reports it; it links to nothing
    }
    // NOTE: a link must name the id somewhere, so most files are passed over without parsing.
    if (![...gone].some((id) => text.includes(id))) continue;
    const hit = new Set<string>();
    const before = parseEntry(text, f.path, { idExists: exists }).problems;
    const after = parseEntry(text, f.path, {
      idExists: (id) => {
        if (gone.has(id)) {
          hit.add(id);
          return false;
        }
        return exists(id);
      },
    }).problems;
    if (hit.size === 0) continue;
    const key = (p: Problem): string => `${p.rule}\0${p.line}\0${p.message}`;
    const old = new Set(before.map(key));
    const fresh = after.filter((p) => p.rule === 'link-dangling' && !old.has(key(p)));
    for (const to of hit) {
      const lines = fresh.filter((p) => p.message.includes(to)).map((p) => p.line ?? 1);
      for (const line of lines.length ? [...new Set(lines)] : [1]) out.push({ from: f.id, file: f.path, line, to });
    }
  }
  return out;
}

/** Deletes entries (one commit). */
export async function deleteEntries(options: DeleteOptions): Promise<DeleteResult> {
  if (options.ids.length === 0) throw new KbError('USAGE', 'delete needs at least one id');
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const index = filesById(dir);
    const files = [...new Set(options.ids)].map((id) => ({ id, path: findEntryFile(dir, id, index).path }));
    const gone = new Set(files.map((f) => f.id));
    const dangling = linksInto(dir, gone, (id) => index.has(id));
    if (dangling.length && !options.force) {
      const list = dangling.map((d) => `${d.file}:${d.line}: links to ${d.to}`).join('\n');
      throw new KbError(
        'CONFLICT',
        `refusing to delete ${files.map((f) => f.id).join(', ')}: ${dangling.length} link${dangling.length === 1 ? '' : 's'} from other entries would dangle:\n${list}\nremove them first (git-kb edit ID --unlink ID, or edit the body), or pass --force to delete anyway; nothing written`,
        { links: dangling },
      );
    }
    const message = files.length === 1 ? `delete ${files[0]!.id}` : `delete ${files.length} entries: ${files.map((f) => f.id).join(', ')}`;
    const commit = await tx.commit(files.map((f) => ({ path: f.path, content: null })), message);
    return { deleted: files, commit, dangling };
  }, { identity: options.settings });
}
