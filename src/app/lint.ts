/**
 * Contract: `lint` checks the whole data repo: each entry against the format with links resolved, ids claimed
 * twice, and files in the entry folders that are not entries; it re-reads the files that changed since the last
 * lint and carries the others' findings (`all`: re-reads every file). Every problem has a file, a line and a rule
 * (secret-shaped content included, masked); any problem makes the result name LINT_FAILED (the CLI exits with it).
 * The checkers (YAML, the secret rules, the merge code) are loaded only when some file is to be read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { messageWithoutPlace, type ErrorCode } from '../core/errors.js';
import type { Problem } from '../core/format/entry.js';
import { isConflictSibling } from '../core/merge/marks.js';
import { claimedId, entryDirs, fileStat, inRepoDir, linkedEntryFolders, readEntryText, readRootFile, sameStat } from '../adapters/store/layout.js';
import { currentNamesKey, recordableNamesKey } from '../adapters/index/ids.js';
import { readLintState, writeLintState, type LintState } from '../adapters/index/lint-state.js';
import { putStat, recordedStat, unchanged, type FileStat, type StatColumns } from '../adapters/index/stat-table.js';
import { idFromPath } from '../core/format/schema.js';
import { linkedIds } from '../core/format/links.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { linkNames, type LinkNames } from './link-names.js';

/** Findings about a link whose target may come back or be renamed: their files are read again on every run. */
const LINK_RECHECK = new Set(['link-dangling', 'link-stale', 'link-renamed', 'link-unresolved']);

/** The repo's link names (./link-names.ts) from the catalog's titles and aliases. */
async function entryNames(dir: string): Promise<LinkNames> {
  const { loadCatalog } = await import('../adapters/index/catalog.js');
  const catalog = await loadCatalog(dir);
  return linkNames(dir, [...catalog.byId.values()].map((e) => ({ path: e.path, title: e.title, aliases: e.aliases })));
}
import { readHostsText } from '../adapters/store/hosts-file.js';
import { describeForbidden, forbiddenMatch, parseHosts } from '../core/hosts/hosts.js';
import { readRepoSettings } from '../adapters/store/repo-settings.js';
import { KB_JSON_MAX } from '../adapters/system/read-bounded.js';

export interface LintResult {
  files: number;
  problems: Problem[];
  /**
   * Findings that do not fail lint: v1 links `[[kb-0042]]` Obsidian cannot follow (`link-old-form`) and typed
   * links not yet shown in the body (`links-section-missing`); `git-kb relink` fixes both.
   */
  hints: Problem[];
  /** Set when there is any problem. */
  exit?: Extract<ErrorCode, 'LINT_FAILED'>;
}

type Checkers = Awaited<ReturnType<typeof loadCheckers>>;

async function loadCheckers() {
  const [{ parseEntry }, { conflictProblems }, { findSecrets }] = await Promise.all([import('../core/format/entry.js'), import('../core/merge/merge.js'), import('../core/secrets/scan.js')]);
  return { parseEntry, conflictProblems, findSecrets };
}

/** Secret-shaped content of a file (a plain git push can bring one), with its line and a masked preview. */
function secretProblems(c: Checkers, text: string, file: string): Problem[] {
  return c.findSecrets(text).map((f) => ({ rule: 'secret', message: `secret-shaped content (${f.kind}, ${f.preview}) at column ${f.column}: remove it and rotate the secret`, file, line: f.line }));
}


/**
 * One entry file's own problems (format, links against `ids` and their paths, conflict blocks, secrets), its
 * hints, and the ids it links to (front matter and body).
 */
function checkFile(c: Checkers, dir: string, rel: string, ids: Map<string, string[]>, names?: LinkNames): { problems: Problem[]; hints: Problem[]; links: string[] } {
  let text: string;
  try {
    text = readEntryText(dir, rel);
  } catch (err) {
    const e = err as { message: string; data?: { line?: number } };
    return { problems: [{ rule: 'unreadable', message: messageWithoutPlace(e), file: rel, line: e.data?.line ?? 1 }], hints: [], links: [] };
  }
  const pathOf = (id: string): string | undefined => {
    const l = ids.get(id);
    return l && l.length === 1 ? l[0] : undefined;
  };
  const parsed = c.parseEntry(text, rel, { idExists: (id) => ids.has(id), pathOf, ...(names ? { unresolvedTarget: names.unresolved } : {}) });
  const links = parsed.entry ? [...parsed.entry.links.map((l) => l.to), ...linkedIds(parsed.entry.body)] : [];
  return { problems: [...parsed.problems, ...c.conflictProblems(text, rel), ...secretProblems(c, text, rel)], hints: parsed.hints, links };
}

