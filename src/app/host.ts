/**
 * Contract: the host use cases of spec/hosts.md. `registerHost` edits hosts.yaml (validated before anything is
 * written, comments kept) and commits it; `addHostFact` writes a `host_fact` entry under `hosts/<key>/` (and
 * registers an unknown key in the same commit); `loadHostFacts`, `detectHosts`, `listHosts` and `hostStatus`
 * read. A forbidden host is never loaded, written or surfaced, and text that names a forbidden host or matches a
 * global forbidden pattern is never written; hosts.yaml that does not validate stops every one of these.
 * Results are plain data (src/cli/render/hosts.ts prints them, sentinel lines included); an outcome that is not
 * success names its error code in `exit`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { formatProblems, KbError, type ErrorCode } from '../core/errors.js';
import {
  describeForbidden,
  findHost,
  forbiddenMatch,
  forbiddenMatcher,
  HOSTS_FILE,
  hostMatcher,
  markerProblem,
  matchHosts,
  parseHosts,
  parseHostsForEdit,
  type HostDef,
  type HostProblem,
  type HostRegistry,
  type HostsForEdit,
} from '../core/hosts/hosts.js';
import { hostsFile, loadHosts, readHostsText } from '../adapters/store/hosts-file.js';
import { isValidHostKey, newId } from '../core/format/schema.js';
import { isLink, listEntryPaths, readEntryText } from '../adapters/store/layout.js';
import { nowStamp, splitList } from './fields.js';
import { idSet } from './find.js';
import { repoForRead, repoForWrite, type RepoOptions } from './repo.js';
import { refuseSecretInputs, refuseSecrets, withWriteLock, type PendingFile } from '../adapters/write/transaction.js';
import { toLf } from '../core/text/line-ends.js';
import { clipText } from '../core/text/clip.js';

/** hosts.yaml's text, empty when there is none (the one reader: hosts-file.ts). */
function hostsText(dir: string): string {
  return readHostsText(dir) ?? '';
}

/** Validates new hosts.yaml text; INVALID_ENTRY listing every problem (nothing is written). */
function checkHostsText(text: string): HostRegistry {
  const { registry, problems } = parseHosts(text);
  if (problems.length > 0) throw invalidHostsText(problems);
  return registry;
}

function invalidHostsText(problems: HostProblem[]): KbError {
  return new KbError('INVALID_ENTRY', `hosts.yaml would be invalid, nothing written:\n${formatProblems(problems)}`, { file: HOSTS_FILE, problems });
}

/**
 * hosts.yaml's text before an edit, checked as checkHostsText checks it, its parse kept for the edit. NOTE: an
 * edit checks the text once before and once after (checkHostsText), never more: each check parses the whole file
 * (about a second at 32,000 hosts).
 */
function checkedForEdit(text: string): HostsForEdit {
  const edit = parseHostsForEdit(text);
  if (edit.problems.length > 0) throw invalidHostsText(edit.problems);
  return edit;
}

/** The fact files of a host (`hosts/<key>/*.md`), by name; none in a folder that is a symbolic link (never walked: layout.ts entryDirs). */
function factFiles(dir: string, key: string): string[] {
  if (isLink(path.join(dir, 'hosts')) || isLink(path.join(dir, 'hosts', key))) return [];
  try {
    return fs
      .readdirSync(path.join(dir, 'hosts', key))
      .filter((n) => n.endsWith('.md') && !n.startsWith('.'))
      .sort()
      .map((n) => `hosts/${key}/${n}`);
  } catch {
    return [];
  }
}

function requireKey(key: string): void {
  if (!isValidHostKey(key)) throw new KbError('USAGE', `host key "${key}" must match ^[a-z0-9][a-z0-9_-]{0,63}$ (lowercase letters, digits, _ and -)`);
}

function forbiddenHostError(key: string): KbError {
  return new KbError('FORBIDDEN_HOST', `host "${key}" is forbidden in hosts.yaml: nothing about it is loaded, written or surfaced`, { host: key });
}

