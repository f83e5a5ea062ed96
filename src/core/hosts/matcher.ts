/**
 * Contract: matching host markers in text (spec/hosts.md, "Detection"), the part of the host registry the prompt
 * hook runs on every prompt: pure, dependency-free, so it bundles into the hook entry. Validation of hosts.yaml is
 * in hosts.ts, and reading it in adapters/store/hosts-file.ts.
 *
 * NOTE: the rule: a plain marker matches case-insensitively as a whole word, where a word is a run of letters,
 * digits, `_` and `-` (so `10.0.0.7` does not match `10.0.0.70`, `pop-os` does not match `pop-os2`, and `dssh`
 * matches `dssh.local`); a `/regex/` marker matches wherever it matches. Markers are matched over the whole text,
 * inside code fences and inline code too: an IP in a pasted log names a host as surely as one in prose.
 *
 * A forbidden marker (`loose`) matches as a human reads a host's name, so that no suffix, plural or separator
 * dodges it (fail closed): it starts where a letter or digit does not go before it (`-`, `_` and `.` end a word
 * there), and may go on with a plural (`whatboxes`), with digits (`seedbox2`) or with anything after a separator
 * (`whatbox-07`, `whatbox_2`, `hssh-2.lan`, `seedbox-eu`); a marker that ends in a digit (an IP) takes no more
 * digits (`10.0.0.7` is not `10.0.0.70`).
 */

/** The shortest plain marker (key, alias or marker) that is matched in text: one letter would match everywhere. */
export const MIN_MARKER_CHARS = 2;


/** A marker written as a regular expression: `/source/flags`. */
export const REGEX_MARKER = /^\/(.+)\/([a-z]*)$/s;

/** True when a marker is written as a regular expression (`/.../flags`). */
export function isRegexMarker(marker: string): boolean {
  return REGEX_MARKER.test(marker);
}

/**
 * A compiled, JSON-safe matcher. `plain` packs the plain markers (lower-cased) as `<label index>\t<marker>` lines,
 * one string: the prompt hook parses it on every prompt, and one string parses far faster than hundreds of small
 * arrays. `regex` holds [source, flags, label index] triples.
 */
export interface HostMatcher {
  labels: string[];
  plain: string;
  regex: [string, string, number][];
  /** Plain markers match as forbidden ones do (see the module contract). */
  loose?: boolean;
}

/** Compiles labelled term lists into a matcher (`loose`: the forbidden rule). */
export function compileMatcher(groups: { label: string; terms: string[] }[], options: { loose?: boolean } = {}): HostMatcher {
  const m: HostMatcher = { labels: [], plain: '', regex: [] };
  if (options.loose) m.loose = true;
  const plain: string[] = [];
  groups.forEach((g, i) => {
    m.labels.push(g.label);
    for (const t of g.terms) {
      const r = REGEX_MARKER.exec(t);
      if (r) m.regex.push([r[1]!, r[2]!, i]);
      else if (t.length >= MIN_MARKER_CHARS && !/[\t\n\r]/.test(t)) plain.push(`${i}\t${t.toLowerCase()}`);
    }
  });
  m.plain = plain.join('\n');
  return m;
}

const WORD_CHAR = /[a-z0-9_-]/;

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && WORD_CHAR.test(c);
}

/** The first offset where `needle` (lower case) occurs in `hay` (lower case) as a whole word, or -1. */
function wordIndex(hay: string, needle: string): number {
  let from = 0;
  for (;;) {
    const i = hay.indexOf(needle, from);
    if (i < 0) return -1;
    const before = isWordChar(needle[0]) ? hay[i - 1] : undefined;
    const after = isWordChar(needle[needle.length - 1]) ? hay[i + needle.length] : undefined;
    if (!isWordChar(before) && !isWordChar(after)) return i;
    from = i + 1;
  }
}

const ALNUM = /[a-z0-9]/;

/** The first offset where `needle` occurs in `hay` (both lower case) as a forbidden marker does, or -1. */
function looseIndex(hay: string, needle: string): number {
  const last = needle[needle.length - 1]!;
  const endsInLetter = /[a-z]/.test(last);
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) {
    if (ALNUM.test(needle[0]!) && i > 0 && ALNUM.test(hay[i - 1]!)) continue;
    if (!ALNUM.test(last)) return i;
    const rest = hay.slice(i + needle.length, i + needle.length + 3);
    const c = rest[0];
    if (c === undefined || !ALNUM.test(c)) return i; // end, or a separator: anything may follow it
    if (!endsInLetter) continue; // an IP or a numbered name takes no more digits or letters
    if (/^[0-9]/.test(rest)) return i; // seedbox2
    if (/^(?:es|s)(?![a-z0-9])/.test(rest)) return i; // whatboxes, hosts
  }
  return -1;
}

/** The longest text a regex marker matches, and the windows it is run over (each overlaps the next by that much). */
export const REGEX_MARKER_SPAN = 128;
const REGEX_WINDOW = 2 * REGEX_MARKER_SPAN;

/**
 * Where `re` first matches in `text`, or -1, run over windows of 256 characters that overlap by 128: a match of up
 * to 128 characters is found whole in one of them. NOTE: a pattern that passes the risk check (regex-risk.ts) may
 * still scan from each start to the end of a run it repeats (`[a-z0-9]+\.lan` on a 300 KB base64 line of a
 * transcript: quadratic, 90 s); in windows that costs at most the window's square per window, about 0.3 s a MB.
 */
function regexIndex(re: RegExp, text: string): number {
  for (let at = 0; ; at += REGEX_WINDOW - REGEX_MARKER_SPAN) {
    const m = re.exec(text.length <= REGEX_WINDOW ? text : text.slice(at, at + REGEX_WINDOW));
    if (m) return at + m.index;
    if (at + REGEX_WINDOW >= text.length) return -1;
  }
}

/**
 * The labels whose terms occur in `text`, in order of first occurrence. Plain single-word markers are looked up
 * in the set of the text's words, other plain markers are searched for only when their first word occurs, and
 * regex markers run once each, so a prompt costs about one pass over its text whatever the number of hosts.
 */
export function matchHosts(matcher: HostMatcher, text: string): string[] {
  if (!text) return [];
  const lower = text.toLowerCase();
  const words = new Set(lower.match(/[a-z0-9_-]+/g) ?? []);
  const first = new Map<number, number>();
  const hit = (label: number, at: number): void => {
    const prev = first.get(label);
    if (prev === undefined || at < prev) first.set(label, at);
  };
  for (const rec of matcher.plain ? matcher.plain.split('\n') : []) {
    const tab = rec.indexOf('\t');
    const marker = rec.slice(tab + 1);
    if (matcher.loose) {
      const at = looseIndex(lower, marker);
      if (at >= 0) hit(Number(rec.slice(0, tab)), at);
      continue;
    }
    // The marker's first word must be one of the text's words (a cheap test that skips most markers).
    const lead = /^[a-z0-9_-]+/.exec(marker)?.[0];
    if (lead !== undefined && !words.has(lead)) continue;
    const at = wordIndex(lower, marker);
    if (at >= 0) hit(Number(rec.slice(0, tab)), at);
  }
  for (const [source, flags, label] of matcher.regex) {
    let re: RegExp;
    try {
      re = new RegExp(source, flags.replace(/[gy]/g, ''));
    } catch {
      continue;
    }
    const at = regexIndex(re, text);
    if (at >= 0) hit(label, at);
  }
  return [...first.entries()].sort((a, b) => a[1] - b[1]).map(([label]) => matcher.labels[label]!);
}