/**
 * The entry folders' files now (entries and strays), folder by folder, by name. A symbolic link or a name of
 * unknown kind is stat'ed to tell a folder from a file.
 */
function listFolders(dir: string): string[] {
  const all: string[] = [];
  for (const d of entryDirs(dir)) {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(`${dir}/${d}`, { withFileTypes: true });
    } catch {
      continue; // vanished between the listing and now
    }
    names.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    for (const n of names) {
      if (n.name.startsWith('.')) continue;
      const rel = `${d}/${n.name}`;
      if (n.isDirectory() || (!n.isFile() && !fileStat(`${dir}/${rel}`))) continue; // as listEntryFiles lists
      all.push(rel);
    }
  }
  return all;
}

/**
 * When every re-read file's findings and links are the recorded ones (the common edit: prose that lint has
 * nothing to say about), writes their new stat data into the state file in place and returns true; else false,
 * and the caller writes the state whole. Under the recorded names only (`all` is the table's paths).
 */
function recordInPlace(state: LintState, all: readonly string[], toCheck: Set<string>, statOf: Map<string, FileStat>, own: Map<string, Problem[]>, linksOf: Map<string, string[]>): boolean {
  const was = new Map<string, Set<string>>();
  for (const rel of toCheck) {
    if (!statOf.has(rel)) return false; // vanished while read
    was.set(rel, new Set());
  }
  for (const [to, from] of state.links) for (const f of from) was.get(f)?.add(to);
  for (const rel of toCheck) {
    if (JSON.stringify(own.get(rel) ?? []) !== JSON.stringify(state.problems.get(rel) ?? [])) return false;
    const now = new Set(linksOf.get(rel));
    const before = was.get(rel)!;
    if (now.size !== before.size || [...now].some((to) => !before.has(to))) return false;
  }
  const at = new Map<string, number>();
  all.forEach((rel, n) => {
    if (toCheck.has(rel)) at.set(rel, n);
  });
  for (const rel of toCheck) {
    const i = at.get(rel)!;
    const st = statOf.get(rel)!;
    if (!sameStat(st, recordedStat(state.table, i)) && !state.patch(i, st)) return false;
  }
  return true;
}

/**
 * Lints the data repo (findings are data, not thrown: the result names LINT_FAILED when there are any). Only
 * what changed since the last lint is re-read (adapters/index/lint-state.ts), unless `all`; the findings are the
 * same either way: a file's own findings are a function of its bytes and of which ids exist, and the files whose
 * links an id change could touch are re-read.
 */
export async function lintRepo(options: RepoOptions & { all?: boolean }): Promise<LintResult> {
  const { dir } = repoForRead(options);
  const namesKey = currentNamesKey(dir); // before the listing: a change made meanwhile leaves a key that differs
  const recordKey = recordableNamesKey(dir); // what the state may carry (never matching while a folder just changed)
  const state = options.all ? undefined : readLintState(dir);
  try {
    return await lintWith(dir, state, namesKey, recordKey);
  } finally {
    state?.close();
  }
}

