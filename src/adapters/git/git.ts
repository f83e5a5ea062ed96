/**
 * Contract: the repository as isomorphic-git sees it: creating one, its refs and remotes, writing a commit
 * object, and reading history. The git adapter folder (src/adapters/git) is the only importer of isomorphic-git,
 * and every module of it hands isomorphic-git `gfs`, an fs whose writes are atomic, so a killed process never
 * leaves a torn object, ref or index. Every commit is an ordinary git commit that plain git reads (`git log`,
 * `git fsck`).
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { atomicFs, writeFileAtomic } from '../store/fsutil.js';
import { headSymbolicRef } from '../store/layout.js';
import { writeLooseObject } from './objects.js';
import { OID, readRef } from './refs.js';
import type { Author } from './author.js';

/** The atomic fs every git-layer module hands to isomorphic-git. */
export const gfs = atomicFs;

// NOTE: isomorphic-git (de)compresses through the web CompressionStream/DecompressionStream when the runtime has
// them. In Node, touching those globals loads the whole fetch and web-streams stack (about 12 ms of a 150 ms add)
// to squeeze objects of a few hundred bytes. Hidden, isomorphic-git falls back to its own pako; the bulk paths
// (packs, big trees) use node:zlib directly anyway.
for (const name of ['CompressionStream', 'DecompressionStream']) {
  Object.defineProperty(globalThis, name, { value: undefined, configurable: true, writable: true });
}

/**
 * isomorphic-git, loaded when first needed. NOTE: the commit path of every write (HEAD, the commit object, the
 * branch) is native below, so `add` and `edit` never load it (about 10 ms of a 200 ms add).
 */
export async function iso(): Promise<typeof import('isomorphic-git')> {
  const m = await import('isomorphic-git');
  // NOTE: bundled, the package is CommonJS and its functions sit on the default export.
  return ((m as unknown as { default?: typeof m }).default ?? m) as typeof m;
}

/**
 * The branch git-kb creates and syncs: every repo it makes starts on it, a clone of an empty remote is put on it,
 * and a clone of a remote whose HEAD names no branch prefers it (spec/sync.md, "Setting up").
 */
export const KB_BRANCH = 'main';

/** Creates a git repository with `main` (KB_BRANCH) as its first branch. */
export async function initRepo(dir: string): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  await (await iso()).init({ fs: gfs, dir, defaultBranch: KB_BRANCH });
  await matchCaseConfig(dir);
}

/**
 * Sets `core.ignorecase` as git's own init and clone do, from the file system: isomorphic-git writes `true`
 * everywhere, and git on Linux would then take `Foo.md` and `foo.md` for one file.
 */
export async function matchCaseConfig(dir: string): Promise<void> {
  const insensitive = fs.existsSync(path.join(dir, '.git', 'head')); // HEAD is there in capitals
  await (await iso()).setConfig({ fs: gfs, dir, path: 'core.ignorecase', value: insensitive });
}

/** The ref HEAD points at (refs/heads/main), or undefined for a detached HEAD. */
export function headRef(dir: string): string | undefined {
  return headSymbolicRef(dir);
}

/**
 * Points HEAD at another branch name, for a repo whose branch has no commit yet (git's `symbolic-ref HEAD`): no
 * commit, index or working file changes. Refuses a name git would not take.
 */
export function setHeadBranch(dir: string, branch: string): void {
  if (!/^[A-Za-z0-9._/-]+$/.test(branch) || branch.includes('..') || branch.includes('//') || /^[/.]|[/.]$|\.lock$|(^|\/)\./.test(branch)) {
    throw new Error(`setHeadBranch: refusing branch name ${JSON.stringify(branch)}`);
  }
  writeFileAtomic(path.join(dir, '.git', 'HEAD'), `ref: refs/heads/${branch}\n`, { fsync: false });
}

/**
 * The git operations a commit must not land in the middle of, by the file git keeps while one waits on the user:
 * a commit then would go under the merge (or pick, revert, patch series) that git finishes later, and a plain
 * `git commit` refuses a partial commit there too. A rebase with a detached HEAD is refused as detached already.
 */
