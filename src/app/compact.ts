/**
 * Contract: `compact check` and `compact rollback` (spec/memory.md). A target is an entry id, `kernel` (the kernel
 * entries, oldest first, each under a `# <id>` header) or `host:KEY` (that host's facts, likewise); its text is
 * the entry bodies (front matter is not compacted). `check` grades the text now against the text at a baseline
 * revision (src/core/compact/grade.ts), appends one row to the ledger, and after the second failed round for the
 * same target and baseline puts the baseline back itself; a FLOOR verdict records the target's size, so the Stop hook
 * does not ask for it again until it grows. `rollback` restores every file of the target, byte for
 * byte, to the baseline revision as one new commit through the write transaction.
 */
import { closest } from '../core/text/suggest.js';
import { resolveRevision, readFileAt } from '../adapters/git/git.js';
import { appendCompactLedger, readCompactLedger, recordFloorSize } from '../adapters/index/compact-ledger.js';
import { loadCatalog, type EntryMeta } from '../adapters/index/catalog.js';
import { readEntryText } from '../adapters/store/layout.js';
import { refuseSecrets, withWriteLock } from '../adapters/write/transaction.js';
import { COMPACT_DIRECTIVE, gradeCompaction, type GradeResult } from '../core/compact/grade.js';
import { KbError } from '../core/errors.js';
import { splitEntry } from '../core/format/entry.js';
import { validateEntryText } from './fields.js';
import { idSet } from './find.js';
import { refuseForbidden } from './guard.js';
import { repoForRead, type RepoOptions } from './repo.js';

/** Failed rounds after which `check` restores the baseline itself. */
export const MAX_ROUNDS = 2;

export interface CompactOptions extends RepoOptions {
  target: string;
  baseline: string;
  targetChars?: number;
  floorChars?: number;
  now?: Date;
}

export interface CompactCheckResult extends GradeResult {
  target: string;
  baseline_rev: string;
  directive: string;
  round: number;
  /** Failed rounds so far for this target and baseline, this one included. */
  failed_rounds: number;
  /** Set when this round put the baseline back (the second failed round). */
  rolled_back?: RollbackResult;
}

export interface RollbackResult {
  target: string;
  baseline_rev: string;
  paths: string[];
  commit?: string;
  changed: boolean;
}

interface TargetFile {
  id: string;
  path: string;
  /** Its body's length now, as the budgets measure it. */
  chars: number;
}

/** The files a target names, in the order their texts are joined. */
async function targetFiles(dir: string, target: string): Promise<{ files: TargetFile[]; joined: boolean }> {
  const catalog = await loadCatalog(dir);
  const oldest = (a: EntryMeta, b: EntryMeta): number => ((a.created ?? '') < (b.created ?? '') ? -1 : (a.created ?? '') > (b.created ?? '') ? 1 : a.id < b.id ? -1 : 1);
  const file = (e: EntryMeta): TargetFile => ({ id: e.id, path: e.path, chars: e.bodyLength });
  const pick = (keep: (e: EntryMeta) => boolean): TargetFile[] => [...catalog.byId.values()].filter(keep).sort(oldest).map(file);
  if (target === 'kernel') return { files: pick((e) => e.kernel), joined: true };
  if (target.startsWith('host:')) {
    const key = target.slice(5).toLowerCase();
    if (!key) throw new KbError('USAGE', 'host:KEY needs a host key, e.g. host:build-box');
    return { files: pick((e) => e.host === key), joined: true };
  }
  const e = catalog.byId.get(target);
  if (!e) {
    const near = /^kb-/.test(target) ? undefined : closest(target, ['kernel']);
    throw new KbError('NOT_FOUND', `no entry ${target}: a compaction target is an entry id, "kernel" or "host:KEY"${near ? `; did you mean "${near}"?` : ''}`);
  }
  return { files: [file(e)], joined: false };
}

function bodyOf(text: string, file: string): string {
  return splitEntry(text, file).body;
}

