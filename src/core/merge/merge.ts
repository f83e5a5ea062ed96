/**
 * Contract: the merge policy of spec/sync.md, as pure functions from texts to texts. Nothing is ever dropped:
 * a three-way merge either combines both sides' changes (line by line for bodies, field by field for entry front
 * matter and for JSON/YAML files) or reports a conflict, and a conflicted entry keeps both versions in the
 * documented conflict form: the file holds "ours" as it was, followed by a block that holds "theirs" verbatim
 * between a `<<<<<<< git-kb conflict` line and a `>>>>>>> git-kb conflict end` line.
 */
import { diffArrays } from 'diff';
import YAML from 'yaml';
import { idFromPath, splitEntry, updateEntryText, type Problem } from '../format/entry.js';
import { findLinksSection, sectionTargets, sectionTitles, stripLinksSection, withLinksSection } from '../format/links.js';
import { CONFLICT_CLOSE, CONFLICT_OPEN, findConflicts } from './marks.js';

/** What a person needs on the opening line: which side is which and how to settle it. */
export function conflictOpenLine(id: string | undefined, origin: string): string {
  const how = id ? `git-kb resolve ${id} --keep ours|theirs|both` : 'keep one version';
  return `${CONFLICT_OPEN}: theirs (${origin}) is below, ours is above; settle it with "${how}" or by hand, deleting these marker lines`;
}

/** The conflict form of an entry: ours verbatim, then theirs verbatim inside a marked block. */
export function conflictForm(ours: string, theirs: string, openLine: string): string {
  const a = ours.endsWith('\n') ? ours : `${ours}\n`;
  const b = theirs.endsWith('\n') ? theirs : `${theirs}\n`;
  return `${a}\n${openLine}\n${b}${CONFLICT_CLOSE}\n`;
}

/** The `conflict-unresolved` findings of one file, for lint: one per conflict block, at its opening line. */
export function conflictProblems(text: string, file: string): Problem[] {
  const id = idFromPath(file);
  return findConflicts(text).map((m) => ({
    rule: 'conflict-unresolved',
    message:
      m.kind === 'git-kb'
        ? `sync conflict: two versions of this entry are kept (ours above, theirs in the block); settle it with "git-kb resolve ${id ?? '<id>'} --keep ours|theirs|both" or by hand`
        : 'git conflict marker: a merge made with git left this unresolved; edit the file and delete the marker lines',
    file,
    line: m.line,
    ...(id ? { id } : {}),
  }));
}


/** A text split into the version outside conflict blocks (ours) and the content of each outermost block. */
export interface SplitConflict {
  ours: string;
  blocks: string[];
}

/** Splits a text in conflict form; `blocks` is empty when there is no (complete) git-kb block. */
export function splitConflict(text: string): SplitConflict {
  const lines = text.split('\n');
  const outside: string[] = [];
  const blocks: string[] = [];
  let depth = 0;
  let current: string[] = [];
  for (const l of lines) {
    if (l.startsWith(CONFLICT_OPEN)) {
      if (depth > 0) current.push(l);
      depth++;
      continue;
    }
    if (depth > 0 && l.startsWith(CONFLICT_CLOSE)) {
      depth--;
      if (depth === 0) {
        blocks.push(current.length ? `${current.join('\n')}\n` : '');
        current = [];
      } else current.push(l);
      continue;
    }
    if (depth > 0) current.push(l);
    else outside.push(l);
  }
  if (depth > 0) return { ours: text, blocks: [] }; // an unclosed block: leave it to a person
  // conflictForm put one blank line before the block; drop it so ours comes back byte for byte.
  let ours = outside.join('\n');
  if (blocks.length) ours = `${ours.replace(/\n+$/, '')}\n`;
  return { ours, blocks };
}

function eq(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (v instanceof Date) return JSON.stringify(v.toISOString());
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);
}

/** Three-way merge of a list as a set: both sides' additions kept, removals applied, ours' order first. */
function mergeList(base: unknown[], ours: unknown[], theirs: unknown[]): unknown[] {
  const baseKeys = new Set(base.map(canonical));
  const theirKeys = new Set(theirs.map(canonical));
  const out = ours.filter((x) => !(baseKeys.has(canonical(x)) && !theirKeys.has(canonical(x))));
  const have = new Set(out.map(canonical));
  for (const x of theirs) {
    const k = canonical(x);
    if (!baseKeys.has(k) && !have.has(k)) {
      out.push(x);
      have.add(k);
    }
  }
  return out;
}

/** The outcome of a three-way merge of one value. */
export interface ValueMerge {
  value: unknown;
  conflicts: string[];
}

/**
 * Three-way merge of JSON/YAML-like values: maps key by key, lists as sets, and scalars take the side that
 * changed. `updated` takes the later date, `created` the earlier, a `next_id` counter the larger number; any
 * other scalar changed differently on both sides is a conflict (ours is kept in `value`).
 */
