/**
 * Contract: `add` validates a new entry completely (format, links, secrets) before writing, then writes it and
 * commits it in one commit under the write lock, and returns its id, path and commit.
 */
import { aliasesWith } from '../core/format/meta.js';
import { isV1Repo } from '../adapters/store/layout.js';
import { entryPath, formatEntry, newId, type Rule } from '../core/format/entry.js';
import { needsBody } from '../core/format/schema.js';
import { KbError } from '../core/errors.js';
import { filesById, idIndex, pathLookup, titleLookup, type IdIndex } from './find.js';
import { writtenBody } from '../core/format/links.js';
import { activityList, nowStamp, oneLineTitle, parseLinks, parseRules, splitList, tagList, validateEntryText } from './fields.js';
import { repoForWrite, type RepoOptions } from './repo.js';
import { refuseForbidden } from './guard.js';
import { refuseSecretInputs, refuseSecrets, withWriteLock } from '../adapters/write/transaction.js';
import type { EntryOverBudget, KernelOverBudget } from './memory.js';

export interface AddOptions extends RepoOptions {
  type: string;
  title: string;
  /** The body; undefined when none was given at all (USAGE), blank when given empty (INVALID_ENTRY). */
  body?: string;
  /** Where the body came from, for the message refusing a blank one (`--file notes.md`); default "the body". */
  bodyFrom?: string;
  tags?: string | string[];
  links?: string[];
  url?: string;
  appliesTo?: string | string[];
  kernel?: boolean;
  host?: string;
  aliases?: string | string[];
  /** The lesson's pattern key: when an entry has it already, the recurrence is recorded there instead. */
  patternKey?: string;
  /** Deterministic prose rules of a kernel entry (spec/entry-format.md, `rules`), as MCP gives them. */
  rules?: Rule[];
  /** More rules, as `--rule` takes them (`PATTERN => MESSAGE`; app/fields.ts, parseRules). */
  ruleArgs?: string[];
  /** Extra front matter fields (session summaries, rules...). */
  extra?: Record<string, unknown>;
  now?: Date;
}

export interface AddResult {
  id: string;
  path: string;
  commit: string;
  /** With a pattern key: whether an existing entry took the recurrence, and how many times it was seen. */
  recurred?: boolean;
  count?: number;
  /** Set when this kernel entry put the kernel over its budget (spec/memory.md, "Budgets"). */
  kernel_over?: KernelOverBudget;
  /** Set when the entry's body is over its type's budget (the Stop hook will ask to compact it). */
  entry_over?: EntryOverBudget;
}

/** The front matter of a new entry of `options`. */
function entryFields(options: AddOptions, id: string, tags: string[], stamp: string): Record<string, unknown> {
  const rules = [...(options.rules ?? []), ...parseRules(options.ruleArgs)];
  return {
    id,
    title: options.title.trim(),
    type: options.type,
    tags,
    // The title is an alias too: Obsidian's quick switcher and link suggestions then find the entry by it.
    aliases: aliasesWith(splitList(options.aliases), [options.title]),
    links: parseLinks(options.links),
    url: options.url,
    host: options.host,
    applies_to: activityList(options.appliesTo),
    kernel: options.kernel === true ? true : undefined,
    pattern_key: options.patternKey,
    rules: rules.length ? rules : undefined,
    ...(options.extra ?? {}),
    created: stamp,
    updated: stamp,
  };
}

/**
 * The file of a new entry, made inside the write lock: a fresh id (one neither in `ids` nor in `minted`, which then
 * holds it, so several entries of one commit never share one), links in written form, validated and checked for
 * forbidden hosts. Nothing is written.
 */
export async function newEntryFile(dir: string, ids: Pick<IdIndex, 'has' | 'pathOf'>, options: AddOptions, now: Date, minted = new Set<string>()): Promise<{ id: string; path: string; content: string }> {
  // Links are written in the file-name form Obsidian follows, and `links:` also as the body's Links section.
  const body = writtenBody(options.body ?? '', parseLinks(options.links), ids.pathOf, { titleOf: titleLookup(dir, ids.pathOf) });
  const v1 = isV1Repo(dir);
  let id = newId(now, Math.random, v1);
  while (ids.has(id) || minted.has(id)) id = newId(now, Math.random, v1);
  minted.add(id);
  const fields = entryFields(options, id, tagList(options.tags), nowStamp(now));
  const text = formatEntry(fields, body);
  const rel = entryPath(fields as { id: string; title: string; type: string; host?: string; created?: string });
  validateEntryText(text, rel, ids.has);
  await refuseForbidden(dir, [{ text, where: rel, host: options.host }]);
  return { id, path: rel, content: text };
}

