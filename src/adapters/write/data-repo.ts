/**
 * Contract: a data repo comes into being here: created with its manifest (kb.json) on the first write, or a git
 * repo adopted by `init` given one. The manifest is committed through the write transaction like any write. A
 * new repo is made whole in a hidden sibling folder and renamed into place, so a first write killed at any point
 * leaves no repo (the next write creates it) or a whole one, and of several first writes at once, one creation
 * wins and the others use it.
 */
import { crypto } from '../system/builtins.js';
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import type { CommitIdentity } from '../git/author.js';
import { initRepo } from '../git/git.js';
import { dataRepoExists, refuseInsideDataRepo, refuseNonFolder, requireDataRepo } from '../store/layout.js';
import { processAlive } from '../system/pid.js';
import { withWriteLock } from './transaction.js';
import { gitignoreUpdate } from '../store/gitignore.js';

const CREATING = /^\..+\.(\d+)\.[0-9a-f]+\.creating$/;

/** Removes the half-made repos that killed creations left beside `dir`. */
function sweepDeadCreations(dir: string): void {
  const parent = path.dirname(dir);
  const prefix = `.${path.basename(dir)}.`;
  for (const name of fs.readdirSync(parent)) {
    const m = name.startsWith(prefix) ? CREATING.exec(name) : null;
    if (m && !processAlive(Number(m[1]))) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

/** Creates the data repo with its manifest when it does not exist yet (the embedded default, on first write). */
export async function ensureDataRepo(dir: string, options: { identity?: CommitIdentity } = {}): Promise<boolean> {
  refuseNonFolder(dir);
  // NOTE: the folder is looked at before the repo: another first write renames its whole repo into place at
  // once, so a folder seen non-empty with no repo after it is not one being created.
  const occupied = fs.existsSync(dir) && fs.readdirSync(dir).length > 0;
  if (dataRepoExists(dir)) {
    requireDataRepo(dir);
    return false;
  }
  refuseInsideDataRepo(dir);
  if (occupied) {
    throw new KbError('NO_DATA_REPO', `${dir} exists and is not a git repository; choose another --data directory or run "git -C ${dir} init"`, { dir });
  }
  const abs = path.resolve(dir);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  sweepDeadCreations(abs);
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.${crypto().randomBytes(4).toString('hex')}.creating`);
  try {
    await initRepo(tmp);
    await writeManifest(tmp, 'git-kb: create data repo', options);
    try {
      fs.renameSync(tmp, abs);
    } catch (err) {
      // Another first write got there first (ENOTEMPTY/EEXIST): use its repo.
      if (!dataRepoExists(abs)) throw err;
      requireDataRepo(abs);
      return false;
    }
    return true;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Writes and commits kb.json (a new repo, or a git repo adopted by `init`). */
export async function writeManifest(dir: string, message: string, options: { identity?: CommitIdentity } = {}): Promise<void> {
  const manifest = `${JSON.stringify({ schema_version: 2, created_by: 'git-kb' }, null, 2)}\n`;
  // NOTE: a random tag in the message, so two data repos created apart never share a root commit, even in the
  // same second (their kb.json stays identical, so merging them later cannot conflict on it). Not recorded for
  // the auto-sync push: creating a repo is not a write the user asked to share.
  const tagged = `${message}\n\nrepo ${crypto().randomBytes(6).toString('hex')}`;
  // The .gitignore that keeps an Obsidian vault's per-machine folders out (store/gitignore.ts), in the same commit.
  const ignore = gitignoreUpdate(dir);
  await withWriteLock(dir, (tx) => tx.commit([{ path: 'kb.json', content: manifest }, ...(ignore ? [ignore] : [])], tagged, { record: false }), { ...options, manifest: true });
}
