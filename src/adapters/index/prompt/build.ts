/**
 * Contract: (re)building the prompt index of a data repo (spec/hooks.md, "Prompt index"). Loaded only when the
 * index is missing or stale (load.ts imports it on demand), by the prompt hook, the prose gate, a git-kb command
 * that wants the next prompt to be fast, or the detached background builder (update.ts runBackgroundBuild). Reads the
 * entries through the catalog (so the hook and the CLI agree on what an entry is) and hosts.yaml through the one
 * strict reader, writes the index atomically under `.git/git-kb/prompt/`, and returns it. The key is read before
 * the files are listed, so a change made while the build runs makes the next prompt rebuild again instead of
 * serving a stale index. Fails closed on hosts: a forbidden host's entries are never indexed, and while hosts.yaml
 * does not validate no entry about any host is (nor any host pointer).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HostRegistry } from '../../../core/hosts/hosts.js';
import { keywords, tagKeywords } from '../../../core/text/prompt-text.js';
import { otherAliases } from '../../../core/format/meta.js';
import { FIELD_B, FIELD_WEIGHTS } from '../../../core/text/relevance.js';
import { hostsFile, loadHosts } from '../../store/hosts-file.js';
import { readDecaySettings } from '../../store/repo-settings.js';
import { DEFAULT_DECAY, decayStamp, type DecaySettings } from '../../../core/decay.js';
import { entryDirs, readEntryText } from '../../store/layout.js';
import { bodyOf } from '../../../core/format/fence.js';
import { pageParts, type PageParts } from '../../../core/format/sections.js';
import { kernelOrder } from '../../../core/budget.js';
import { withoutSightings } from '../../../core/format/learning.js';
import { readableLinks } from '../../../core/format/links.js';
import { loadCatalog } from '../catalog.js';
import { catalogCacheFile, indexFile, keyDirs, promptStateDir, repoKey, sigOf, statSig } from '../fresh.js';
import { hostExtras } from './extras-hosts.js';
import { deltaFile } from './delta.js';
import { countsAsRecent, sessionExtras } from './extras-sessions.js';
import { encodeIndex, FIELD_ALIAS, FIELD_TAG, FIELD_TITLE, HOT_SIZE, readerFromBuffer, type ActivityItem, type FileKind, type IndexDoc, type IndexFile, type IndexKernel, type IndexModel, type IndexReader, type KernelRule } from './format.js';

/** Ledger files older than this are removed when the index is rebuilt. */
const LEDGER_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** An entry as the index builder sees it (the catalog's fields, without the body). */
export interface BuildEntry {
  id: string;
  title: string;
  type: string;
  tags: string[];
  aliases: string[];
  appliesTo: string[];
  kernel: boolean;
  host?: string;
  rules: KernelRule[];
  created?: string;
  updated?: string;
  path: string;
  data: Record<string, unknown>;
}

export interface BuildResult {
  reader: IndexReader;
  /** False when the index could not be saved (a read-only repo): it still serves this prompt. */
  saved: boolean;
  entries: number;
  ms: number;
  /** True when it was brought up to date as a delta (update.ts) rather than rebuilt. */
  updated?: boolean;
}

/** What an entry sorts by, newest first: updated, else created. */
export const newestKey = (e: { updated?: string; created?: string }): string => e.updated ?? e.created ?? '';

/** Newest first by key, then by id, highest first: the order of the documents and of the activity lists. */
export function newerFirst(ka: string, ida: string, kb: string, idb: string): number {
  return ka < kb ? 1 : ka > kb ? -1 : ida < idb ? 1 : ida > idb ? -1 : 0;
}

function byNewest(a: BuildEntry, b: BuildEntry): number {
  return newerFirst(newestKey(a), a.id, newestKey(b), b.id);
}


// The field weights and b live with the keyword signal's bars (core/text/relevance.ts).

type FieldName = keyof typeof FIELD_WEIGHTS;

/** An entry's keywords per field, with repeats (term frequencies). */
export function fieldsOf(e: Pick<BuildEntry, 'title' | 'aliases' | 'tags'>, body: string): Record<FieldName, string[]> {
  return { title: keywords(e.title), alias: otherAliases(e.title, e.aliases).flatMap((a) => keywords(a)), tag: e.tags.flatMap((t) => tagKeywords(t)), body: keywords(body) };
}

const FIELD_BIT: Record<FieldName, number> = { title: FIELD_TITLE, alias: FIELD_ALIAS, tag: FIELD_TAG, body: 0 };

/**
 * The index documents: per entry and keyword, the field bits and the BM25F weighted term frequency,
 * sum over fields of weight * tf / (1 - b + b * length / average length).
 */
const FIELD_NAMES = Object.keys(FIELD_WEIGHTS) as FieldName[];

/** The average length of each field over `entries` (1 for a field no entry has). */
function fieldAverages(entries: { fields: Record<FieldName, string[]> }[]): Record<FieldName, number> {
  return Object.fromEntries(FIELD_NAMES.map((f) => [f, entries.reduce((s, x) => s + x.fields[f].length, 0) / Math.max(1, entries.length) || 1])) as Record<FieldName, number>;
}

/**
 * The decay settings of the data repo for the index (kb.json "decay"). NOTE: a kb.json that does not validate
 * gets the defaults here: the hook fails open, and `git-kb search` and `lint` say what is wrong with it.
 */
export function indexDecaySettings(dir: string): DecaySettings {
  try {
    return readDecaySettings(dir);
  } catch {
    return DEFAULT_DECAY;
  }
}

/** What the index header keeps of the decay settings (format.ts IndexModel.decay). */
export function indexDecay(s: DecaySettings): NonNullable<IndexModel['decay']> {
  return { floor: s.enabled ? s.floor : 1, settings: JSON.stringify(s) };
}

/** The fields of an entry its decay stamp is made from (core/decay.ts DecayInput). */
type Decaying = Pick<BuildEntry, 'type' | 'kernel' | 'host' | 'created' | 'updated' | 'data'>;

/**
 * One index document under the field averages `avg` (an update keeps its index's averages: update.ts), with its
 * decay stamp under the settings `decay`.
 */
export function docOf(e: { id: string; title: string } & Decaying, fields: Record<FieldName, string[]>, avg: Record<string, number>, decay: DecaySettings, parts?: PageParts): IndexDoc {
  const terms = new Map<string, number>();
  const weights = new Map<string, number>();
  for (const f of FIELD_NAMES) {
    const norm = 1 - FIELD_B + (FIELD_B * fields[f].length) / (avg[f] || 1);
    for (const w of fields[f]) {
      terms.set(w, (terms.get(w) ?? 0) | FIELD_BIT[f]);
      weights.set(w, (weights.get(w) ?? 0) + FIELD_WEIGHTS[f] / norm);
    }
  }
  const stamp = decayStamp({ type: e.type, kernel: e.kernel, host: e.host, created: e.created, updated: e.updated, evergreen: e.data.evergreen }, decay);
  return { id: e.id, title: e.title, terms, weights, ...(stamp[1] > 0 ? { decay: stamp } : {}), ...(parts ? { parts } : {}) };
}

export function readBodyOf(dir: string, p: string): string {
  try {
    return readableLinks(bodyOf(readEntryText(dir, p)));
  } catch {
    return ''; // unreadable now: the stat check of the next prompt notices the change
  }
}

function pruneLedgers(ledgers: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(ledgers);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    const p = path.join(ledgers, name);
    try {
      if (now - fs.statSync(p).mtimeMs > LEDGER_MAX_AGE_MS) fs.rmSync(p, { force: true });
    } catch {
      /* gone already */
    }
  }
}

