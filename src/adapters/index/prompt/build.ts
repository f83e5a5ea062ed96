/**
 * Contract: (re)building the prompt index of a data repo (spec/hooks.md, "Prompt index"). Loaded only when the
 * index is missing or stale, by the prompt hook or by a git-kb command that wants the next prompt to be fast.
 * Reads the entries through the catalog (so the hook and the CLI agree on what an entry is), writes the index
 * atomically under `.git/git-kb/prompt/`, and returns it. The key is read before the files are listed, so a
 * change made while the build runs makes the next prompt rebuild again instead of serving a stale index.
 * The hot-path functions it needs arrive as `kit` (prompt-kit.ts), so that loading this module never drags
 * them into a chunk of their own.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { loadCatalog } from '../catalog.js';
import { entryDirs, readEntryText } from '../../store/layout.js';
import { bodyOf } from '../../../core/format/fence.js';
import type { IndexDoc, IndexKernel, IndexReader } from './format.js';
import type { PromptKit } from './kit.js';
import type { BuildEntry } from '../../../hooks/prompt/signals.js';

/** Ledger files older than this are removed when the index is rebuilt. */
const LEDGER_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

export interface BuildResult {
  reader: IndexReader;
  /** False when the index could not be saved (a read-only repo): it still serves this prompt. */
  saved: boolean;
  entries: number;
  ms: number;
}

