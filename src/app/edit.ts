/**
 * Contract: `edit` changes one entry in place (fields through the YAML document, so comments, unknown fields and
 * key order survive), validates and secret-scans the result, bumps `updated`, commits, and returns the diff.
 * No change means no commit.
 */
import { aliasesWith } from '../core/format/meta.js';
import { createTwoFilesPatch } from 'diff';
import { parseEntry, splitEntry, updateEntryText, type Rule } from '../core/format/entry.js';
import { hostOfPath, needsBody } from '../core/format/schema.js';
import { KbError } from '../core/errors.js';
import { readEntryText } from '../adapters/store/layout.js';
import { filesById, findEntryFile, pathLookup, titleLookup } from './find.js';
import { linkersRetitled, relinkEntryText } from './relink.js';
import { stripLinksSection, writtenBody } from '../core/format/links.js';
import { activityList, nowStamp, oneLineTitle, parseLinks, parseRules, splitList, tagList, validateEntryText } from './fields.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { forbiddenHostKeys, refuseForbidden } from './guard.js';
import { refuseSecretInputs, refuseSecrets, withWriteLock } from '../adapters/write/transaction.js';
import { toLf } from '../core/text/line-ends.js';
import type { EntryOverBudget, KernelOverBudget } from './memory.js';

export interface EditOptions extends RepoOptions {
  id: string;
  title?: string;
  type?: string;
  tags?: string | string[];
  addTags?: string | string[];
  removeTags?: string | string[];
  links?: string[];
  unlink?: string[];
  url?: string;
  appliesTo?: string | string[];
  kernel?: boolean;
  aliases?: string | string[];
  /**
   * The lesson's pattern key (spec/memory.md, "Learnings"): a later `add` with it records a recurrence here.
   * '' removes it; a key another entry has is refused.
   */
  patternKey?: string;
  /** Replaces the prose rules of a kernel entry (spec/entry-format.md, `rules`); [] removes them. */
  rules?: Rule[];
  body?: string;
  append?: string;
  /** Prose rules to add, as `--rule` takes them (one with the same pattern as a rule of the entry replaces it). */
  ruleArgs?: string[];
  /** Patterns of the entry's rules to remove. */
  removeRules?: string[];
  now?: Date;
}

export interface EditResult {
  id: string;
  path: string;
  commit?: string;
  changed: boolean;
  diff: string;
  /** Set when this edit of a kernel entry left the kernel over its budget (spec/memory.md, "Budgets"). */
  kernel_over?: KernelOverBudget;
  /** Set when the entry's body is over its type's budget (the Stop hook will ask to compact it). */
  entry_over?: EntryOverBudget;
  /** Set on a retitle: the entries linking to it whose Links section now shows the new title (same commit). */
  relinked?: string[];
}