export function mergeValues(base: unknown, ours: unknown, theirs: unknown, key = ''): ValueMerge {
  if (eq(ours, theirs)) return { value: ours, conflicts: [] };
  if (eq(base, ours)) return { value: theirs, conflicts: [] };
  if (eq(base, theirs)) return { value: ours, conflicts: [] };
  const leaf = key.split('.').pop()!;
  if ((leaf === 'updated' || leaf === 'created') && (typeof ours === 'string' || ours instanceof Date) && (typeof theirs === 'string' || theirs instanceof Date)) {
    const a = ours instanceof Date ? ours.toISOString() : ours;
    const b = theirs instanceof Date ? theirs.toISOString() : theirs;
    const later = a > b ? ours : theirs;
    return { value: leaf === 'updated' ? later : later === ours ? theirs : ours, conflicts: [] };
  }
  if (leaf === 'next_id' && typeof ours === 'number' && typeof theirs === 'number') return { value: Math.max(ours, theirs), conflicts: [] };
  if ((Array.isArray(ours) || ours === undefined) && (Array.isArray(theirs) || theirs === undefined) && (Array.isArray(base) || base === undefined) && (ours !== undefined || theirs !== undefined)) {
    if (ours === undefined || theirs === undefined) return { value: ours, conflicts: [key] }; // one side removed the whole list, the other changed it
    return { value: mergeList((base as unknown[] | undefined) ?? [], ours, theirs), conflicts: [] };
  }
  if (isPlainObject(ours) && isPlainObject(theirs) && (base === undefined || isPlainObject(base))) {
    const b = (base ?? {}) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const conflicts: string[] = [];
    for (const k of new Set([...Object.keys(ours), ...Object.keys(theirs)])) {
      const m = mergeValues(b[k], ours[k], theirs[k], key ? `${key}.${k}` : k);
      conflicts.push(...m.conflicts);
      if (m.value !== undefined) out[k] = m.value;
    }
    return { value: out, conflicts };
  }
  return { value: ours, conflicts: [key || '(value)'] };
}

interface Hunk {
  start: number;
  end: number;
  lines: string[];
}

function hunks(base: string[], side: string[]): Hunk[] {
  const out: Hunk[] = [];
  let pos = 0;
  let open: Hunk | undefined;
  for (const c of diffArrays(base, side)) {
    if (c.removed) {
      open ??= { start: pos, end: pos, lines: [] };
      open.end += c.count ?? c.value.length;
      pos += c.count ?? c.value.length;
    } else if (c.added) {
      open ??= { start: pos, end: pos, lines: [] };
      open.lines.push(...c.value);
    } else {
      if (open) out.push(open);
      open = undefined;
      pos += c.count ?? c.value.length;
    }
  }
  if (open) out.push(open);
  return out;
}

/**
 * Line-level three-way merge (diff3). Returns the merged lines, or undefined when both sides changed the same or
 * adjacent lines differently (a conflict: the caller keeps both versions).
 */
export function mergeLines(base: string[], ours: string[], theirs: string[]): string[] | undefined {
  const a = hunks(base, ours).map((h) => ({ ...h, side: 0 }));
  const b = hunks(base, theirs).map((h) => ({ ...h, side: 1 }));
  const all = [...a, ...b].sort((x, y) => x.start - y.start || x.end - y.end);
  const out: string[] = [];
  let pos = 0;
  let i = 0;
  while (i < all.length) {
    const group = [all[i]!];
    let start = all[i]!.start;
    let end = all[i]!.end;
    i++;
    // Changes that overlap or touch belong together (adjacent edits are a conflict, as in git).
    while (i < all.length && all[i]!.start <= end) {
      group.push(all[i]!);
      end = Math.max(end, all[i]!.end);
      start = Math.min(start, all[i]!.start);
      i++;
    }
    out.push(...base.slice(pos, start));
    const sides = new Set(group.map((h) => h.side));
    const render = (side: number): string[] => {
      const res: string[] = [];
      let p = start;
      for (const h of group.filter((g) => g.side === side)) {
        res.push(...base.slice(p, h.start), ...h.lines);
        p = h.end;
      }
      res.push(...base.slice(p, end));
      return res;
    };
    if (sides.size === 1) out.push(...render(group[0]!.side));
    else {
      const mine = render(0);
      const yours = render(1);
      if (mine.join('\n') !== yours.join('\n')) return undefined;
      out.push(...mine);
    }
    pos = end;
  }
  out.push(...base.slice(pos));
  return out;
}

/** Merges three texts line by line; undefined on conflict. */
export function mergeText(base: string, ours: string, theirs: string): string | undefined {
  return mergeLines(base.split('\n'), ours.split('\n'), theirs.split('\n'))?.join('\n');
}