/** hosts.yaml through the strict reader: the registry, or why there is none. */
async function readRegistry(dir: string): Promise<{ registry?: HostRegistry; error?: string }> {
  try {
    return { registry: await loadHosts(dir) };
  } catch (err) {
    return { error: String((err as Error).message).split('\n')[0] };
  }
}

/**
 * What a file is to the index (format.ts FileKind) and its entry's id: decided here for a build and in update.ts
 * for a changed file, by this one rule.
 */
export function kindOf(e: Pick<BuildEntry, 'id' | 'type' | 'kernel' | 'host' | 'data'> | undefined, byId: Map<string, unknown>): [FileKind, string] {
  if (!e) return ['-', ''];
  if (byId.get(e.id) !== e) return ['d', e.id];
  if (e.kernel) return ['k', e.id];
  // NOTE: every entry `hidden` hides has a host or is a host fact, so 'h' covers them.
  if (e.host || e.type === 'host_fact') return ['h', e.id];
  if (e.type === 'session_summary') return [countsAsRecent(e) ? 'S' : 's', e.id];
  return ['p', e.id];
}

/**
 * The generation of an index over `files` ([path, stat signature], in path order): every file but the session
 * summaries, and hosts.yaml (see the ledger note in rebuildPromptIndex). A build and an update compute it here.
 */
export function generationOf(dir: string, files: Iterable<[string, string]>): string {
  const gen = crypto.createHash('sha1');
  for (const [p, sig] of files) if (!p.startsWith('sessions/')) gen.update(`${p}\0${sig}\n`);
  return gen.update(statSig(hostsFile(dir))).digest('hex').slice(0, 16);
}