/** Edits one entry. */
export async function editEntry(options: EditOptions): Promise<EditResult> {
  // Every field as typed, before commas split it or tags lower-case it (spec/secrets.md).
  refuseSecretInputs({
    'the title': options.title,
    'the type': options.type,
    'the tags': options.tags,
    'the added tags': options.addTags,
    'the removed tags': options.removeTags,
    'the aliases': options.aliases,
    'the url': options.url,
    'the links': options.links,
    'the unlinked ids': options.unlink,
    'the applies-to list': options.appliesTo,
  });
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const ids = filesById(dir);
    const file = findEntryFile(dir, options.id, ids);
    const before = readEntryText(dir, file.path);
    const parsed = parseEntry(before, file.path);
    if (!parsed.entry) {
      throw new KbError('INVALID_ENTRY', `${file.path} cannot be edited until it parses: ${parsed.problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('; ')}`, { problems: parsed.problems });
    }
    const e = parsed.entry;
    const changes: Record<string, unknown> = {};
    if (options.title !== undefined) changes.title = options.title.trim();
    if (options.type !== undefined) changes.type = options.type;
    if (options.url !== undefined) changes.url = options.url || undefined;
    if (options.kernel !== undefined) changes.kernel = options.kernel ? true : undefined;
    if (options.appliesTo !== undefined) changes.applies_to = activityList(options.appliesTo);
    if (options.aliases !== undefined) changes.aliases = splitList(options.aliases);
    // A new title joins the aliases when the old one is there (git-kb put it there): the old name stays findable.
    else if (changes.title !== undefined && changes.title !== e.title && e.aliases.some((a) => a.trim().toLowerCase() === e.title.trim().toLowerCase())) {
      changes.aliases = aliasesWith(e.aliases, [changes.title as string]);
    }
    if (options.rules !== undefined) changes.rules = options.rules.length ? options.rules : undefined;
    if (options.patternKey !== undefined && options.patternKey !== (typeof e.data.pattern_key === 'string' ? e.data.pattern_key : '')) {
      changes.pattern_key = options.patternKey || undefined;
      const { entryWithPatternKey } = await import('./learnings.js');
      const other = options.patternKey ? await entryWithPatternKey(dir, options.patternKey) : undefined;
      if (other && other.id !== e.id) {
        throw new KbError('CONFLICT', `pattern key "${options.patternKey}" is already ${other.id}'s (${other.title}): add --pattern-key ${options.patternKey} records a recurrence there; nothing written`, { id: other.id });
      }
    }
    // Tags are kept in written form (src/core/format/tags.ts): an old tag with capitals is rewritten too.
    const removed = splitList(options.removeTags);
    const remove = new Set([...removed, ...removed.map((t) => t.toLowerCase().replace(/\s+/g, '-'))]);
    const kept = (options.tags !== undefined ? splitList(options.tags) : e.tags).filter((t) => !remove.has(t));
    const tags = tagList([...kept, ...splitList(options.addTags)]).filter((t) => !remove.has(t));
    if (tags.join('\0') !== e.tags.join('\0')) changes.tags = tags;
    if (options.ruleArgs?.length || options.removeRules?.length) {
      const drop = new Set(options.removeRules ?? []);
      for (const p of drop) {
        if (!e.rules.some((r) => r.pattern === p)) throw new KbError('NOT_FOUND', `${e.id} has no rule with the pattern ${JSON.stringify(p)} (its patterns: ${e.rules.map((r) => JSON.stringify(r.pattern)).join(', ') || 'none'})`);
      }
      const added = parseRules(options.ruleArgs);
      const next = [...e.rules.filter((r) => !drop.has(r.pattern) && !added.some((a) => a.pattern === r.pattern)), ...added];
      if (JSON.stringify(next) !== JSON.stringify(e.rules)) changes.rules = next.length ? next : undefined;
    }
    if (options.links?.length || options.unlink?.length) {
      const unlink = new Set(options.unlink ?? []);
      for (const u of unlink) {
        if (!e.links.some((l) => l.to === u)) throw new KbError('NOT_FOUND', `${e.id} has no link to ${u}`);
      }
      const next = e.links.filter((l) => !unlink.has(l.to));
      const added = parseLinks(options.links);
      const self = added.find((l) => l.to === e.id);
      if (self) throw new KbError('USAGE', `--link "${self.rel}:${self.to}": an entry cannot link to itself; nothing written`);
      for (const l of added) if (!next.some((x) => x.rel === l.rel && x.to === l.to)) next.push(l);
      changes.links = next;
    }
    // A field given the value it already has is no change (an edit that only bumped `updated` is none).
    for (const k of Object.keys(changes)) if (JSON.stringify(changes[k]) === JSON.stringify(e.data[k])) delete changes[k];
    // The body as a person wrote it: the generated Links section is the tool's, rewritten below.
    let body: string | undefined;
    if (options.body !== undefined) body = stripLinksSection(options.body);
    // A body replaced by nothing loses what the entry records: refused as add refuses a blank body (a bookmark's
    // may be empty). `--append` adds to the body, so it never empties it.
    if (body !== undefined && !body.trim() && needsBody(String(changes.type ?? e.type))) {
      throw new KbError('INVALID_ENTRY', `the new body is empty: ${e.id} would lose what it records (every entry but a bookmark needs a body); nothing written. To remove the entry: git-kb delete ${e.id}`);
    }
    if (options.append !== undefined) body = `${stripLinksSection(body ?? e.body).trimEnd()}\n\n${options.append}`;
    const raw = splitEntry(before, file.path);
    const own = stripLinksSection(raw.body).trimEnd();
    if (Object.keys(changes).length === 0 && (body === undefined || body.trimEnd() === own)) {
      return { id: e.id, path: file.path, changed: false, diff: '' };
    }
    changes.updated = nowStamp(options.now);
    // Every write brings the body's entry links to the file-name form and the Links section in step with `links:`.
    const newBody = writtenBody(body ?? raw.body, (changes.links as typeof e.links | undefined) ?? e.links, pathLookup(ids), { titleOf: titleLookup(dir, pathLookup(ids)) });
    const after = updateEntryText(before, file.path, changes, newBody);
    // NOTE: secrets first, so a secret is refused as one and never echoed by a format message.
    refuseSecrets(after, file.path);
    if (options.title !== undefined) oneLineTitle(options.title);
    validateEntryText(after, file.path, linkable(ids, before));
    await refuseForbidden(dir, [{ text: after, where: file.path, host: e.host }]);
    // A new title is the display text of this entry in other entries' Links sections: rewritten in the same commit.
    const linkers = changes.title !== undefined ? await linkersRetitled(dir, e.id, changes.title as string, pathLookup(ids)) : [];
    const commit = await tx.commit([{ path: file.path, content: after }, ...linkers], `edit ${e.id}: ${String(changes.title ?? e.title)}`);
    const diff = unifiedDiff(file.path, before, after);
    const memory = await import('./memory.js');
    const over = (changes.kernel ?? e.kernel) === true ? await memory.kernelOverBudget(dir) : undefined;
    const big = memory.entryOverBudget(dir, after, file.path);
    return { id: e.id, path: file.path, commit, changed: true, diff, ...(linkers.length ? { relinked: linkers.map((l) => l.path) } : {}), ...(over ? { kernel_over: over } : {}), ...(big ? { entry_over: big } : {}) };
  }, { identity: options.settings });
}

