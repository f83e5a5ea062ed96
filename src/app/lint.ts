/**
 * Contract: `lint` checks the whole data repo, re-reading every file (not the cache): each entry against the
 * format with links resolved, ids claimed twice, and files in the entry folders that are not entries. Every
 * problem has a file, a line and a rule (secret-shaped content included, masked); any problem makes the result name LINT_FAILED (the CLI exits with it).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ErrorCode } from '../core/errors.js';
import { parseEntry, type Problem } from '../core/format/entry.js';
import { conflictProblems, isConflictSibling } from '../core/merge/merge.js';
import { entryDirs, readEntryText } from '../adapters/store/layout.js';
import { statSig } from '../adapters/index/fresh.js';
import { currentNamesKey } from '../adapters/index/ids.js';
import { readLintState, writeLintState } from '../adapters/index/lint-state.js';
import { unchanged, type FileStat } from '../adapters/index/stat-table.js';
import { idFromFileName } from '../core/format/schema.js';
import { findSecrets } from '../core/secrets/scan.js';
import { repoForRead, type RepoOptions } from './repo.js';

export interface LintResult {
  files: number;
  problems: Problem[];
  /** Set when there is any problem. */
  exit?: Extract<ErrorCode, 'LINT_FAILED'>;
}

/** Secret-shaped content of a file (a plain git push can bring one), with its line and a masked preview. */
function secretProblems(text: string, file: string): Problem[] {
  return findSecrets(text).map((f) => ({ rule: 'secret', message: `secret-shaped content (${f.kind}, ${f.preview}) at column ${f.column}: remove it and rotate the secret`, file, line: f.line }));
}

/** One entry file's own problems (format, links against `ids`, conflict blocks, secrets) and the ids it links to. */
function checkFile(dir: string, rel: string, ids: Map<string, unknown>): { problems: Problem[]; links: string[] } {
  let text: string;
  try {
    text = readEntryText(dir, rel);
  } catch (err) {
    const e = err as { message: string; data?: { line?: number } };
    return { problems: [{ rule: 'unreadable', message: e.message.replace(/^[^:]+:\d+: /, ''), file: rel, line: e.data?.line ?? 1 }], links: [] };
  }
  const parsed = parseEntry(text, rel, { idExists: (id) => ids.has(id) });
  return { problems: [...parsed.problems, ...conflictProblems(text, rel), ...secretProblems(text, rel)], links: parsed.entry?.links.map((l) => l.to) ?? [] };
}

/**
 * The entry folders' files now: the `.md` paths in listing order, the stray ones, and the count of files. A
 * symbolic link or a name of unknown kind is stat'ed to tell a folder from a file.
 */
function listFolders(dir: string): { all: string[]; md: string[]; stray: Set<string> } {
  const all: string[] = [];
  const md: string[] = [];
  const stray = new Set<string>();
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
      if (n.isDirectory() || (!n.isFile() && fs.statSync(`${dir}/${rel}`, { throwIfNoEntry: false })?.isDirectory())) continue;
      all.push(rel);
      if (n.name.endsWith('.md')) md.push(rel);
      else stray.add(rel);
    }
  }
  return { all, md, stray };
}

/**
 * Lints the data repo (findings are data, not thrown: the result names LINT_FAILED when there are any). Only
 * what changed since the last clean lint is re-read (adapters/index/lint-state.ts), unless `all`; the findings
 * are the same either way, since a clean lint found nothing in the files it leaves alone.
 */