/** The outcome of merging one file: the text to keep and whether both versions had to be kept side by side. */
export interface FileMerge {
  text: string;
  conflict: boolean;
  /** How it merged, for reports: "lines", "fields", "structure", "same-conflict". */
  how: string;
}

/** The merge when the sides agree or only one changed, else undefined. */
function oneSideChanged(base: string | undefined, ours: string, theirs: string): FileMerge | undefined {
  if (ours === theirs) return { text: ours, conflict: false, how: 'same' };
  if (base !== undefined && base === ours) return { text: theirs, conflict: false, how: 'theirs' };
  if (base !== undefined && base === theirs) return { text: ours, conflict: false, how: 'ours' };
  return undefined;
}

/**
 * Merges an entry file. Front matter merges field by field (mergeValues), the body line by line; when both
 * succeed the result is ours with theirs' changes applied (comments and key order kept). Otherwise the
 * conflict form of ours and theirs. Two conflict forms holding the same pair of versions settle on one of them
 * (the smaller text), so machines that merged the same conflict at once converge instead of nesting blocks.
 */
export function mergeEntryText(base: string | undefined, ours: string, theirs: string, file: string, openLine: string, pathOf?: (id: string) => string | undefined): FileMerge {
  const trivial = oneSideChanged(base, ours, theirs);
  if (trivial) return trivial;
  const so = splitConflict(ours);
  const st = splitConflict(theirs);
  if (so.blocks.length === 1 && st.blocks.length === 1 && so.ours === st.blocks[0] && st.ours === so.blocks[0]) {
    return { text: ours < theirs ? ours : theirs, conflict: true, how: 'same-conflict' };
  }
  if (base !== undefined) {
    const merged = tryMergeEntry(base, ours, theirs, file, pathOf);
    if (merged !== undefined) return { text: merged, conflict: false, how: 'fields' };
  }
  return { text: conflictForm(ours, theirs, openLine), conflict: true, how: 'conflict' };
}

/** Typed links of merged front matter (the well-formed ones), for the Links section. */
function linksOf(v: unknown): { rel: string; to: string }[] {
  if (!Array.isArray(v)) return [];
  return v.filter((l) => isPlainObject(l) && typeof l.rel === 'string' && typeof l.to === 'string').map((l) => ({ rel: (l as { rel: string }).rel, to: (l as { to: string }).to }));
}

/**
 * The generated Links section is not merged line by line (two sides adding links would touch the same lines):
 * bodies merge without it and it is written again from the merged `links`, naming each target by the file name
 * `pathOf` gives (the local repo), else the one either side's section used.
 */
function tryMergeEntry(base: string, ours: string, theirs: string, file: string, pathOf?: (id: string) => string | undefined): string | undefined {
  try {
    if (findConflicts(base).length || findConflicts(ours).length || findConflicts(theirs).length) {
      // A side already in conflict form: only a clean line merge of the whole file is safe.
      return mergeText(base, ours, theirs);
    }
    const b = splitEntry(base, file);
    const o = splitEntry(ours, file);
    const t = splitEntry(theirs, file);
    const fields = mergeValues(b.data, o.data, t.data);
    if (fields.conflicts.length) return undefined;
    const sectioned = [b, o, t].some((x) => findLinksSection(x.body) !== undefined);
    const own = (x: { body: string }): string[] => (sectioned ? stripLinksSection(x.body).trimEnd() : x.body).split('\n');
    const lines = mergeLines(own(b), own(o), own(t));
    if (!lines) return undefined;
    const merged = fields.value as Record<string, unknown>;
    let body = lines.join('\n');
    if (sectioned) {
      const known = new Map([...sectionTargets(b.body), ...sectionTargets(t.body), ...sectionTargets(o.body)]);
      // Items keep the titles the sections showed (ours first).
      const titles = [sectionTitles(o.body), sectionTitles(t.body), sectionTitles(b.body)];
      body = withLinksSection(body, linksOf(merged.links), (id) => pathOf?.(id) ?? known.get(id), (id) => titles.map((f) => f(id)).find((x) => x !== undefined));
    }
    const changes: Record<string, unknown> = {};
    for (const k of new Set([...Object.keys(o.data), ...Object.keys(merged)])) {
      if (!eq(o.data[k], merged[k])) changes[k] = merged[k];
    }
    const text = updateEntryText(ours, file, changes, body);
    splitEntry(text, file); // must still parse
    return text;
  } catch {
    return undefined;
  }
}

/**
 * Merges a file that is not an entry (kb.json, hosts.yaml, anything else): line by line first (keeps comments
 * and layout), then structurally for JSON and YAML. A conflict keeps ours; the caller stores theirs beside it.
 */
