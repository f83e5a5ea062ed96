/**
 * Contract: the one reader of a data repo's hosts.yaml (spec/hosts.md). A missing file is an empty registry; an
 * unreadable or invalid one throws INVALID_ENTRY (core/hosts/hosts.ts, checkedRegistry), so every caller fails
 * closed: a registry with a problem is never used, and whatever it forbids stays hidden.
 */
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { MAX_INPUT_BYTES } from '../system/read-bounded.js';
import { readRootFile } from './layout.js';
import { checkedRegistry, emptyRegistry, HOSTS_FILE, type HostRegistry } from '../../core/hosts/hosts.js';

/** The absolute path of hosts.yaml in a data repo. */
export function hostsFile(dir: string): string {
  return path.join(dir, HOSTS_FILE);
}

/**
 * The text of a data repo's hosts.yaml, undefined when there is none. Anything else that keeps it from being read
 * (a symbolic link, not a regular file, over the input limit, no permission) throws INVALID_ENTRY: a registry that cannot be read
 * forbids what it would have forbidden, so every caller fails closed.
 */
export function readHostsText(dir: string): string | undefined {
  try {
    return readRootFile(dir, HOSTS_FILE, MAX_INPUT_BYTES).toString('utf8');
  } catch (err) {
    if (err instanceof KbError && err.code === 'NOT_FOUND') return undefined;
    throw new KbError('INVALID_ENTRY', `${HOSTS_FILE}: cannot be read (${(err as Error).message})`, { file: HOSTS_FILE });
  }
}

/** Reads and validates the registry of a data repo (a missing file is an empty registry); throws INVALID_ENTRY. */
export async function loadHosts(dir: string): Promise<HostRegistry> {
  const text = readHostsText(dir);
  return text === undefined ? emptyRegistry() : checkedRegistry(text);
}
