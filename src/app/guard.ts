/**
 * Contract: forbidden hosts (spec/hosts.md) are never written, loaded or surfaced. Writes call refuseForbidden;
 * reads (search, list, get) drop or refuse entries about a forbidden host. Both cost nothing in a repo without
 * hosts.yaml. An invalid hosts.yaml stops a write, and makes a read leave out every host's facts (a broken
 * forbidden flag must not let anything through).
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../core/errors.js';
import { hostOfPath } from '../core/format/schema.js';

/**
 * Refuses a write that would store anything about a forbidden host (spec/hosts.md): a `host` field naming one,
 * or text that mentions a forbidden host or matches a global forbidden pattern of hosts.yaml. Costs nothing when
 * the repo has no hosts.yaml; an invalid hosts.yaml stops the write (a broken forbidden flag must not let
 * anything through).
 */
export async function refuseForbidden(dir: string, texts: { text: string; where: string; host?: string }[]): Promise<void> {
  if (!fs.existsSync(path.join(dir, 'hosts.yaml'))) return;
  const { findHost, forbiddenMatcher, forbiddenMatch, describeForbidden } = await import('../core/hosts/hosts.js');
  const { loadHosts } = await import('../adapters/store/hosts-file.js');
  const registry = await loadHosts(dir);
  const matcher = forbiddenMatcher(registry);
  for (const t of texts) {
    if (t.host && findHost(registry, t.host)?.forbidden) {
      throw new KbError('FORBIDDEN_HOST', `refused: ${t.where} is about the forbidden host "${t.host}"; nothing written`, { host: t.host, file: t.where });
    }
    const hit = forbiddenMatch(matcher, t.text);
    if (hit) throw new KbError('FORBIDDEN_HOST', `refused: ${t.where} mentions ${describeForbidden(hit)}; nothing written`, { hit, file: t.where });
  }
}

/** The hosts whose facts a read leaves out; `invalid` says why all of them are, when hosts.yaml does not load. */
export interface HiddenHosts {
  has(host: string): boolean;
  readonly size: number;
  /** hosts.yaml's problems, when it does not load: every host's facts are then hidden. */
  invalid?: string;
}

/**
 * The keys of the forbidden hosts of the repo (empty without hosts.yaml). A hosts.yaml that does not load hides
 * every host's facts instead of stopping the read (fail closed for the hosts, the other entries still served):
 * one typo in a synced hosts.yaml must not lock the user out of list, search and get.
 */
export async function forbiddenHostKeys(dir: string): Promise<HiddenHosts> {
  if (!fs.existsSync(path.join(dir, 'hosts.yaml'))) return new Set();
  const { loadHosts } = await import('../adapters/store/hosts-file.js');
  try {
    return new Set((await loadHosts(dir)).hosts.filter((h) => h.forbidden).map((h) => h.key));
  } catch (err) {
    if (!(err instanceof KbError) || err.code !== 'INVALID_ENTRY') throw err;
    return { has: () => true, size: Number.POSITIVE_INFINITY, invalid: err.message };
  }
}

/**
 * The host key a `--host` filter names: the registered host whose key or alias it is (as `host add` and `host load`
 * take either), else the name itself (facts may sit in a folder no registration names; hosts.yaml missing or not
 * loading: the name as given).
 */
export async function hostKeyFor(dir: string, name: string): Promise<string> {
  if (!fs.existsSync(path.join(dir, 'hosts.yaml'))) return name;
  const [{ loadHosts }, { findHost }] = await Promise.all([import('../adapters/store/hosts-file.js'), import('../core/hosts/hosts.js')]);
  try {
    return findHost(await loadHosts(dir), name.trim().toLowerCase())?.key ?? name;
  } catch {
    return name;
  }
}

/**
 * The files of `paths` that could not be read as entries and are worth telling the reader about: those of a
 * forbidden host's folder (`hosts/<key>/...`) are left out, as its facts are (list, search, tags).
 */
export function unreadableShown(paths: readonly string[], hidden: HiddenHosts): string[] {
  if (hidden.size === 0) return [...paths];
  return paths.filter((p) => {
    const host = hostOfPath(p);
    return !(host && hidden.has(host));
  });
}
