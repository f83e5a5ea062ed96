/**
 * Contract: how a use case finds its data repo: resolution per spec/cli.md from the `--data` flag and the
 * settings the container parsed, then either "must exist" (reads) or "create on first write" (the embedded
 * default and any empty directory).
 */
import { resolveDataDir, type ResolvedData } from '../adapters/config/config.js';
import type { Settings } from '../adapters/config/settings.js';
import { noteCreated } from '../adapters/store/commit-events.js';
import { requireDataRepo } from '../adapters/store/layout.js';

/** Options every use case takes: the `--data` flag, and the settings read once by the container. */
export interface RepoOptions {
  data?: string;
  settings: Settings;
}

/** Resolves the data repo for reading: it must exist. */
export function repoForRead(options: RepoOptions): ResolvedData {
  const resolved = resolveDataDir({ data: options.data, settings: options.settings });
  requireDataRepo(resolved.dir);
  return resolved;
}

/** Resolves the data repo for writing, creating it when missing (the CLI then says where: noteCreated). */
export async function repoForWrite(options: RepoOptions): Promise<ResolvedData & { created: boolean }> {
  const resolved = resolveDataDir({ data: options.data, settings: options.settings });
  const { ensureDataRepo } = await import('../adapters/write/data-repo.js');
  const created = await ensureDataRepo(resolved.dir, { identity: options.settings });
  if (created) noteCreated(resolved.dir);
  return { ...resolved, created };
}