/**
 * The ids an edit may link to: the entries that exist, and every id the entry already named before the edit. A link
 * left dangling by a `delete --force` is lint's to report (link-dangling); it does not lock the entry against
 * edits, while a link the edit adds to a missing entry is refused.
 */
function linkable(ids: Map<string, unknown>, before: string): (id: string) => boolean {
  const named = new Set(before.match(/\bkb-[0-9a-z]+/g) ?? []);
  return (id) => ids.has(id) || named.has(id);
}

export interface EditTextOptions extends RepoOptions {
  id: string;
  /** The file's text when the editor was opened (a change on disk since then is refused). */
  before: string;
  /** The whole file as saved in the editor. */
  after: string;
  now?: Date;
}

/** The file of entry `id` and its text, for an editor (it need not parse: the editor is how a broken entry is fixed). */
export async function entryForEditor(options: RepoOptions & { id: string }): Promise<{ id: string; path: string; text: string }> {
  const { dir } = repoForRead(options);
  const file = findEntryFile(dir, options.id);
  // A forbidden host's facts are never loaded (spec/hosts.md), into an editor neither.
  const host = hostOfPath(file.path);
  if (host && (await forbiddenHostKeys(dir)).has(host)) throw new KbError('FORBIDDEN_HOST', `${options.id} is a fact about the forbidden host "${host}": never loaded`, { id: options.id, host });
  return { id: options.id, path: file.path, text: readEntryText(dir, file.path) };
}

/**
 * Commits an entry's whole text as saved in an editor: validated like every edit (secrets first, then the
 * format with links resolved, then forbidden hosts), `updated` bumped unless the text sets it anew. The same
 * text (trailing white space aside) is no change and no commit; a file changed on disk since `before` is CONFLICT.
 */
export async function saveEditedText(options: EditTextOptions): Promise<EditResult> {
  const { dir } = repoForRead(options);
  return withWriteLock(dir, async (tx) => {
    const ids = filesById(dir);
    const file = findEntryFile(dir, options.id, ids);
    const current = readEntryText(dir, file.path);
    if (current !== options.before) {
      throw new KbError('CONFLICT', `${file.path} changed on disk while it was open in the editor; nothing written (edit it again to start from the new version)`, { file: file.path });
    }
    const norm = (t: string): string => toLf(t).trimEnd();
    if (norm(options.after) === norm(current)) return { id: options.id, path: file.path, changed: false, diff: '' };
    // NOTE: secrets first, so a secret is refused as one and never echoed by a format message.
    refuseSecrets(options.after, file.path);
    validateEntryText(options.after, file.path, linkable(ids, current));
    let after = options.after;
    const was = (() => {
      try {
        return splitEntry(current, file.path).data.updated;
      } catch {
        return undefined;
      }
    })();
    const raw = splitEntry(after, file.path);
    if (String(raw.data.updated ?? '') === String(was ?? '')) after = updateEntryText(after, file.path, { updated: nowStamp(options.now) });
    // Links typed in the editor are stored in the form Obsidian follows, and the Links section follows `links:`.
    after = relinkEntryText(after, file.path, pathLookup(ids)) ?? after;
    const e = parseEntry(after, file.path).entry!;
    await refuseForbidden(dir, [{ text: after, where: file.path, host: e.host }]);
    const commit = await tx.commit([{ path: file.path, content: after }], `edit ${e.id}: ${e.title}`);
    const diff = unifiedDiff(file.path, current, after);
    const memory = await import('./memory.js');
    const over = e.kernel ? await memory.kernelOverBudget(dir) : undefined;
    const big = memory.entryOverBudget(dir, after, file.path);
    return { id: e.id, path: file.path, commit, changed: true, diff, ...(over ? { kernel_over: over } : {}), ...(big ? { entry_over: big } : {}) };
  }, { identity: options.settings });
}

/**
 * The change of one file as git prints it: `--- a/PATH`, `+++ b/PATH`, hunks with 2 lines of context. NOTE: the
 * diff library adds a line of `=` before the headers and, given empty headers, a tab after each path; neither is
 * git's, and the text and --json outputs show the same diff.
 */
function unifiedDiff(file: string, before: string, after: string): string {
  return createTwoFilesPatch(`a/${file}`, `b/${file}`, before, after, undefined, undefined, { context: 2 }).replace(/^={10,}\n/, '');
}