const IN_PROGRESS: [file: string, what: string, fix: string][] = [
  ['MERGE_HEAD', 'a git merge', 'git commit, or git merge --abort'],
  ['CHERRY_PICK_HEAD', 'a git cherry-pick', 'git cherry-pick --continue, or --abort'],
  ['REVERT_HEAD', 'a git revert', 'git revert --continue, or --abort'],
  ['rebase-merge', 'a git rebase', 'git rebase --continue, or --abort'],
  ['rebase-apply', 'a git rebase or am', 'git rebase --continue or git am --continue, or --abort'],
];

/**
 * The branch HEAD points at, failing with CONFLICT on a detached HEAD or while git waits on the user to finish a
 * merge, cherry-pick, revert, rebase or am (`what`: the verb that needs a branch).
 */
export function currentBranch(dir: string, what: string): string {
  const ref = headRef(dir);
  if (!ref || !ref.startsWith('refs/heads/')) throw new KbError('CONFLICT', `${dir} has a detached HEAD; check out a branch (git checkout main) before ${what}`);
  for (const [file, op, fix] of IN_PROGRESS) {
    if (fs.existsSync(path.join(dir, '.git', file))) throw new KbError('CONFLICT', `${dir} is in the middle of ${op}; finish it (${fix}) before ${what}`);
  }
  return ref;
}

async function resolveRef(dir: string, ref: string): Promise<string | undefined> {
  if (ref === 'HEAD' || ref.startsWith('refs/')) return readRef(dir, ref);
  try {
    return await (await iso()).resolveRef({ fs: gfs, dir, ref });
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFoundError') return undefined;
    throw err;
  }
}

/** The commit HEAD points at, or undefined in a repo with no commits yet. */
export function headOid(dir: string): Promise<string | undefined> {
  return resolveRef(dir, 'HEAD');
}

/** The commit a ref points at, or undefined when the ref does not exist or cannot be read. */
export function refOid(dir: string, ref: string): Promise<string | undefined> {
  return resolveRef(dir, ref).catch(() => undefined);
}

/** Points a ref at a commit (created or moved). */
export async function setRef(dir: string, ref: string, value: string): Promise<void> {
  if (!/^refs\/[A-Za-z0-9._/-]+$/.test(ref) || ref.includes('..') || ref.endsWith('/') || ref.endsWith('.lock') || !OID.test(value)) {
    throw new Error(`setRef: refusing ref ${JSON.stringify(ref)} -> ${JSON.stringify(value)}`);
  }
  writeFileAtomic(`${dir}/.git/${ref}`, `${value}\n`, { fsync: false });
}

/** The configured URL of remote `origin`, if any. */
export async function remoteUrl(dir: string, remote = 'origin'): Promise<string | undefined> {
  return ((await (await iso()).getConfig({ fs: gfs, dir, path: `remote.${remote}.url` })) as string | undefined) ?? undefined;
}

/** Sets the URL of remote `origin`. */
export async function setRemote(dir: string, url: string, remote = 'origin'): Promise<void> {
  const git = await iso();
  await git.setConfig({ fs: gfs, dir, path: `remote.${remote}.url`, value: url });
  await git.setConfig({ fs: gfs, dir, path: `remote.${remote}.fetch`, value: `+refs/heads/*:refs/remotes/${remote}/*` });
}

/** A time zone as git writes it: JS's getTimezoneOffset minutes (west positive) as `+hhmm` east of UTC. */
function tzOf(offsetMinutes: number): string {
  const m = Math.abs(offsetMinutes);
  const sign = offsetMinutes > 0 ? '-' : '+';
  return `${sign}${String(Math.floor(m / 60)).padStart(2, '0')}${String(m % 60).padStart(2, '0')}`;
}

/**
 * A commit object's text, byte for byte as isomorphic-git writes it (test/git-native.test.ts compares the two):
 * tree, parents, author and committer alike, a blank line, the message with CRs dropped, no leading newlines and
 * one final newline.
 */
export function commitText(c: { tree: string; parents: string[]; author: Author & { timestamp: number; timezoneOffset: number }; message: string }): string {
  const who = `${c.author.name} <${c.author.email}> ${c.author.timestamp} ${tzOf(c.author.timezoneOffset)}`;
  const message = `${c.message.replace(/\r/g, '').replace(/^\n+/, '').replace(/\n+$/, '')}\n`;
  return `tree ${c.tree}\n${c.parents.map((p) => `parent ${p}\n`).join('')}author ${who}\ncommitter ${who}\n\n${message}`;
}

