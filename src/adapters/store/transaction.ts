/**
 * Contract: every write to the data repo goes through `writeEntries`: under the cross-process lock, with a
 * journal naming the paths, files written atomically, then one commit. A process killed at any point leaves
 * either no trace or a journal that the next writer rolls forward (commits what was fully written), so the repo
 * is always valid and the next write needs no manual help.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { writeFileAtomic } from './fsutil.js';
import { blobOid, commitChanges, headFiles, initRepo, isRepo, readBlobById } from '../git/git.js';
import { updateIndexFile } from '../git/index-file.js';
import { noteCommit } from './commit-events.js';
import { findSecrets } from '../../core/secrets/scan.js';
import { ENTRY_ROOTS, lockDataRepo, requireDataRepo, safeJoin, stateDir } from './layout.js';

/** One file to write (content) or delete (null), relative to the data repo. */
export interface PendingFile {
  path: string;
  content: string | null;
}

interface Journal {
  paths: string[];
  message: string;
}

function journalFile(dir: string): string {
  return path.join(stateDir(dir), 'journal.json');
}

/** Creates the data repo with its manifest when it does not exist yet (the embedded default, on first write). */
export async function ensureDataRepo(dir: string): Promise<boolean> {
  if (isRepo(dir)) {
    requireDataRepo(dir);
    return false;
  }
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    throw new KbError('NO_DATA_REPO', `${dir} exists and is not a git repository; choose another --data directory or run "git -C ${dir} init"`, { dir });
  }
  await initRepo(dir);
  await writeManifest(dir, 'git-kb: create data repo');
  return true;
}

/** Writes and commits kb.json (a new repo, or a git repo adopted by `init`). */
export async function writeManifest(dir: string, message: string): Promise<void> {
  const manifest = `${JSON.stringify({ schema_version: 2, created_by: 'git-kb' }, null, 2)}\n`;
  await withWriteLock(dir, async () => {
    writeFileAtomic(path.join(dir, 'kb.json'), manifest);
    // NOTE: a random tag in the message, so two data repos created apart never share a root commit, even in
    // the same second (their kb.json stays identical, so merging them later cannot conflict on it).
    await commitChanges({ dir, changes: [{ path: 'kb.json', content: manifest }], message: `${message}\n\nrepo ${crypto.randomBytes(6).toString('hex')}` });
  });
}

/** Refuses text that carries secret-shaped content, naming each kind and where (file:line). */
export function refuseSecrets(text: string, where: string): void {
  const found = findSecrets(text);
  if (found.length === 0) return;
  const list = found.map((f) => `${f.kind} at ${where}:${f.line}:${f.column} (${f.preview})`).join('; ');
  throw new KbError('SECRET_DETECTED', `refused: secret-shaped content would be committed: ${list}. Remove it (store secrets in a secret manager, not the KB) and try again.`, {
    findings: found.map((f) => ({ kind: f.kind, file: where, line: f.line, column: f.column })),
  });
}

/**
 * Removes the `.<name>.<pid>.<random>.tmp` files that writeFileAtomic leaves beside `abs` when killed between
 * creating and renaming one. Only called under the write lock, when no other writer can be mid-write.
 */