/** lintRepo's work, given the state read (open until lintRepo closes it) and the names keys taken before. */
async function lintWith(dir: string, state: LintState | undefined, namesKey: string, recordKey: string): Promise<LintResult> {
  const base = `${dir}/`;
  const table = state?.table;
  // The names: the recorded ones while the folders hold the same names, else a listing.
  const sameNames = table?.header.namesKey === namesKey;
  const all = sameNames ? table!.paths : listFolders(dir);
  const isEntryName = (rel: string): boolean => rel.endsWith('.md');
  const ids = new Map<string, string[]>();
  for (const rel of all) {
    if (!isEntryName(rel)) continue;
    const id = claimedId(dir, rel); // the name's id, else the front matter's (a copy named otherwise)
    if (!id) continue;
    const list = ids.get(id);
    if (list) list.push(rel);
    else ids.set(id, [rel]);
  }
  // Which files to read: all without a state; else the new, the changed, those linking an id now gone or now in
  // another file (a link's form is judged against the target's file name), and those whose recorded findings
  // name a dangling or stale link (its target may be back).
  const recorded = new Map<string, number>();
  if (table && !sameNames) table.paths.forEach((p, i) => recorded.set(p, i));
  const toCheck = new Set<string>();
  inRepoDir(dir, (at) =>
    all.forEach((rel, n) => {
      if (!isEntryName(rel)) return;
      const i = sameNames ? n : recorded.get(rel);
      if (i === undefined || !unchanged(at, table!, i)) toCheck.add(rel);
    }),
  );
  if (state) {
    const before = new Map<string, string>();
    if (!sameNames) {
      for (const rel of table!.paths) {
        const id = idFromPath(rel);
        if (id) before.set(id, before.has(id) ? `${before.get(id)}|${rel}` : rel);
      }
    }
    const moved = (id: string): boolean => !sameNames && before.get(id) !== ids.get(id)?.join('|');
    for (const [id, from] of state.links) if (!ids.has(id) || moved(id)) for (const f of from) toCheck.add(f);
    for (const [rel, found] of state.problems) if (found.some((p) => LINK_RECHECK.has(p.rule))) toCheck.add(rel);
  }
  const hostsYaml = path.join(dir, 'hosts.yaml');
  const hasHosts = fs.existsSync(hostsYaml);
  const checkers = toCheck.size > 0 || hasHosts ? await loadCheckers() : undefined;
  // Links that are not ids are judged against every file of the repo and the entries' titles and aliases.
  const names = toCheck.size > 0 ? await entryNames(dir) : undefined;
  const problems: Problem[] = [];
  for (const folder of linkedEntryFolders(dir)) {
    problems.push({ rule: 'unreadable', message: `${folder} is a symbolic link; entries are read only from real folders inside the data repo, so nothing in it is listed or read (replace it with a folder)`, file: folder, line: 1 });
  }
  const hints: Problem[] = [];
  // A file's findings as recorded: its problems and its hints (marked), which never fail lint.
  const own = new Map<string, (Problem & { hint?: true })[]>();
  const linksOf = new Map<string, string[]>();
  const statOf = new Map<string, FileStat>();
  for (const rel of all) {
    if (!isEntryName(rel)) {
      problems.push({ rule: 'stray-file', message: `${rel.slice(rel.lastIndexOf('/') + 1)} is not an entry file (entries are <id>-<slug>.md)`, file: rel, line: 1 });
      continue;
    }
    if (!toCheck.has(rel)) {
      const kept = state!.problems.get(rel) as (Problem & { hint?: true })[] | undefined;
      if (kept) {
        for (const { hint, ...p } of kept) (hint ? hints : problems).push(p);
        own.set(rel, kept);
      }
      continue;
    }
    const st = fileStat(base + rel); // before the read: a later change is re-read
    if (st) statOf.set(rel, { path: rel, ...st });
    const r = checkFile(checkers!, dir, rel, ids, names);
    // NOTE: no spread: one file may hold 130,000 link problems, more arguments than the stack takes.
    for (const p of r.problems) problems.push(p);
    for (const h of r.hints) hints.push(h);
    if (r.problems.length || r.hints.length) own.set(rel, [...r.problems, ...r.hints.map((h) => ({ ...h, hint: true as const }))]);
    linksOf.set(rel, r.links);
  }
  if (hasHosts) {
    let text: string | undefined;
    try {
      text = readHostsText(dir);
    } catch (err) {
      problems.push({ rule: 'unreadable', message: (err as Error).message, file: 'hosts.yaml', line: 1 });
    }
    if (text !== undefined) problems.push(...secretProblems(checkers!, text, 'hosts.yaml'), ...hostsProblems(text));
  }
  problems.push(...manifestProblems(dir));
  // Sync conflicts in files that are not entries keep theirs beside ours (spec/sync.md).
  for (const name of fs.readdirSync(dir).sort()) {
    if (isConflictSibling(name)) problems.push({ rule: 'conflict-unresolved', message: `sync conflict: ${name} holds the other version of ${name.replace(/\.conflict-[0-9a-f]{8}$/, '')}; settle it with "git-kb resolve ${name} --keep ours|theirs"`, file: name, line: 1 });
  }
  for (const [id, list] of ids) {
    if (list.length > 1) for (const f of list) problems.push({ rule: 'id-duplicate', message: `id ${id} is claimed by ${list.length} files: ${list.join(', ')}`, file: f, line: 2, id });
  }
  if (sameNames && toCheck.size > 0 && recordKey === namesKey && recordInPlace(state!, all, toCheck, statOf, own, linksOf)) {
    // recorded in place: the re-read files' new stat data, nothing else moved
  } else if (!(sameNames && toCheck.size === 0)) {
    // Record what was read, so the next lint reads only what changes from here. A file that vanished while it was
    // being read has no stat data and is left out (the next lint lists it as new, or not at all).
    let files: FileStat[] | StatColumns;
    let present: (rel: string) => boolean;
    const vanished = [...toCheck].filter((rel) => !statOf.has(rel));
    if (sameNames && vanished.length === 0) {
      // NOTE: the same names as recorded, none gone: the recorded columns with the re-read files' stat data put
      // in, not one record per file (this runs after every change, over every entry).
      const stats = Float64Array.from(table!.stats);
      all.forEach((rel, n) => {
        const f = toCheck.has(rel) ? statOf.get(rel) : undefined;
        if (f) putStat(stats, n, f);
      });
      files = { paths: all, stats };
      present = () => true; // every recorded link and finding is from a file of the table
    } else {
      const list: FileStat[] = [];
      all.forEach((rel, n) => {
        const fresh = statOf.get(rel);
        if (fresh) list.push(fresh);
        else if (!toCheck.has(rel)) {
          const i = sameNames ? n : recorded.get(rel);
          if (i === undefined || !table) {
            const st = fileStat(base + rel); // a stray file, first seen
            if (st) list.push({ path: rel, ...st });
            return;
          }
          list.push({ path: rel, ...recordedStat(table, i) });
        }
      });
      const kept = new Set(list.map((f) => f.path));
      files = list;
      present = (rel) => kept.has(rel);
    }
    const links = new Map<string, string[]>();
    const add = (to: string, from: string): void => {
      const l = links.get(to);
      if (l) l.push(from);
      else links.set(to, [from]);
    };
    for (const [to, from] of state?.links ?? []) for (const f of from) if (!linksOf.has(f) && present(f)) add(to, f);
    for (const [from, tos] of linksOf) if (present(from)) for (const to of new Set(tos)) add(to, from);
    writeLintState(dir, recordKey, files, links, new Map([...own].filter(([rel]) => present(rel))));
  }
  return { files: all.length, problems, hints, ...(problems.length ? { exit: 'LINT_FAILED' as const } : {}) };
}

