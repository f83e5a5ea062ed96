/**
 * Contract: the one reader of a data repo's hosts.yaml (spec/hosts.md). A missing file is an empty registry; an
 * unreadable or invalid one throws INVALID_ENTRY (core/hosts/hosts.ts, checkedRegistry), so every caller fails
 * closed: a registry with a problem is never used, and whatever it forbids stays hidden.
 *
 * NOTE: checking hosts.yaml is linear in its size but not free (32,000 hosts, 1.5 MB: about 1.5 s; the 8 MB input
 * limit: about 9 s), and every verb and the prompt hook's index build read it. A file of HOSTS_CACHE_MIN_BYTES or
 * more has its verdict (the registry, or the problems) kept in .git/git-kb/hosts.v8 under the SHA-256 of its text,
 * so only a text never checked before is parsed. A kept registry's aliases, markers and patterns are checked again
 * with markerProblem on each use (the rules most likely to change between versions: regex risk); anything else
 * that changes what parseHosts accepts bumps HOSTS_CACHE_VERSION.
 */
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import { crypto, v8 } from '../system/builtins.js';
import { MAX_INPUT_BYTES, readSmall } from '../system/read-bounded.js';
import { writeFileAtomic } from './fsutil.js';
import { readRootFile, stateDir } from './layout.js';
import { checkedRegistry, emptyRegistry, HOSTS_FILE, invalidRegistry, markerProblem, parseHosts, type HostProblem, type HostRegistry } from '../../core/hosts/hosts.js';

/** Bump when parseHosts accepts or refuses differently (beyond markerProblem), or a kept verdict's shape changes. */
const HOSTS_CACHE_VERSION = 2;

/** Below this size hosts.yaml is checked on every read (milliseconds), and nothing is kept. */
export const HOSTS_CACHE_MIN_BYTES = 64 * 1024;

interface KeptVerdict {
  v: number;
  sha256: string;
  registry?: HostRegistry;
  problems?: HostProblem[];
}

function verdictFile(dir: string): string {
  return path.join(stateDir(dir), 'hosts.v8');
}

/** The kept verdict of the text with this hash, or undefined (none, another text, another version, corrupt). */
function keptVerdict(dir: string, sha256: string): KeptVerdict | undefined {
  try {
    const bytes = readSmall(verdictFile(dir), 16 * MAX_INPUT_BYTES);
    const kept = bytes ? (v8().deserialize(bytes) as KeptVerdict) : undefined;
    if (kept?.v !== HOSTS_CACHE_VERSION || kept.sha256 !== sha256) return undefined;
    if (Array.isArray(kept.problems) && kept.problems.length > 0) return kept;
    const r = kept.registry;
    if (!r || !Array.isArray(r.hosts) || !Array.isArray(r.forbiddenPatterns)) return undefined;
    const terms = (function* () {
      for (const h of r.hosts) yield* [...h.aliases, ...h.markers];
      yield* r.forbiddenPatterns;
    })();
    for (const t of terms) if (markerProblem(t)) return undefined; // a rule changed: check the text again
    return kept;
  } catch {
    return undefined;
  }
}

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
  if (text === undefined) return emptyRegistry();
  if (text.length < HOSTS_CACHE_MIN_BYTES) return checkedRegistry(text);
  const sha256 = crypto().createHash('sha256').update(text).digest('hex');
  let kept = keptVerdict(dir, sha256);
  if (!kept) {
    const { registry, problems } = parseHosts(text);
    kept = { v: HOSTS_CACHE_VERSION, sha256, ...(problems.length > 0 ? { problems } : { registry }) };
    try {
      writeFileAtomic(verdictFile(dir), v8().serialize(kept), { fsync: false });
    } catch {
      // NOTE: a read-only data repo still reads hosts.yaml; it checks it again next time.
    }
  }
  if (kept.problems && kept.problems.length > 0) throw invalidRegistry(kept.problems);
  return kept.registry!;
}