// ---------------------------------------------------------------------------------------------------------
// register

export interface RegisterOptions extends RepoOptions {
  key: string;
  markers?: string[];
  aliases?: string[];
  forbidden?: boolean;
  description?: string;
}

export interface RegisterResult {
  key: string;
  created: boolean;
  changed: boolean;
  commit?: string;
  host: HostDef;
}

/** Adds a host to hosts.yaml, or merges markers and aliases into an existing one, and commits. */
export async function registerHost(options: RegisterOptions): Promise<RegisterResult> {
  refuseSecretInputs({ 'the host key': options.key, 'a marker': options.markers, 'an alias': options.aliases, 'the description': options.description });
  requireKey(options.key);
  const markers = splitMarkers(options.markers);
  const aliases = splitList(options.aliases);
  for (const m of [...markers, ...aliases]) {
    const why = markerProblem(m);
    if (why) throw new KbError('USAGE', `marker ${JSON.stringify(m)} ${why}`);
  }
  const { dir } = await repoForWrite(options);
  return withWriteLock(dir, async (tx) => {
    const before = hostsText(dir);
    const edit = checkedForEdit(before);
    if (before) {
      // A host registered as allowed must not carry a name that a forbidden host or a global pattern covers.
      const allowed = !options.forbidden && !edit.registry.hosts.find((h) => h.key === options.key)?.forbidden;
      const hit = !allowed ? undefined : forbiddenMatch(forbiddenMatcher(edit.registry), [options.key, ...aliases, ...markers.filter((m) => !m.startsWith('/'))].join('\n'));
      if (hit) throw new KbError('FORBIDDEN_HOST', `refused: the host's key, an alias or a marker matches ${describeForbidden(hit)}; nothing written (register it with --forbidden to forbid it)`, { hit });
    }
    const existed = before ? edit.registry.hosts.some((h) => h.key === options.key) : false;
    const after = edit.withHost({ key: options.key, markers, aliases, forbidden: options.forbidden, description: options.description });
    const registry = checkHostsText(after);
    const host = registry.hosts.find((h) => h.key === options.key)!;
    if (after === before) return { key: options.key, created: false, changed: false, host };
    refuseSecrets(after, HOSTS_FILE);
    const verb = existed ? 'update' : 'register';
    const commit = await tx.commit([{ path: HOSTS_FILE, content: after }], `host ${options.key}: ${verb}${options.forbidden ? ' (forbidden)' : ''}`);
    return { key: options.key, created: !existed, changed: true, commit, host };
  }, { identity: options.settings });
}

/** Markers as given: repeated flags; a comma splits plain markers but never a /regex/. */
function splitMarkers(values: string[] | undefined): string[] {
  const out: string[] = [];
  for (const v of values ?? []) {
    const t = v.trim();
    if (/^\/.+\/[a-z]*$/s.test(t)) out.push(t);
    else out.push(...t.split(',').map((x) => x.trim()).filter(Boolean));
  }
  return [...new Set(out)];
}

export interface ForbidResult {
  changed: boolean;
  commit?: string;
  /** How many global forbidden patterns hosts.yaml holds now. */
  count: number;
  /** Entry files written before that the new pattern covers: they stay as they are (and in git history) until edited or deleted. */
  mentioned?: string[];
}

/** The entry files whose text `matcher` covers, in path order: what a new forbidden pattern finds already written. */
function entriesCovered(dir: string, matcher: ReturnType<typeof forbiddenMatcher>): string[] {
  const out: string[] = [];
  for (const rel of listEntryPaths(dir)) {
    let text: string;
    try {
      text = readEntryText(dir, rel);
    } catch {
      continue; // unreadable: lint's business
    }
    if (forbiddenMatch(matcher, text)) out.push(rel);
  }
  return out.sort();
}