export function lintRepo(options: RepoOptions & { all?: boolean }): LintResult {
  const { dir } = repoForRead(options);
  const base = `${dir}/`;
  const namesKey = currentNamesKey(dir); // before the listing: a change made meanwhile leaves a key that differs
  const hostsSig = statSig(path.join(dir, 'hosts.yaml'));
  const state = options.all ? undefined : readLintState(dir);
  const table = state?.table;
  // The names: the recorded ones while the folders hold the same names (a clean lint had no stray files).
  const sameNames = table?.header.namesKey === namesKey;
  const listing = sameNames ? { all: table!.paths, md: table!.paths, stray: new Set<string>() } : listFolders(dir);
  const ids = new Map<string, string[]>();
  for (const rel of listing.md) {
    const id = idFromFileName(rel.slice(rel.lastIndexOf('/') + 1));
    if (!id) continue;
    const list = ids.get(id);
    if (list) list.push(rel);
    else ids.set(id, [rel]);
  }
  // Which files to read: all without a state; else the new, the changed, and those linking an id now gone.
  const recorded = new Map<string, number>();
  table?.paths.forEach((p, i) => recorded.set(p, i));
  const toCheck = new Set<string>();
  listing.md.forEach((rel, n) => {
    const i = sameNames ? n : recorded.get(rel);
    if (i === undefined || !unchanged(base, table!, i)) toCheck.add(rel);
  });
  if (state && table) {
    for (const [id, from] of state.links) if (!ids.has(id)) for (const f of from) if (recorded.has(f)) toCheck.add(f);
  }
  const problems: Problem[] = [];
  const linksOf = new Map<string, string[]>();
  const statOf = new Map<string, FileStat>();
  for (const rel of listing.all) {
    if (listing.stray.has(rel)) {
      problems.push({ rule: 'stray-file', message: `${rel.slice(rel.lastIndexOf('/') + 1)} is not an entry file (entries are <id>-<slug>.md)`, file: rel, line: 1 });
      continue;
    }
    if (!toCheck.has(rel)) continue;
    const st = fs.statSync(base + rel, { throwIfNoEntry: false }); // before the read: a later change is re-checked
    if (st) statOf.set(rel, { path: rel, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, size: st.size, ino: st.ino });
    const r = checkFile(dir, rel, ids);
    problems.push(...r.problems);
    linksOf.set(rel, r.links);
  }
  const hostsYaml = path.join(dir, 'hosts.yaml');
  if ((!state || hostsSig !== table!.header.hosts) && fs.existsSync(hostsYaml)) problems.push(...secretProblems(fs.readFileSync(hostsYaml, 'utf8'), 'hosts.yaml'));
  // Sync conflicts in files that are not entries keep theirs beside ours (spec/sync.md).
  for (const name of fs.readdirSync(dir).sort()) {
    if (isConflictSibling(name)) problems.push({ rule: 'conflict-unresolved', message: `sync conflict: ${name} holds the other version of ${name.replace(/\.conflict-[0-9a-f]{8}$/, '')}; settle it with "git-kb resolve ${name} --keep ours|theirs"`, file: name, line: 1 });
  }
  for (const [id, list] of ids) {
    if (list.length > 1) for (const f of list) problems.push({ rule: 'id-duplicate', message: `id ${id} is claimed by ${list.length} files: ${list.join(', ')}`, file: f, line: 2, id });
  }
  if (problems.length === 0) {
    // Clean: record what was checked, so the next lint reads only what changes from here.
    const files: FileStat[] = listing.md.map((rel) => {
      const fresh = statOf.get(rel);
      if (fresh) return fresh;
      const i = recorded.get(rel)!;
      const s = table!.stats;
      return { path: rel, mtimeMs: s[i * 4]!, ctimeMs: s[i * 4 + 1]!, size: s[i * 4 + 2]!, ino: s[i * 4 + 3]! };
    });
    const links = new Map<string, string[]>();
    const add = (to: string, from: string): void => {
      const l = links.get(to);
      if (l) l.push(from);
      else links.set(to, [from]);
    };
    const present = new Set(listing.md);
    for (const [to, from] of state?.links ?? []) for (const f of from) if (!linksOf.has(f) && ids.has(to) && present.has(f)) add(to, f);
    for (const [from, tos] of linksOf) for (const to of new Set(tos)) add(to, from);
    writeLintState(dir, { namesKey, hosts: hostsSig }, files, links);
  }
  return { files: listing.all.length, problems, ...(problems.length ? { exit: 'LINT_FAILED' as const } : {}) };
}
