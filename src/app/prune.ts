/**
 * Contract: `prune` (spec/memory.md, "Prune") lists entries that are candidates for deletion, each with its
 * reason, and deletes nothing unless asked (`yes`); then it deletes exactly the listed entries as ONE commit
 * through the write transaction, the list recomputed under the write lock.
 *
 * - stale: an entry of a decaying type (its half-life from kb.json "decay", session summaries aside) whose age
 *   (`updated`, else `created`) is at least `halfLives` half-lives, that was never seen again (no recurrence),
 *   is not kernel, and that no other entry links to (a front matter link or `[[id]]` in a body);
 * - duplicate: an entry with the same type (and host) as another and an identical normalised body
 *   (lowercased, runs of white space as one space, trimmed; an empty body never counts), or the same
 *   `pattern_key`. Of each group the keeper is the entry others link to, else the kernel one, else the newest
 *   (`updated`, else `created`); the others are listed, except one that is linked to or is kernel. A keeper is
 *   not listed as stale on the same run, and with `yes` the duplicates deleted for it are folded into its
 *   recurrence history (app/learnings.ts, foldDuplicates) in the same commit.
 */
import { loadCatalog, type Catalog, type EntryMeta } from '../adapters/index/catalog.js';
import { readEntryText } from '../adapters/store/layout.js';
import { readDecaySettings } from '../adapters/store/repo-settings.js';
import { withWriteLock } from '../adapters/write/transaction.js';
import { ageDays, halfLifeOf } from '../core/decay.js';
import { KbError } from '../core/errors.js';
import { bodyOf } from '../core/format/fence.js';
import { foldDuplicates, normaliseBody } from './learnings.js';
import { patternKeyOf, recurrenceCount } from './memory.js';
import { idSet } from './find.js';
import { repoForRead, type RepoOptions } from './repo.js';

/** How many half-lives old a decaying entry must be to be stale, by default. */
export const STALE_HALF_LIVES = 4;

export interface PruneCandidate {
  id: string;
  title: string;
  type: string;
  path: string;
  reason: 'stale' | 'duplicate';
  /** Why, in words: the age against the half-life, or what it duplicates and how. */
  detail: string;
  /** For a duplicate: the entry that is kept. */
  of?: string;
}

export interface PruneResult {
  candidates: PruneCandidate[];
  /** The entries deleted (with `yes`); empty when only listing. */
  deleted: string[];
  /** The kept copies the deleted duplicates were folded into (with `yes`). */
  folded?: string[];
  commit?: string;
  half_lives: number;
}

export interface PruneOptions extends RepoOptions {
  yes?: boolean;
  /** Stale from this many half-lives (default STALE_HALF_LIVES). */
  halfLives?: number;
  now?: Date;
}

const BODY_LINK = /\[\[(kb-[0-9a-z]+)(?:\|[^\]]*)?\]\]/g;

/** The ids other entries link to (front matter links and `[[id]]` in bodies), with the bodies read once. */
function inboundAndBodies(catalog: Catalog): { inbound: Set<string>; bodies: Map<string, string> } {
  const inbound = new Set<string>();
  const bodies = new Map<string, string>();
  for (const e of catalog.byId.values()) {
    for (const l of e.links) if (l.to !== e.id) inbound.add(l.to);
    let body = '';
    try {
      body = bodyOf(readEntryText(catalog.dir, e.path));
    } catch {
      /* unreadable now: never a duplicate */
    }
    bodies.set(e.id, body);
    for (const m of body.matchAll(BODY_LINK)) if (m[1] !== e.id) inbound.add(m[1]!);
  }
  return { inbound, bodies };
}

/** Newest first: by `updated`, else `created`, then the later id. */
function newerFirst(a: EntryMeta, b: EntryMeta): number {
  const ka = a.updated ?? a.created ?? '';
  const kb = b.updated ?? b.created ?? '';
  return ka < kb ? 1 : ka > kb ? -1 : a.id < b.id ? 1 : -1;
}