/** Adds a global forbidden pattern to hosts.yaml and commits. */
export async function forbidPattern(options: RepoOptions & { pattern: string }): Promise<ForbidResult> {
  refuseSecretInputs({ 'the forbidden pattern': options.pattern });
  const why = markerProblem(options.pattern);
  if (why) throw new KbError('USAGE', `forbidden pattern ${why}`);
  const { dir } = await repoForWrite(options);
  return withWriteLock(dir, async (tx) => {
    const before = hostsText(dir);
    const after = checkedForEdit(before).withForbiddenPattern(options.pattern);
    const registry = checkHostsText(after);
    if (after === before) return { changed: false, count: registry.forbiddenPatterns.length };
    const n = registry.forbiddenPatterns.length;
    // NOTE: the commit message never quotes the pattern (it may itself be the name to keep out of the log).
    const commit = await tx.commit([{ path: HOSTS_FILE, content: after }], `hosts: add forbidden pattern #${n}`);
    const mentioned = entriesCovered(dir, forbiddenMatcher({ hosts: [], forbiddenPatterns: registry.forbiddenPatterns.slice(n - 1) }));
    return { changed: true, commit, count: n, ...(mentioned.length ? { mentioned } : {}) };
  }, { identity: options.settings });
}

// ---------------------------------------------------------------------------------------------------------
// add

export interface AddFactOptions extends RepoOptions {
  key: string;
  /** The fact; undefined when none was given at all (USAGE, as add), blank when given empty (INVALID_ENTRY). */
  fact: string | undefined;
  title?: string;
  tags?: string | string[];
  now?: Date;
}

export interface AddFactResult {
  id: string;
  path: string;
  commit: string;
  host: string;
  /** True when the key was not in hosts.yaml and was registered by this commit. */
  registered: boolean;
}