/** The target's text from each file's text (undefined when no file has one). */
function joinTexts(files: TargetFile[], texts: (string | undefined)[], joined: boolean): string | undefined {
  const parts: string[] = [];
  files.forEach((f, i) => {
    const t = texts[i];
    if (t === undefined) return;
    const body = bodyOf(t, f.path).trimEnd();
    parts.push(joined ? `# ${f.id}\n\n${body}` : body);
  });
  return parts.length ? parts.join('\n\n') : undefined;
}

async function baselineTexts(dir: string, rev: string, files: TargetFile[]): Promise<(string | undefined)[]> {
  return Promise.all(files.map(async (f) => (await readFileAt(dir, rev, f.path))?.toString('utf8')));
}

/** Grades the target now against its baseline, records the round, and rolls back after the last failed round. */
export async function compactCheck(options: CompactOptions): Promise<CompactCheckResult> {
  const { dir } = repoForRead(options);
  const rev = await resolveRevision(dir, options.baseline);
  const { files, joined } = await targetFiles(dir, options.target);
  const baseline = joinTexts(files, await baselineTexts(dir, rev, files), joined);
  const current = joinTexts(files, files.map((f) => readEntryText(dir, f.path)), joined) ?? '';
  const grade = gradeCompaction({ baseline, current, target: options.targetChars, floor: options.floorChars });
  const earlier = readCompactLedger(dir).filter((r) => r.target === options.target && r.baseline === rev);
  const round = earlier.length + 1;
  const failed = earlier.filter((r) => r.verdict === 'DEFECTS').length + (grade.verdict === 'DEFECTS' ? 1 : 0);
  let rolledBack: RollbackResult | undefined;
  if (grade.verdict === 'DEFECTS' && failed >= MAX_ROUNDS) rolledBack = await compactRollback(options);
  // Nothing legal is left to cut: the Stop hook asks about this target again only once it grows past this size.
  if (grade.verdict === 'FLOOR') recordFloorSize(dir, options.target, files.reduce((n, f) => n + f.chars, 0));
  appendCompactLedger(dir, {
    at: (options.now ?? new Date()).toISOString(),
    directive: COMPACT_DIRECTIVE,
    target: options.target,
    baseline: rev,
    baseline_chars: grade.baseline_chars,
    current_chars: grade.current_chars,
    verdict: grade.verdict,
    round,
    defects: grade.defects.length,
    ...(rolledBack?.commit ? { rolled_back: rolledBack.commit } : {}),
  });
  return { ...grade, target: options.target, baseline_rev: rev, directive: COMPACT_DIRECTIVE, round, failed_rounds: failed, ...(rolledBack ? { rolled_back: rolledBack } : {}) };
}

/** Restores every file of the target that existed at the baseline to its exact bytes there, in one commit. */
export async function compactRollback(options: CompactOptions): Promise<RollbackResult> {
  const { dir } = repoForRead(options);
  const rev = await resolveRevision(dir, options.baseline);
  return withWriteLock(dir, async (tx) => {
    const { files } = await targetFiles(dir, options.target);
    const old = await baselineTexts(dir, rev, files);
    const ids = idSet(dir);
    const changes: { path: string; content: string }[] = [];
    for (const [i, f] of files.entries()) {
      const text = old[i];
      if (text === undefined || text === readEntryText(dir, f.path)) continue;
      validateEntryText(text, f.path, (x) => ids.has(x));
      refuseSecrets(text, f.path);
      changes.push({ path: f.path, content: text });
    }
    if (!changes.length) return { target: options.target, baseline_rev: rev, paths: [], changed: false };
    await refuseForbidden(dir, changes.map((c) => ({ text: c.content, where: c.path })));
    const commit = await tx.commit(changes, `compact rollback ${options.target} to ${rev.slice(0, 12)}`);
    return { target: options.target, baseline_rev: rev, paths: changes.map((c) => c.path), commit, changed: true };
  }, { identity: options.settings });
}
