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
import { entryFolderNames, readEntryText } from '../adapters/store/layout.js';
import { findSecrets } from '../core/secrets/scan.js';
import { filesById, pathLookup } from './find.js';
import { repoForRead, type RepoOptions } from './repo.js';

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

/** Secret-shaped content of a file (a plain git push can bring one), with its line and a masked preview. */
function secretProblems(text: string, file: string): Problem[] {
  return findSecrets(text).map((f) => ({ rule: 'secret', message: `secret-shaped content (${f.kind}, ${f.preview}) at column ${f.column}: remove it and rotate the secret`, file, line: f.line }));
}

/** Lints the data repo (findings are data, not thrown: the result names LINT_FAILED when there are any). */
export function lintRepo(options: RepoOptions): LintResult {
  const { dir } = repoForRead(options);
  const ids = filesById(dir);
  const problems: Problem[] = [];
  const hints: Problem[] = [];
  const pathOf = pathLookup(ids);
  let files = 0;
  for (const { folder: d, names } of entryFolderNames(dir)) {
    for (const name of names) {
      const rel = `${d}/${name}`;
      if (name.startsWith('.')) continue;
      if (fs.statSync(path.join(dir, rel)).isDirectory()) continue;
      files++;
      if (!name.endsWith('.md')) {
        problems.push({ rule: 'stray-file', message: `${name} is not an entry file (entries are <id>-<slug>.md)`, file: rel, line: 1 });
        continue;
      }
      let text: string;
      try {
        text = readEntryText(dir, rel);
      } catch (err) {
        const e = err as { message: string; data?: { line?: number } };
        problems.push({ rule: 'unreadable', message: e.message.replace(/^[^:]+:\d+: /, ''), file: rel, line: e.data?.line ?? 1 });
        continue;
      }
      const parsed = parseEntry(text, rel, { idExists: (id) => ids.has(id), pathOf });
      problems.push(...parsed.problems);
      hints.push(...parsed.hints);
      problems.push(...conflictProblems(text, rel));
      problems.push(...secretProblems(text, rel));
    }
  }
  const hostsYaml = path.join(dir, 'hosts.yaml');
  if (fs.existsSync(hostsYaml)) problems.push(...secretProblems(fs.readFileSync(hostsYaml, 'utf8'), 'hosts.yaml'));
  // Sync conflicts in files that are not entries keep theirs beside ours (spec/sync.md).
  for (const name of fs.readdirSync(dir).sort()) {
    if (isConflictSibling(name)) problems.push({ rule: 'conflict-unresolved', message: `sync conflict: ${name} holds the other version of ${name.replace(/\.conflict-[0-9a-f]{8}$/, '')}; settle it with "git-kb resolve ${name} --keep ours|theirs"`, file: name, line: 1 });
  }
  for (const [id, list] of ids) {
    if (list.length > 1) for (const f of list) problems.push({ rule: 'id-duplicate', message: `id ${id} is claimed by ${list.length} files: ${list.map((x) => x.path).join(', ')}`, file: f.path, line: 2, id });
  }
  return { files, problems, hints, ...(problems.length ? { exit: 'LINT_FAILED' as const } : {}) };
}