/** A title from a fact: its first non-empty line, cut at 80 characters. */
function factTitle(fact: string): string {
  const line = fact.split('\n').map((l) => l.replace(/^[#>*\-\s]+/, '').trim()).find(Boolean) ?? '';
  return clipText(line, 80);
}

/** What a new host fact is made of. */
export interface FactSpec {
  key: string;
  title: string;
  body: string;
  tags: string[];
  now: Date;
}

function factFields(id: string, f: FactSpec): Record<string, unknown> {
  return { id, title: f.title, type: 'host_fact', tags: f.tags, host: f.key, created: nowStamp(f.now), updated: nowStamp(f.now) };
}

/**
 * The file of a new fact of host `f.key` (whose registration and forbidden flag the caller checked), made inside the
 * write lock: a fresh id not in `ids` (which then holds it), validated. Nothing is written.
 */
export async function newFactFile(ids: Set<string>, f: FactSpec): Promise<{ id: string; path: string; content: string }> {
  const { formatEntry, entryPath } = await import('../core/format/entry.js');
  const { validateEntryText } = await import('./fields.js');
  let id = newId(f.now);
  while (ids.has(id)) id = newId(f.now);
  ids.add(id);
  const fields = factFields(id, f);
  const text = formatEntry(fields, f.body);
  const rel = entryPath(fields as { id: string; title: string; type: string; host: string });
  validateEntryText(text, rel, (x) => ids.has(x));
  return { id, path: rel, content: text };
}

/** Writes one host fact (registering the host when it is new) in one commit. */
export async function addHostFact(options: AddFactOptions): Promise<AddFactResult> {
  refuseSecretInputs({ 'the host key': options.key, 'the title': options.title, 'the tags': options.tags });
  if (options.fact === undefined) throw new KbError('USAGE', 'host add needs the fact: git-kb host add KEY "the fact", --file FILE, or on stdin (nothing came from stdin); nothing was added');
  const body = toLf(options.fact).trim();
  if (!body) throw new KbError('INVALID_ENTRY', 'a host fact needs text: git-kb host add KEY "the fact" (or pipe it on stdin)');
  const title = (options.title ?? factTitle(body)).trim();
  if (!title) throw new KbError('INVALID_ENTRY', 'a host fact needs a title (--title)');
  const tags = splitList(options.tags);
  const { formatEntry } = await import('../core/format/entry.js');
  const now = options.now ?? new Date();
  // Secrets first (never echoed by a later message), then the format, before anything touches the disk.
  const probeKey = isValidHostKey(options.key.toLowerCase()) ? options.key.toLowerCase() : 'host';
  const probe = formatEntry(factFields(newId(now), { key: probeKey, title, body, tags, now }), body);
  refuseSecrets(probe, `hosts/${probeKey}/(new fact)`);
  const { dir } = await repoForWrite(options);
  return withWriteLock(dir, async (tx) => {
    const before = hostsText(dir);
    const { registry, withHost } = checkedForEdit(before);
    const known = findHost(registry, options.key);
    const key = known?.key ?? options.key;
    requireKey(key);
    if (known?.forbidden) throw forbiddenHostError(key);
    // The key too: a fact is stored under hosts/<key>/ and its key goes into hosts.yaml and the commit message.
    const hit = forbiddenMatch(forbiddenMatcher(registry), `${key}\n${title}\n${tags.join(' ')}\n${body}`);
    if (hit) throw new KbError('FORBIDDEN_HOST', `refused: the fact mentions ${describeForbidden(hit)}; nothing written`, { hit });
    const files: PendingFile[] = [];
    let registered = false;
    if (!known) {
      const after = withHost({ key });
      checkHostsText(after);
      files.push({ path: HOSTS_FILE, content: after });
      registered = true;
    }
    const fact = await newFactFile(idSet(dir), { key, title, body, tags, now });
    files.push({ path: fact.path, content: fact.content });
    const commit = await tx.commit(files, `host ${key}: add ${fact.id}: ${title}${registered ? ' (new host)' : ''}`);
    return { id: fact.id, path: fact.path, commit, host: key, registered };
  }, { identity: options.settings });
}

// ---------------------------------------------------------------------------------------------------------
// load, detect, list, status

export interface HostFact {
  id: string;
  title: string;
  path: string;
  updated?: string;
  body: string;
}

export interface LoadResult {
  key: string;
  status: 'loaded' | 'empty' | 'unknown' | 'forbidden';
  facts?: HostFact[];
  /** Facts left out because they name a forbidden host or pattern, or do not parse. */
  withheld?: number;
  /** Not found (an unknown host), or forbidden. */
  exit?: Extract<ErrorCode, 'NOT_FOUND' | 'FORBIDDEN_HOST'>;
}

/** A host's facts, oldest first, or the status that explains why there are none. */
export async function loadHostFacts(options: RepoOptions & { key: string }): Promise<LoadResult> {
  const { dir } = repoForRead(options);
  const registry = await loadHosts(dir);
  const asked = options.key.trim().toLowerCase();
  const host = findHost(registry, asked);
  // NOTE: a forbidden host answers with the sentinel alone: not even the key is echoed back.
  if (host?.forbidden || forbiddenMatch(registry, asked)) return { key: host?.key ?? asked, status: 'forbidden', exit: 'FORBIDDEN_HOST' };
  const key = host?.key ?? asked;
  const files = isValidHostKey(key) ? factFiles(dir, key) : [];
  if (!host && files.length === 0) return { key, status: 'unknown', exit: 'NOT_FOUND' };
  const forbidden = forbiddenMatcher(registry);
  const { parseEntry } = await import('../core/format/entry.js');
  const facts: HostFact[] = [];
  let withheld = 0;
  for (const rel of files) {
    let text: string;
    try {
      text = readEntryText(dir, rel);
    } catch {
      withheld++;
      continue;
    }
    const { entry } = parseEntry(text, rel);
    if (!entry || forbiddenMatch(forbidden, text)) {
      withheld++;
      continue;
    }
    facts.push({ id: entry.id, title: entry.title, path: rel, updated: entry.updated ?? entry.created, body: entry.body.trim() });
  }
  facts.sort((a, b) => ((a.updated ?? '') < (b.updated ?? '') ? -1 : (a.updated ?? '') > (b.updated ?? '') ? 1 : a.id < b.id ? -1 : 1));
  return { key, status: facts.length ? 'loaded' : 'empty', facts, ...(withheld ? { withheld } : {}) };
}

export interface DetectResult {
  hosts: { key: string; facts: number }[];
  /** True when the text names a forbidden host or matches a global forbidden pattern. */
  forbidden: boolean;
}

/** The known hosts a text names, in order of first mention; forbidden ones are only flagged, never named. */
export async function detectHosts(options: RepoOptions & { text: string }): Promise<DetectResult> {
  const { dir } = repoForRead(options);
  const registry = await loadHosts(dir);
  const keys = matchHosts(hostMatcher(registry), options.text);
  return { hosts: keys.map((key) => ({ key, facts: factFiles(dir, key).length })), forbidden: !!forbiddenMatch(registry, options.text) };
}

export interface HostInfo {
  key: string;
  aliases: string[];
  markers: string[];
  forbidden: boolean;
  description?: string;
  facts: number;
  bytes: number;
  /** Newest fact file change (ISO). */
  updated?: string;
  /** True for a folder under hosts/ with no entry in hosts.yaml. */
  unregistered?: boolean;
}

/** Every host of hosts.yaml (and any folder of facts that it lacks), with fact counts and sizes. */
export async function listHosts(options: RepoOptions): Promise<HostInfo[]> {
  const { dir } = repoForRead(options);
  const registry = await loadHosts(dir);
  return hostInfos(dir, registry);
}

function hostInfos(dir: string, registry: HostRegistry): HostInfo[] {
  const out: HostInfo[] = [];
  const stats = (key: string): { facts: number; bytes: number; updated?: string } => {
    let bytes = 0;
    let newest = 0;
    const files = factFiles(dir, key);
    for (const f of files) {
      const st = fs.statSync(path.join(dir, f), { throwIfNoEntry: false });
      if (!st) continue;
      bytes += st.size;
      newest = Math.max(newest, st.mtimeMs);
    }
    return { facts: files.length, bytes, ...(newest ? { updated: new Date(newest).toISOString() } : {}) };
  };
  for (const h of registry.hosts) {
    const base = { key: h.key, aliases: h.aliases, markers: h.markers, forbidden: h.forbidden, ...(h.description ? { description: h.description } : {}) };
    // NOTE: a forbidden host is listed (it is the user's own registry) but its facts are never counted or read.
    out.push(h.forbidden ? { ...base, facts: 0, bytes: 0 } : { ...base, ...stats(h.key) });
  }
  let folders: string[] = [];
  try {
    folders = fs.readdirSync(path.join(dir, 'hosts'), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  } catch {
    /* no hosts/ yet */
  }
  for (const f of folders.sort()) {
    if (registry.hosts.some((h) => h.key === f) || !isValidHostKey(f)) continue;
    out.push({ key: f, aliases: [], markers: [], forbidden: false, ...stats(f), unregistered: true });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : 1));
}

export interface HostStatusResult {
  file: string;
  valid: boolean;
  problems: string[];
  hosts: HostInfo[];
  forbidden_patterns: number;
  facts: number;
  bytes: number;
  /** Set when hosts.yaml does not validate. */
  exit?: Extract<ErrorCode, 'INVALID_ENTRY'>;
}

/** hosts.yaml's health and every host's facts and size; an invalid hosts.yaml is reported, not thrown. */
export async function hostStatus(options: RepoOptions): Promise<HostStatusResult> {
  const { dir } = repoForRead(options);
  const text = hostsText(dir);
  const { registry, problems } = text ? parseHosts(text) : { registry: { hosts: [], forbiddenPatterns: [] }, problems: [] };
  const hosts = hostInfos(dir, registry);
  return {
    file: HOSTS_FILE,
    valid: problems.length === 0,
    problems: problems.map((p) => formatProblems([p])),
    hosts,
    forbidden_patterns: registry.forbiddenPatterns.length,
    facts: hosts.reduce((n, h) => n + h.facts, 0),
    bytes: hosts.reduce((n, h) => n + h.bytes, 0),
    ...(problems.length ? { exit: 'INVALID_ENTRY' as const } : {}),
  };
}