function removeTempSiblings(abs: string): void {
  const prefix = `.${path.basename(abs)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(abs));
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith(prefix) && n.endsWith('.tmp')) fs.rmSync(path.join(path.dirname(abs), n), { force: true });
}

/** Completes a write that a killed process left half done (see the module contract). */
async function recover(dir: string): Promise<string | undefined> {
  let journal: Journal;
  try {
    journal = JSON.parse(fs.readFileSync(journalFile(dir), 'utf8')) as Journal;
  } catch {
    fs.rmSync(journalFile(dir), { force: true });
    return undefined;
  }
  for (const p of journal.paths) removeTempSiblings(safeJoin(dir, p));
  const roots = [...new Set(journal.paths.map((p) => p.split('/')[0]!))];
  const head = await headFiles(dir, roots.filter((r) => r !== 'kb.json'));
  const changes: PendingFile[] = [];
  const same: string[] = [];
  const { splitEntry } = await import('../../core/format/entry.js');
  for (const p of journal.paths) {
    const abs = safeJoin(dir, p);
    let content: Buffer | null = fs.existsSync(abs) ? fs.readFileSync(abs) : null;
    if (content !== null && p.endsWith('.md')) {
      try {
        splitEntry(content.toString('utf8'), p);
      } catch {
        // Torn by the kill (bulk writes skip the rename): put back what HEAD has, or drop a file that was new.
        const old = head.get(p);
        content = old ? ((await readBlobById(dir, old)) ?? null) : null;
        if (content) writeFileAtomic(abs, content);
        else fs.rmSync(abs, { force: true });
      }
    }
    const oid = content === null ? null : blobOid(content);
    if ((head.get(p) ?? null) === oid) same.push(p);
    else changes.push({ path: p, content: content === null ? null : content.toString('utf8') });
  }
  let commit: string | undefined;
  if (changes.length > 0) {
    commit = await commitChanges({ dir, changes, message: `git-kb: complete an interrupted write (${journal.message.split('\n')[0]})` });
  }
  const present = same.filter((p) => fs.existsSync(safeJoin(dir, p)));
  if (present.length > 0) updateIndexFile(dir, present.map((p) => ({ path: p, oid: head.get(p)! })));
  fs.rmSync(journalFile(dir), { force: true });
  return commit;
}

/** Holds the write lock around `fn`, finishing any interrupted write first. */
export async function withWriteLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = await lockDataRepo(dir);
  try {
    if (fs.existsSync(journalFile(dir))) await recover(dir);
    return await fn();
  } finally {
    lock.release();
  }
}

/**
 * Writes files and commits them as one commit (the caller holds the lock via withWriteLock). Paths must sit in
 * the entry folders or be kb.json/hosts.yaml.
 */
export async function writeAndCommit(dir: string, files: PendingFile[], message: string, options: { fsync?: boolean; bulk?: boolean; onProgress?: (done: number) => void } = {}): Promise<string> {
  for (const f of files) {
    const top = f.path.split('/')[0]!;
    if (!(ENTRY_ROOTS as readonly string[]).includes(top) && f.path !== 'kb.json' && f.path !== 'hosts.yaml') {
      throw new KbError('USAGE', `refusing to write ${f.path}: outside the data repo's entry folders`);
    }
    safeJoin(dir, f.path);
  }
  fs.mkdirSync(stateDir(dir), { recursive: true });
  writeFileAtomic(journalFile(dir), JSON.stringify({ paths: files.map((f) => f.path), message } satisfies Journal));
  let done = 0;
  let workingFiles: Promise<unknown> | undefined;
  if (options.bulk) {
    // NOTE: a bulk write of NEW files (import) skips the temp-and-rename and runs on the thread pool while the
    // objects are built: the journal names the files, the branch moves only once they are all written, and
    // recovery drops any that a kill left torn, so the repo stays valid at a fraction of the cost.
    for (const d of new Set(files.map((f) => path.dirname(safeJoin(dir, f.path))))) fs.mkdirSync(d, { recursive: true });
    workingFiles = (async () => {
      for (let i = 0; i < files.length; i += 64) {
        await Promise.all(
          files.slice(i, i + 64).map(async (f) => {
            await fs.promises.writeFile(safeJoin(dir, f.path), f.content!, { flag: 'wx' });
            options.onProgress?.(++done);
          }),
        );
      }
    })();
    workingFiles.catch(() => undefined);
  } else {
    for (const f of files) {
      const abs = safeJoin(dir, f.path);
      if (f.content === null) fs.rmSync(abs, { force: true });
      else writeFileAtomic(abs, f.content, { fsync: options.fsync });
      options.onProgress?.(++done);
    }
  }
  const commit = await commitChanges({ dir, changes: files, message, workingFiles });
  fs.rmSync(journalFile(dir), { force: true });
  // Auto-sync hook point (spec/sync.md): the CLI pushes after the verb when auto_sync is on; hooks never do.
  noteCommit(dir);
  return commit;
}