/** The prune candidates of a catalog (pure over the catalog and the bodies). */
export function pruneCandidates(catalog: Catalog, options: { halfLives: number; now: number; decay: ReturnType<typeof readDecaySettings> }): PruneCandidate[] {
  const { inbound, bodies } = inboundAndBodies(catalog);
  const entries = [...catalog.byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const out = new Map<string, PruneCandidate>();
  const cand = (e: EntryMeta, reason: PruneCandidate['reason'], detail: string, of?: string): PruneCandidate => ({ id: e.id, title: e.title, type: e.type, path: e.path, reason, detail, ...(of ? { of } : {}) });

  // Duplicates: group by type, host and normalised body, and by type and pattern key.
  const groups = new Map<string, { how: string; members: EntryMeta[] }>();
  const keepers = new Set<string>();
  for (const e of entries) {
    if (e.type === 'session_summary') continue;
    const body = normaliseBody(bodies.get(e.id) ?? '');
    const keys: [string, string][] = [];
    if (body) keys.push([`body\0${e.type}\0${e.host ?? ''}\0${body}`, 'identical body']);
    const pk = patternKeyOf(e);
    if (pk) keys.push([`pk\0${e.type}\0${pk}`, `same pattern_key ${pk}`]);
    for (const [k, how] of keys) {
      const g = groups.get(k) ?? { how, members: [] };
      g.members.push(e);
      groups.set(k, g);
    }
  }
  for (const { how, members } of groups.values()) {
    if (members.length < 2) continue;
    // NOTE: the newest copy, not the oldest: a lesson re-recorded today must not be deleted for a stale one.
    const keeper = [...members].sort((a, b) => Number(inbound.has(b.id)) - Number(inbound.has(a.id)) || Number(!!b.kernel) - Number(!!a.kernel) || newerFirst(a, b))[0]!;
    for (const e of members) {
      if (e === keeper || e.kernel || inbound.has(e.id) || out.has(e.id) || out.has(keeper.id)) continue;
      out.set(e.id, cand(e, 'duplicate', `duplicate of ${keeper.id} (same type ${e.type}, ${how})`, keeper.id));
      keepers.add(keeper.id);
    }
  }

  // Stale: old, decaying, never seen again, not kernel, not linked to.
  for (const e of entries) {
    if (out.has(e.id) || keepers.has(e.id) || e.type === 'session_summary' || e.kernel || inbound.has(e.id) || recurrenceCount(e) > 1) continue;
    const h = halfLifeOf({ ...e, evergreen: e.data.evergreen }, options.decay);
    if (h <= 0) continue;
    const age = ageDays(e, options.now);
    if (age < options.halfLives * h) continue;
    out.set(e.id, cand(e, 'stale', `${e.type} last updated ${Math.floor(age)} days ago (${(age / h).toFixed(1)} half-lives of ${h} days), never seen again, nothing links to it`));
  }
  return [...out.values()].sort((a, b) => (a.reason === b.reason ? (a.id < b.id ? -1 : 1) : a.reason === 'duplicate' ? -1 : 1));
}

/** Lists the prune candidates; with `yes`, deletes them in one commit. */
export async function prune(options: PruneOptions): Promise<PruneResult> {
  const halfLives = options.halfLives ?? STALE_HALF_LIVES;
  if (!(typeof halfLives === 'number' && Number.isFinite(halfLives) && halfLives > 0)) throw new KbError('USAGE', '--half-lives must be a positive number, e.g. --half-lives 4');
  const { dir } = repoForRead(options);
  const now = (options.now ?? new Date()).getTime();
  const candidatesOf = (catalog: Catalog): PruneCandidate[] => pruneCandidates(catalog, { halfLives, now, decay: readDecaySettings(dir) });
  if (!options.yes) return { candidates: candidatesOf(await loadCatalog(dir)), deleted: [], half_lives: halfLives };
  return withWriteLock(dir, async (tx) => {
    const catalog = await loadCatalog(dir);
    const candidates = candidatesOf(catalog);
    if (candidates.length === 0) return { candidates, deleted: [], half_lives: halfLives };
    // Each kept copy takes the duplicates deleted for it into its recurrence history.
    const folds = new Map<string, EntryMeta[]>();
    for (const c of candidates) if (c.of) folds.set(c.of, [...(folds.get(c.of) ?? []), catalog.byId.get(c.id)!]);
    const ids = idSet(dir);
    const kept: { path: string; content: string }[] = [];
    for (const [id, copies] of folds) {
      const e = catalog.byId.get(id)!;
      kept.push({ path: e.path, content: await foldDuplicates(dir, e, copies, ids, new Date(now)) });
    }
    const stale = candidates.filter((c) => c.reason === 'stale').length;
    const folded = folds.size ? `\n\nfolded into ${[...folds.keys()].join(', ')}` : '';
    const message = `prune: delete ${candidates.length} ${candidates.length === 1 ? 'entry' : 'entries'} (${stale} stale, ${candidates.length - stale} duplicate)\n\n${candidates.map((c) => `${c.id}: ${c.title} (${c.detail})`).join('\n')}${folded}`;
    const commit = await tx.commit([...candidates.map((c) => ({ path: c.path, content: null })), ...kept], message);
    return { candidates, deleted: candidates.map((c) => c.id), ...(kept.length ? { folded: [...folds.keys()] } : {}), commit, half_lives: halfLives };
  }, { identity: options.settings });
}
