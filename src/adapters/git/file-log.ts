/**
 * Contract: the history of one file, as `git log -- PATH` gives it (default history simplification), read with
 * the native object reader. Commits are walked newest first by committer time; a commit is listed when the file's
 * blob differs from its parent's (a root commit, when it has the file); a merge that has the file as one of its
 * parents has it follows that parent only, as git does. NOTE: isomorphic-git's `log({ filepath })` parses every
 * commit's trees whole: 10 s for an entry of a 3,000-commit repo whose entries/ folder grows by one file per commit,
 * where git takes 0.2 s. Here a folder's tree is searched as bytes for the one name, once per version of it.
 */
import { rawFilesNamed } from './encoding.js';
import { headOid, type HistoryItem } from './git.js';
import type { ObjectReader } from './reader.js';
import { walkNewestFirst } from './walk.js';

/** The blob id at `name` in a raw tree, or null. */
export function blobIn(raw: Buffer, name: string): string | null {
  for (const e of rawFilesNamed(raw, name)) if (e.name === name) return e.oid;
  return null;
}

/**
 * The commits that changed `filepath`, newest first, from HEAD (or from commit `ref`: a deleted file's history
 * starts at the last commit that had it), at most `limit`.
 */
export async function fileHistory(dir: string, filepath: string, limit = 200, ref?: string): Promise<HistoryItem[]> {
  const start = ref ?? (await headOid(dir));
  if (!start) return [];
  const parts = filepath.split('/');
  const name = parts.pop()!;
  // The blob at the path for each version of its folder (a folder unchanged between commits is searched once).
  const inFolder = new Map<string, string | null>();
  const blobOf = async (reader: ObjectReader, commit: string): Promise<string | null> => {
    let tree: string | undefined = (await reader.commit(commit)).tree;
    for (const p of parts) {
      const e: { type: string; oid: string } | undefined = (await reader.tree(tree)).get(p);
      tree = e?.type === 'tree' ? e.oid : undefined;
      if (!tree) return null;
    }
    let hit = inFolder.get(tree);
    if (hit === undefined) {
      const { type, data } = await reader.read(tree);
      hit = type === 'tree' ? blobIn(data, name) : null;
      inFolder.set(tree, hit);
    }
    return hit;
  };
  const out: HistoryItem[] = [];
  await walkNewestFirst(dir, start, async (reader, oid, { parents }) => {
    const blob = await blobOf(reader, oid);
    let follow = parents;
    let changed = blob !== null;
    if (parents.length > 0) {
      const theirs = await Promise.all(parents.map((p) => blobOf(reader, p)));
      const same = theirs.indexOf(blob);
      changed = same === -1;
      // A merge with the file as one parent has it follows that parent only (git's history simplification).
      if (!changed) follow = [parents[same]!];
    }
    if (changed) out.push(await commitItem(reader, oid));
    return out.length >= limit ? 'stop' : follow;
  });
  return out;
}

/** One commit as a history line, from its raw text: author, author date (UTC, ISO) and the trimmed message. */
export async function commitItem(reader: ObjectReader, oid: string): Promise<HistoryItem> {
  const { data } = await reader.read(oid);
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const head = split === -1 ? text : text.slice(0, split);
  const author = /^author (.*) <([^>]*)> (\d+) [+-]\d{4}$/m.exec(head);
  return {
    commit: oid,
    date: new Date(Number(author?.[3] ?? 0) * 1000).toISOString(),
    author: author ? `${author[1]} <${author[2]}>` : '',
    message: (split === -1 ? '' : text.slice(split + 2)).trim(),
  };
}