/** Adds one entry. */
export async function addEntry(options: AddOptions): Promise<AddResult> {
  // Every field as typed, before commas split it, tags lower-case it or a slug is made of it (spec/secrets.md).
  refuseSecretInputs({
    'the title': options.title,
    'the tags': options.tags,
    'the aliases': options.aliases,
    'the url': options.url,
    'the pattern key': options.patternKey,
    'the host': options.host,
    'the links': options.links,
    'the applies-to list': options.appliesTo,
  });
  if (typeof options.title !== 'string' || !options.title.trim()) throw new KbError('INVALID_ENTRY', 'missing title: pass --title "..."');
  const now = options.now ?? new Date();
  const stamp = nowStamp(now);
  const given = options.body ?? '';
  const links = parseLinks(options.links);
  // Validate before creating anything, with a provisional id (and links in written form, targets unknown yet).
  const probe = entryFields(options, newId(now), splitList(options.tags), stamp);
  const probeBody = writtenBody(given, links, () => undefined);
  const probeText = formatEntry(probe, probeBody);
  const probePath = safePath(probe);
  // Links are checked against the repo inside the lock; everything else is checked before touching the disk.
  // NOTE: secrets first, so a secret pasted into a field is refused as one and never echoed by a format message
  // (such as `"url" is not a URL: <the value>`).
  refuseSecrets(probeText, probePath);
  oneLineTitle(options.title);
  const tags = tagList(options.tags);
  validateEntryText(formatEntry({ ...probe, tags }, probeBody), probePath, () => true);
  // NOTE: after the format check, so an unknown type is named as such first.
  if (!given.trim() && needsBody(options.type)) {
    if (options.body === undefined) throw new KbError('USAGE', 'add needs a body: give it after the flags, with --file FILE, or on stdin (nothing came from stdin); nothing was added');
    throw new KbError('INVALID_ENTRY', `${options.bodyFrom ? `the body from ${options.bodyFrom}` : 'the body'} is empty: every entry but a bookmark needs one saying what it records; nothing was added`);
  }
  const { dir } = await repoForWrite(options);
  return withWriteLock(dir, async (tx) => {
    if (options.patternKey) {
      // Loaded only for lessons with a key, so a plain add (and the session hooks' writes) pays nothing for it.
      const { entryWithPatternKey, recordRecurrence } = await import('./learnings.js');
      const prior = await entryWithPatternKey(dir, options.patternKey);
      // A recurrence is the same kind of entry seen again: a decision is never folded into a lesson (its title lost).
      if (prior && prior.type !== options.type) {
        throw new KbError('CONFLICT', `pattern key ${options.patternKey} belongs to ${prior.id} "${prior.title}", a ${prior.type}; a ${options.type} is not a recurrence of it, so nothing was written: add it without --pattern-key, or with a key of its own`, { id: prior.id, type: prior.type });
      }
      if (prior) {
        const files = filesById(dir);
        // The sighting is the text given, links in written form; the would-be entry's Links section is not part of it.
        return recordRecurrence(dir, tx, prior, writtenBody(given, [], pathLookup(files)), new Set(files.keys()), now);
      }
    }
    // NOTE: ids from the id map, not a listing of every entry file (15 ms at 10,000 entries).
    const ids = idIndex(dir);
    try {
      const file = await newEntryFile(dir, ids, options, now);
      const commit = await tx.commit([{ path: file.path, content: file.content }], `add ${file.id}: ${options.title.trim()}`);
      const memory = await import('./memory.js');
      const over = options.kernel === true ? await memory.kernelOverBudget(dir) : undefined;
      const big = memory.entryOverBudget(dir, file.content, file.path);
      return { id: file.id, path: file.path, commit, ...(options.patternKey ? { recurred: false, count: 1 } : {}), ...(over ? { kernel_over: over } : {}), ...(big ? { entry_over: big } : {}) };
    } finally {
      ids.close();
    }
  }, { identity: options.settings });
}

function safePath(fields: Record<string, unknown>): string {
  try {
    return entryPath(fields as { id: string; title: string; type: string; host?: string; created?: string });
  } catch {
    return `entries/${String(fields.id)}.md`;
  }
}
