/**
 * Contract: the one reader of a data repo's hosts.yaml (spec/hosts.md). A missing file is an empty registry; an
 * unreadable or invalid one throws INVALID_ENTRY (core/hosts/hosts.ts, checkedRegistry), so every caller fails
 * closed: a registry with a problem is never used, and whatever it forbids stays hidden.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { checkedRegistry, emptyRegistry, HOSTS_FILE, type HostRegistry } from '../../core/hosts/hosts.js';

/** The absolute path of hosts.yaml in a data repo. */
export function hostsFile(dir: string): string {
  return path.join(dir, HOSTS_FILE);
}

/** Reads and validates the registry of a data repo (a missing file is an empty registry); throws INVALID_ENTRY. */
export async function loadHosts(dir: string): Promise<HostRegistry> {
  let text: string;
  try {
    text = fs.readFileSync(hostsFile(dir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyRegistry();
    throw new KbError('INVALID_ENTRY', `${HOSTS_FILE}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: HOSTS_FILE });
  }
  return checkedRegistry(text);
}