function byNewest(a: BuildEntry, b: BuildEntry): number {
  const ka = a.updated ?? a.created ?? '';
  const kb = b.updated ?? b.created ?? '';
  return ka < kb ? 1 : ka > kb ? -1 : a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function byOldest(a: BuildEntry, b: BuildEntry): number {
  const ka = a.created ?? a.updated ?? '';
  const kb = b.created ?? b.updated ?? '';
  return ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The commit HEAD points to, read from the files of `.git` (undefined in an empty repo). */
export function headCommit(dir: string): string | undefined {
  const git = path.join(dir, '.git');
  try {
    const head = fs.readFileSync(path.join(git, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
    if (!ref) return head;
    try {
      return fs.readFileSync(path.join(git, ref), 'utf8').trim();
    } catch {
      const packed = fs.readFileSync(path.join(git, 'packed-refs'), 'utf8');
      return new RegExp(`^([0-9a-f]{40,64}) ${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm').exec(packed)?.[1];
    }
  } catch {
    return undefined;
  }
}

/**
 * Host keys marked forbidden in hosts.yaml (their facts are never surfaced). Tolerant of the shapes
 * `hosts: {key: {forbidden: true}}` and `hosts: [{key, forbidden}]`; an unreadable file forbids nothing here
 * (the host commands report it).
 */
export async function forbiddenHosts(dir: string): Promise<Set<string>> {
  const out = new Set<string>();
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, 'hosts.yaml'), 'utf8');
  } catch {
    return out;
  }
  try {
    const YAML = (await import('yaml')).default;
    const doc = YAML.parse(text) as { hosts?: unknown } | null;
    const hosts = doc?.hosts;
    const mark = (key: unknown, h: unknown): void => {
      if (typeof key === 'string' && h && typeof h === 'object' && (h as { forbidden?: unknown }).forbidden === true) out.add(key);
    };
    if (Array.isArray(hosts)) for (const h of hosts) mark((h as { key?: unknown })?.key, h);
    else if (hosts && typeof hosts === 'object') for (const [k, h] of Object.entries(hosts)) mark(k, h);
  } catch {
    /* malformed hosts.yaml: reported by the host commands */
  }
  return out;
}

function docFor(kit: PromptKit, e: BuildEntry): IndexDoc {
  const terms = new Map<string, number>();
  const add = (words: string[], field: number): void => {
    for (const w of words) terms.set(w, (terms.get(w) ?? 0) | field);
  };
  add(kit.keywords(e.title), kit.FIELD_TITLE);
  for (const t of e.tags) add(kit.tagKeywords(t), kit.FIELD_TAG);
  for (const a of e.aliases) add(kit.keywords(a), kit.FIELD_ALIAS);
  return { id: e.id, title: e.title, terms };
}

function pruneLedgers(dir: string, ledgers: string): void {
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

/** Rebuilds the prompt index of `dir`, saves it when it can, and returns a reader over it. */
export async function buildPromptIndex(dir: string, kit: PromptKit): Promise<BuildResult> {
  const started = Date.now();
  // NOTE: the repo part of the key is read before anything is listed (see the module contract).
  const dirs = kit.keyDirs(entryDirs(dir));
  const key0 = kit.repoKey(dir, dirs);
  const catalog = await loadCatalog(dir);
  const key = `${key0}|catalog=${kit.statSig(kit.catalogCacheFile(dir))}`;
  const forbidden = await forbiddenHosts(dir);

  const entries: BuildEntry[] = [];
  for (const e of catalog.byId.values()) {
    if (e.host && forbidden.has(e.host)) continue;
    entries.push({
      id: e.id,
      title: e.title,
      type: e.type,
      tags: e.tags,
      aliases: e.aliases,
      appliesTo: e.appliesTo,
      kernel: e.kernel,
      host: e.host,
      created: e.created,
      updated: e.updated,
      path: e.path,
      data: e.data,
    });
  }
  entries.sort(byNewest);

  const kernel: IndexKernel[] = [];
  const statOf = new Map(catalog.items.map((i) => [i.path, kit.sigOf(i)]));
  for (const e of [...entries].filter((x) => x.kernel).sort(byOldest)) {
    let body: string;
    try {
      body = bodyOf(readEntryText(dir, e.path)).replace(/\s+$/, '');
    } catch {
      continue; // unreadable now: the stat check of the next prompt notices the change
    }
    kernel.push({ id: e.id, title: e.title, path: e.path, sig: statOf.get(e.path) ?? '-', body });
  }

  // NOTE: kernel entries are shown in full anyway, and session summaries have their own signal: neither is
  // a keyword or activity pointer.
  const pointable = entries.filter((e) => !e.kernel && e.type !== 'session_summary');
  const activity: Record<string, [string, string][]> = {};
  for (const e of pointable) {
    for (const a of e.appliesTo) (activity[a] ??= []).push([e.id, e.title]);
  }

  const files: [string, string][] = catalog.items.map((i) => [i.path, kit.sigOf(i)]);
  const hot = [...catalog.items]
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(0, kit.HOT_SIZE)
    .map((i): [string, string] => [i.path, kit.sigOf(i)]);

  const extras: Record<string, unknown> = {};
  for (const slot of kit.signals) {
    const s = 'load' in slot ? await slot.load() : slot;
    if (s.collect) extras[s.name] = await s.collect({ dir, entries });
  }

  // NOTE: the ledger resets when the generation changes, so it covers what the hook points to (entries, host
  // facts, hosts.yaml) and not session summaries: the Stop hook rewrites those every few minutes, and that must
  // not make every pointer of the session come back.
  const gen = crypto.createHash('sha1');
  for (const i of catalog.items) if (!i.path.startsWith('sessions/')) gen.update(`${i.path}\0${kit.sigOf(i)}\n`);
  const generation = gen.update(kit.statSig(path.join(dir, 'hosts.yaml'))).digest('hex').slice(0, 16);

  const buf = kit.encodeIndex({
    key,
    generation,
    dirs,
    docs: pointable.map((e) => docFor(kit, e)),
    kernel,
    activity,
    files,
    hot,
    extras,
    built: new Date().toISOString(),
  });
  let saved = false;
  try {
    const file = kit.indexFile(dir);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const tmp = path.join(path.dirname(file), `.index.${process.pid}.${Date.now()}.tmp`);
    fs.writeFileSync(tmp, buf);
    fs.renameSync(tmp, file);
    saved = true;
    pruneLedgers(dir, path.join(kit.promptStateDir(dir), 'ledger'));
  } catch {
    /* read-only data repo: serve from memory */
  }
  return { reader: kit.readerFromBuffer(buf), saved, entries: pointable.length, ms: Date.now() - started };
}

/**
 * Brings the prompt index up to date when it is stale (for git-kb commands and hooks that just wrote, so the
 * next prompt does not pay for the rebuild). Never throws. See refreshPromptIndex in prompt.ts.
 */
export async function refreshPromptIndex(dir: string): Promise<void> {
  try {
    const { refreshPromptIndex: refresh } = await import('../../../hooks/prompt/prompt.js');
    await refresh(dir);
  } catch {
    /* the next prompt rebuilds */
  }
}