/** Writes a commit object (author and committer alike, stamped `now`) without moving any ref; returns its id. */
export function writeCommit(options: { dir: string; tree: string; parents: string[]; message: string; author: Author; now?: Date }): Promise<string> {
  const when = options.now ?? new Date();
  const stamp = { ...options.author, timestamp: Math.floor(when.getTime() / 1000), timezoneOffset: when.getTimezoneOffset() };
  return Promise.resolve(writeLooseObject(options.dir, 'commit', Buffer.from(commitText({ tree: options.tree, parents: options.parents, author: stamp, message: options.message }), 'utf8')));
}

/** One commit in an entry's history. */
export interface HistoryItem {
  commit: string;
  date: string;
  author: string;
  message: string;
}

/**
 * The full object id of a revision: a commit id, short id, branch or tag, followed by any of git's ancestry
 * suffixes, chained left to right: `~N` (N first parents back; `~` is `~1`), `^N` (the N-th parent; `^` is `^1`,
 * `^0` the commit itself), so `HEAD~1`, `HEAD^`, `main~2^2~1`. NOT_FOUND (naming the revision) when the name
 * does not resolve or a step walks past the first commit or asks for a parent the commit does not have.
 */
export async function resolveRevision(dir: string, rev: string): Promise<string> {
  const notFound = (why?: string): KbError => new KbError('NOT_FOUND', `revision "${rev}" not found in the data repo${why ? ` (${why})` : ''}`);
  const cut = rev.search(/[~^]/);
  const base = cut === -1 ? rev : rev.slice(0, cut);
  const suffix = cut === -1 ? '' : rev.slice(cut);
  // NOTE: git forbids `~` and `^` in ref names, so everything from the first one on is ancestry.
  if (!base || !/^(?:[~^]\d*)*$/.test(suffix)) throw notFound();
  const git = await iso();
  let oid: string;
  try {
    oid = /^[0-9a-f]{4,40}$/.test(base) ? await git.expandOid({ fs: gfs, dir, oid: base }) : await git.resolveRef({ fs: gfs, dir, ref: base });
  } catch {
    throw notFound();
  }
  if (!suffix) return oid;
  let walked = base;
  // NOTE: one cache for the whole walk: isomorphic-git keeps a pack's index there, read once, not once per step.
  const cache = {};
  for (const [, op, digits] of suffix.matchAll(/([~^])(\d*)/g)) {
    const n = digits === '' ? 1 : Number(digits);
    if (!Number.isSafeInteger(n)) throw notFound();
    let parents: string[];
    try {
      // NOTE: readCommit peels an annotated tag to its commit.
      const c = await git.readCommit({ fs: gfs, dir, oid, cache });
      oid = c.oid;
      parents = c.commit.parent;
    } catch {
      throw notFound(`${walked} is not a commit`);
    }
    if (op === '^') {
      if (n > 0) {
        if (n > parents.length) throw notFound(parents.length === 0 ? `${walked} is the first commit: it has no parent` : `${walked} has ${parents.length} parent${parents.length === 1 ? '' : 's'}, not ${n}`);
        oid = parents[n - 1]!;
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (parents.length === 0) throw notFound(`it walks past the first commit: ${walked}${i > 0 ? `~${i}` : ''} has no parent`);
        oid = parents[0]!;
        if (i + 1 < n) parents = (await git.readCommit({ fs: gfs, dir, oid, cache })).commit.parent;
      }
    }
    walked += `${op}${digits}`;
  }
  return oid;
}

/** The content of `filepath` at a revision (commit id, short id, branch or tag), or undefined if absent there. */
export async function readFileAt(dir: string, rev: string, filepath: string): Promise<Buffer | undefined> {
  const oid = await resolveRevision(dir, rev);
  try {
    const { blob } = await (await iso()).readBlob({ fs: gfs, dir, oid, filepath });
    return Buffer.from(blob);
  } catch (err) {
    if ((err as { code?: string }).code === 'NotFoundError') return undefined;
    throw err;
  }
}