export function mergeDataFile(base: string | undefined, ours: string, theirs: string, file: string): FileMerge {
  const trivial = oneSideChanged(base, ours, theirs);
  if (trivial) return trivial;
  if (base !== undefined) {
    const lines = mergeText(base, ours, theirs);
    if (lines !== undefined) return { text: lines, conflict: false, how: 'lines' };
  }
  const json = /\.json$/i.test(file);
  const yaml = /\.ya?ml$/i.test(file);
  if (json || yaml) {
    try {
      const parse = (s: string): unknown => (json ? JSON.parse(s) : YAML.parse(s));
      const m = mergeValues(base === undefined ? undefined : parse(base), parse(ours), parse(theirs));
      if (m.conflicts.length === 0 && isPlainObject(m.value)) {
        const text = json ? `${JSON.stringify(m.value, null, 2)}\n` : YAML.stringify(m.value, { lineWidth: 0 });
        return { text, conflict: false, how: 'structure' };
      }
    } catch {
      // not parseable: fall through to a conflict
    }
  }
  return { text: ours, conflict: true, how: 'conflict' };
}

/** Which version to keep when settling a conflict. */
export type Keep = 'ours' | 'theirs' | 'both';

/**
 * Settles an entry in conflict form: `ours` drops the block(s), `theirs` keeps the block's version, `both`
 * keeps ours' front matter with both sides' tags, aliases and links, and both bodies one after the other.
 * Returns undefined when the text holds no complete git-kb conflict block.
 */
/**
 * The blocks of a body: its paragraphs, split at blank lines, a fenced code block (``` or ~~~) one block whatever
 * blank lines it holds.
 */
function blocksOf(body: string): string[] {
  const out: string[] = [];
  let cur: string[] = [];
  let fence: string | undefined;
  for (const line of body.split('\n')) {
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (f && (fence === undefined || (f[0] === fence[0] && f.length >= fence.length))) fence = fence === undefined ? f : undefined;
    if (fence === undefined && line.trim() === '' && !f) {
      if (cur.length) out.push(cur.join('\n'));
      cur = [];
    } else cur.push(line);
  }
  if (cur.length) out.push(cur.join('\n'));
  return out;
}

/**
 * Both bodies in one, for `resolve --keep both`: the blocks they share once, in place, and where they differ our
 * blocks then theirs (a union of paragraphs, as git's union merge is of lines); with no block in common, our body
 * then theirs. So a note both machines edited in different places reads once, with both edits.
 */
function unionBlocks(ours: string, theirs: string): string {
  if (ours === theirs) return ours;
  const parts = diffArrays(blocksOf(ours), blocksOf(theirs));
  if (!parts.some((p) => !p.added && !p.removed)) return ours && theirs ? `${ours}\n\n${theirs}` : ours || theirs;
  return parts.flatMap((p) => p.value).join('\n\n');
}

export function resolveConflictText(text: string, keep: Keep, file: string, updated?: string): string | undefined {
  const { ours, blocks } = splitConflict(text);
  if (blocks.length === 0) return undefined;
  if (keep === 'ours') return ours;
  if (keep === 'theirs') {
    if (blocks.length > 1) throw new Error(`${file} holds ${blocks.length} conflict blocks; keep "ours" or "both", or edit it by hand`);
    return blocks[0]!;
  }
  let result = ours;
  for (const other of blocks) {
    const inner = splitConflict(other).ours; // a nested conflict: take its own kept version
    const o = splitEntry(result, file);
    const t = splitEntry(inner, file);
    const changes: Record<string, unknown> = {};
    for (const key of ['tags', 'aliases', 'links', 'applies_to']) {
      const merged = mergeList([], Array.isArray(o.data[key]) ? (o.data[key] as unknown[]) : [], Array.isArray(t.data[key]) ? (t.data[key] as unknown[]) : []);
      if (!eq(merged, o.data[key] ?? [])) changes[key] = merged;
    }
    if (updated) changes.updated = updated;
    const sectioned = findLinksSection(o.body) !== undefined || findLinksSection(t.body) !== undefined;
    const ob = stripLinksSection(o.body).trimEnd();
    const tb = stripLinksSection(t.body).trimEnd();
    let body = unionBlocks(ob, tb);
    // Both bodies' Links sections become one, written from the links kept.
    if (sectioned) {
      const known = new Map([...sectionTargets(t.body), ...sectionTargets(o.body)]);
      const titles = [sectionTitles(o.body), sectionTitles(t.body)];
      body = withLinksSection(body, linksOf(changes.links ?? o.data.links), (id) => known.get(id), (id) => titles.map((f) => f(id)).find((x) => x !== undefined));
    }
    result = updateEntryText(result, file, changes, body);
  }
  return result;
}