/**
 * hosts.yaml's problems: what every reader of it refuses (parseHosts: malformed YAML, a field of the wrong shape,
 * at its line), and hosts not marked forbidden whose key or an alias matches a forbidden host or a global forbidden
 * pattern (registered before the pattern was added; `host register` and `host add` refuse such names now). The
 * message names the pattern by number, never the name (spec/hosts.md).
 */
function hostsProblems(text: string): Problem[] {
  const { registry, problems } = parseHosts(text);
  if (problems.length) return problems;
  const out: Problem[] = [];
  for (const h of registry.hosts) {
    if (h.forbidden) continue;
    const hit = forbiddenMatch(registry, [h.key, ...h.aliases].join('\n'));
    if (hit) out.push({ rule: 'host-forbidden-name', message: `a host not marked forbidden has a key or alias that matches ${describeForbidden(hit)}: mark it "forbidden: true", or remove it and its facts`, file: 'hosts.yaml', line: h.line });
  }
  return out;
}

/**
 * kb.json as every reader of it takes it: JSON, an object, and settings the memory and search readers accept
 * (adapters/store/repo-settings.ts, the one reader). A missing kb.json is the data repo check's business.
 */
export function manifestProblems(dir: string): Problem[] {
  const file = 'kb.json';
  let text: string;
  try {
    text = readRootFile(dir, file, KB_JSON_MAX).toString('utf8');
  } catch (err) {
    return (err as { code?: string }).code !== 'NOT_FOUND' ? [{ rule: 'kb-json', message: (err as Error).message, file, line: 1 }] : [];
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    // V8 names the offset ("... at position 23"), or none at the end of the text.
    const at = /position (\d+)/.exec((err as Error).message);
    const line = at ? text.slice(0, Number(at[1])).split('\n').length : text.replace(/\s+$/, '').split('\n').length;
    return [{ rule: 'kb-json', message: `kb.json is not valid JSON: ${(err as Error).message}; restore it with "git -C ${dir} checkout kb.json" or fix it`, file, line }];
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [{ rule: 'kb-json', message: 'kb.json must be a JSON object like {"schema_version": 2}', file, line: 1 }];
  try {
    readRepoSettings(dir);
  } catch (err) {
    const field = String((err as { data?: { field?: unknown } }).data?.field ?? '');
    const key = field.split('.').at(-1);
    const at = key ? text.indexOf(`"${key}"`) : -1;
    return [{ rule: 'kb-json', message: (err as Error).message, file, line: at < 0 ? 1 : text.slice(0, at).split('\n').length }];
  }
  return [];
}
