/**
 * Contract: the vocabulary of the entry format (spec/entry-format.md): types, rels, activities, ids and host
 * keys. Dependency-free, so the light paths (get, list filters, the hooks) never load the YAML parser.
 */

export const TYPES = [
  'factual_reference',
  'decision',
  'pattern_convention',
  'lesson_learned',
  'bookmark',
  'host_fact',
  'session_summary',
] as const;
export type EntryType = (typeof TYPES)[number];

/**
 * True when a new entry of `type` says something only through its body: every type but a bookmark, whose url is
 * what it records (spec/cli.md, `add`). `add` refuses an empty or blank body for these; existing entries and
 * imported notes are not judged by it.
 */
export function needsBody(type: string): boolean {
  return type !== 'bookmark';
}

export const RELS = ['relates_to', 'part_of', 'depends_on', 'supersedes', 'mentions'] as const;
export type Rel = (typeof RELS)[number];

export const ACTIVITIES = ['writing', 'reviewing', 'planning', 'coding'] as const;
export type Activity = (typeof ACTIVITIES)[number];

export const ID_PATTERN = /^kb-[0-9a-z]+$/;
const FILE_ID = /^(kb-[0-9a-z]+?)(?:-[^/]*)?\.md$/;
const HOST_KEY = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const ID_EPOCH = Date.UTC(2020, 0, 1) / 1000;

/** True when `id` has the shape of an entry id (`kb-` then lowercase letters and digits). */
export function isValidId(id: unknown): id is string {
  return typeof id === 'string' && ID_PATTERN.test(id) && id.length <= 40;
}

/** True when `key` is a valid host key (spec: `^[a-z0-9][a-z0-9_-]{0,63}$`). */
export function isValidHostKey(key: unknown): key is string {
  return typeof key === 'string' && HOST_KEY.test(key);
}

/**
 * Mints a new id: six base-36 digits of seconds since 2020 (so ids sort by creation) then four random base-36
 * digits, so two machines minting in the same second collide with odds of one in 1.7 million. With `digits` (a v1
 * repo, whose scripts read only `kb-` and decimal digits: spec/entry-format.md, "v1 readers"): ten decimal digits
 * of seconds since 2020 then six random ones, odds of one in a million.
 */
export function newId(now: Date = new Date(), random: () => number = Math.random, digits = false): string {
  if (digits) {
    const secs = String(Math.max(0, Math.floor(now.getTime() / 1000 - ID_EPOCH))).padStart(10, '0');
    let rand = '';
    for (let i = 0; i < 6; i++) rand += Math.floor(random() * 10);
    return `kb-${secs}${rand}`;
  }
  const time = idTime(now.getTime());
  let rand = '';
  for (let i = 0; i < 4; i++) rand += Math.floor(random() * 36).toString(36);
  return `kb-${time}${rand}`;
}

/** The first six digits of an id: base-36 seconds since 2020 at `ms` (epoch milliseconds), so ids sort by time. */
export function idTime(ms: number): string {
  return Math.max(0, Math.floor(ms / 1000 - ID_EPOCH)).toString(36).padStart(6, '0');
}

/** The id a file name claims (`kb-xxxx-some-slug.md` → `kb-xxxx`, `kb-xxxx.md` → `kb-xxxx`), or undefined. */
export function idFromFileName(name: string): string | undefined {
  return FILE_ID.exec(name)?.[1];
}

/**
 * The entry id a user typed, where they may have copied a file's name instead (`kb-xxxx-some-slug`,
 * `kb-xxxx-some-slug.md`, `entries/kb-xxxx-some-slug.md`, as `ls`, a shell's completion or Obsidian show it): that
 * file name's id. Anything else is returned as typed, for the verb to judge.
 */
export function idArgument(arg: string): string {
  if (!/(?:^|\/)kb-[0-9a-z]+(?:-|\.md$)/.test(arg)) return arg;
  return idFromPath(arg.endsWith('.md') ? arg : `${arg}.md`) ?? arg;
}

/**
 * The id a text's front matter gives (`id: kb-xxxx`, quoted or not, at the top level), or undefined: the id a file
 * whose name carries none claims (`entries/copy.md`, an Obsidian "duplicate note"). A line match over the front
 * matter, no YAML parser: the listing runs it on every such file.
 */
export function idFromFrontMatter(text: string): string | undefined {
  const fm = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  const m = fm ? /^id:[ \t]*(["']?)(kb-[0-9a-z]+)\1[ \t]*(?:#.*)?\r?$/m.exec(fm[1]!) : null;
  return m && isValidId(m[2]!) ? m[2] : undefined;
}

/** The host whose folder a path is in (`hosts/web1/kb-xxxx-disk.md` → `web1`), or undefined. */
export function hostOfPath(p: string): string | undefined {
  return /^hosts\/([^/]+)\//.exec(p)?.[1];
}

/** The id a path claims by its file name (`entries/kb-xxxx-some-slug.md` → `kb-xxxx`), or undefined. */
export function idFromPath(p: string): string | undefined {
  return idFromFileName(p.slice(p.lastIndexOf('/') + 1));
}