/** Rebuilds the prompt index of `dir` now, saves it when it can, and returns a reader over it. */
export async function rebuildPromptIndex(dir: string): Promise<BuildResult> {
  const started = Date.now();
  // NOTE: the repo part of the key is read before anything is listed (see the module contract).
  const dirs = keyDirs(entryDirs(dir));
  const key0 = repoKey(dir, dirs);
  const catalog = await loadCatalog(dir);
  const key = `${key0}|catalog=${statSig(catalogCacheFile(dir))}`;
  const hosts = await readRegistry(dir);
  const forbidden = new Set(hosts.registry?.hosts.filter((h) => h.forbidden).map((h) => h.key));
  // NOTE: fail closed: without a valid registry nobody can tell which hosts are forbidden, so no entry about a host
  // is indexed (`git-kb search` refuses to run in that state).
  const hidden = (e: { host?: string; type: string }): boolean => (hosts.registry ? !!e.host && forbidden.has(e.host) : !!e.host || e.type === 'host_fact');

  const entries: BuildEntry[] = [];
  for (const e of catalog.byId.values()) {
    if (hidden(e)) continue;
    entries.push({
      id: e.id,
      title: e.title,
      type: e.type,
      tags: e.tags,
      aliases: e.aliases,
      appliesTo: e.appliesTo,
      kernel: e.kernel,
      host: e.host,
      rules: e.rules,
      created: e.created,
      updated: e.updated,
      path: e.path,
      data: e.data,
    });
  }
  entries.sort(byNewest);

  // NOTE: regular files only. The catalog also lists an entry name that is no regular file (a dangling link, a
  // FIFO: layout.ts entryStatInto, so that every verb counts lint's problem), but the index's freshness check
  // reads each file's stat signature (fresh.ts statSig: '-' for those), and it has nothing to point to there.
  const items = catalog.items.filter((i) => i.entry || !/^[-!]$/.test(statSig(`${dir}/${i.path}`)));
  const kernel: IndexKernel[] = [];
  const statOf = new Map(items.map((i) => [i.path, sigOf(i)]));
  for (const e of [...entries].filter((x) => x.kernel).sort(kernelOrder)) {
    let body: string;
    try {
      // The lesson, not its log of sightings: that history would ride on every prompt.
      body = withoutSightings(bodyOf(readEntryText(dir, e.path))).trimEnd();
    } catch {
      continue; // unreadable now: the stat check of the next prompt notices the change
    }
    kernel.push({ id: e.id, title: e.title, path: e.path, sig: statOf.get(e.path) ?? '-', body, rules: e.rules.map((r) => ({ ...r })) });
  }

  // NOTE: kernel entries are shown in full anyway, and session summaries have their own signal: neither is
  // a keyword or activity pointer.
  const pointable = entries.filter((e) => !e.kernel && e.type !== 'session_summary');
  const activity: Record<string, ActivityItem[]> = {};
  for (const e of pointable) {
    for (const a of e.appliesTo) (activity[a] ??= []).push([e.id, e.title, newestKey(e)]);
  }

  const files: IndexFile[] = items.map((i) => [i.path, sigOf(i), ...kindOf(i.entry, catalog.byId)]);
  const hot = [...items]
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(0, HOT_SIZE)
    .map((i): [string, string] => [i.path, sigOf(i)]);

  // NOTE: the ledger resets when the generation changes, so it covers what the hook points to (entries, host
  // facts, hosts.yaml) and not session summaries: the Stop hook rewrites those every few minutes, and that must
  // not make every pointer of the session come back.
  const generation = generationOf(dir, items.map((i) => [i.path, sigOf(i)]));

  const fielded = pointable.map((e) => {
    const body = readBodyOf(dir, e.path);
    return { e, fields: fieldsOf(e, body), parts: pageParts(e.title, body, keywords) };
  });
  const avg = fieldAverages(fielded);
  const decay = indexDecaySettings(dir);
  const sessions = await sessionExtras({ dir, entries });
  const buf = encodeIndex({
    key,
    generation,
    dirs,
    avg,
    decay: indexDecay(decay),
    docs: fielded.map(({ e, fields, parts }) => docOf(e, fields, avg, decay, parts)),
    kernel,
    activity,
    files,
    hot,
    extras: { host: hostExtras({ ...hosts, entries }), sessions: sessions.extras },
    built: new Date().toISOString(),
  });
  // NOTE: whatever cannot be written (a read-only repo, a cache path that is a file), the index is served from
  // memory: the prose gate judges by its kernel and the prompt hook points from it all the same. Nothing is left
  // half-written: no index saved without its side file, no side file or temporary file without its index.
  const file = indexFile(dir);
  const tmp = path.join(path.dirname(file), `.index.${process.pid}.${Date.now()}.tmp`);
  let saved = false;
  if (sessions.saved) {
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(tmp, buf);
      fs.renameSync(tmp, file);
      saved = true;
    } catch {
      try {
        fs.rmSync(tmp, { force: true });
        if (sessions.extras.file) fs.rmSync(path.join(promptStateDir(dir), sessions.extras.file), { force: true });
      } catch {
        /* nothing more can be done here */
      }
    }
  }
  if (saved) {
    try {
      fs.rmSync(deltaFile(dir), { force: true }); // it named the index just replaced
      pruneLedgers(path.join(promptStateDir(dir), 'ledger'));
    } catch {
      /* the delta names another index's header (delta.ts), so a stale one is never applied */
    }
  }
  return { reader: readerFromBuffer(buf), saved, entries: pointable.length, ms: Date.now() - started };
}
