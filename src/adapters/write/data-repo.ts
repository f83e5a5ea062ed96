/**
 * Contract: a data repo comes into being here: created with its manifest (kb.json) on the first write, or a git
 * repo adopted by `init` given one. The manifest is committed through the write transaction like any write.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { KbError } from '../../core/errors.js';
import type { CommitIdentity } from '../git/author.js';
import { initRepo } from '../git/git.js';
import { dataRepoExists, requireDataRepo } from '../store/layout.js';
import { withWriteLock } from './transaction.js';

/** Creates the data repo with its manifest when it does not exist yet (the embedded default, on first write). */
export async function ensureDataRepo(dir: string, options: { identity?: CommitIdentity } = {}): Promise<boolean> {
  if (dataRepoExists(dir)) {
    requireDataRepo(dir);
    return false;
  }
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
    throw new KbError('NO_DATA_REPO', `${dir} exists and is not a git repository; choose another --data directory or run "git -C ${dir} init"`, { dir });
  }
  await initRepo(dir);
  await writeManifest(dir, 'git-kb: create data repo', options);
  return true;
}

/** Writes and commits kb.json (a new repo, or a git repo adopted by `init`). */
export async function writeManifest(dir: string, message: string, options: { identity?: CommitIdentity } = {}): Promise<void> {
  const manifest = `${JSON.stringify({ schema_version: 2, created_by: 'git-kb' }, null, 2)}\n`;
  // NOTE: a random tag in the message, so two data repos created apart never share a root commit, even in the
  // same second (their kb.json stays identical, so merging them later cannot conflict on it). Not recorded for
  // the auto-sync push: creating a repo is not a write the user asked to share.
  const tagged = `${message}\n\nrepo ${crypto.randomBytes(6).toString('hex')}`;
  await withWriteLock(dir, (tx) => tx.commit([{ path: 'kb.json', content: manifest }], tagged, { record: false }), options);
}
