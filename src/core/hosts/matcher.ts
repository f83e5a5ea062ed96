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
/** Parts shorter than this are joined into one chunk before they are scanned (fewer passes per marker). */
const CHUNK_CHARS = 1 << 20;

/**
 * The labels whose terms occur in `text`, in order of first occurrence. Plain single-word markers are looked up
 * in the set of the text's words, other plain markers are searched for only when their first word occurs, and
 * regex markers run once each, so a prompt costs about one pass over its text whatever the number of hosts.
 */
export function matchHosts(matcher: HostMatcher, text: string): string[] {
  if (!text) return [];
  const scan = hostScan(matcher);
  scan.part(text);
  return scan.labels();
}

/** An incremental matchHosts: `part` takes the text's parts in order, `labels` answers as matchHosts would. */
export interface HostScan {
  part(text: string): void;
  labels(): string[];
}

/**
 * matchHosts over a text given in parts: the text is the parts joined by `\n`, never built. The same answer as
 * matchHosts on the joined text: a plain marker holds no line break, so it matches within one part (a part's ends
 * read as the line breaks around it), its offset counted in the lower-cased joined text as before (lower-casing
 * never looks across a line break); a regex marker runs over the same 256-character windows of the joined text (a
 * window across parts is put together from their ends), so an anchor or a `\n` in a pattern matches as it did.
 */
export function hostScan(matcher: HostMatcher): HostScan {
  const plain = matcher.plain ? matcher.plain.split('\n') : [];
  const plainAt = new Map<number, number>(); // plain marker -> where it first matched, in the lower-cased text
  const regexes: { re?: RegExp; label: number; at: number }[] = matcher.regex.map(([source, flags, label]) => {
    try {
      return { re: new RegExp(source, flags.replace(/[gy]/g, '')), label, at: -1 };
    } catch {
      return { label, at: -1 };
    }
  });
  let plainLeft = plain.length;
  let regexLeft = regexes.filter((r) => r.re).length;
  let parts = 0;
  let empty = true; // the joined text is '' (no part, or one empty part)
  let lowerAt = 0; // where the next chunk starts in the lower-cased joined text
  let pending: string[] = [];
  let pendingChars = 0;
  // Regex windows: the next one starts at `winAt`; `tail` is the joined text from there to its end (short).
  let winAt = 0;
  let tail = '';

  const runWindow = (w: string, at: number): void => {
    for (const r of regexes) {
      if (!r.re || r.at >= 0) continue;
      const m = r.re.exec(w);
      if (m) {
        r.at = at + m.index;
        regexLeft--;
      }
    }
  };
  /**
   * The windows that end before the joined text does, once `part` is added (after a `\n` unless first). Windows of
   * 256 characters that overlap by 128: a match of up to 128 characters is found whole in one of them. NOTE: a
   * pattern that passes the risk check (regex-risk.ts) may still scan from each start to the end of a run it repeats
   * (`[a-z0-9]+\.lan` on a 300 KB base64 line of a transcript: quadratic, 90 s); in windows that costs at most the
   * window's square per window, about 0.3 s a MB.
   */
  const windows = (part: string, sep: boolean): void => {
    const segLen = part.length + (sep ? 1 : 0);
    const seg = (a: number, b: number): string => (!sep ? part.slice(a, b) : a === 0 ? `\n${part.slice(0, b - 1)}` : part.slice(a - 1, b - 1));
    const avail = tail.length + segLen;
    let off = 0;
    if (avail > REGEX_WINDOW) {
      // Windows that begin in `tail` (at most two: it is never longer than a window).
      const head = tail + seg(0, Math.min(segLen, 2 * REGEX_WINDOW));
      for (; off < tail.length && avail - off > REGEX_WINDOW && regexLeft > 0; off += REGEX_WINDOW - REGEX_MARKER_SPAN) runWindow(head.slice(off, off + REGEX_WINDOW), winAt + off);
      // Windows wholly in the new part.
      for (; avail - off > REGEX_WINDOW && regexLeft > 0; off += REGEX_WINDOW - REGEX_MARKER_SPAN) {
        const s = off - tail.length;
        runWindow(seg(s, s + REGEX_WINDOW), winAt + off);
      }
    }
    winAt += off;
    if (regexLeft === 0) return;
    tail = off < tail.length ? tail.slice(off) + seg(0, segLen) : seg(off - tail.length, segLen);
  };
  /** The plain markers over a chunk of whole parts. */
  const chunk = (text: string): void => {
    if (plainLeft === 0) return;
    const lower = text.toLowerCase();
    // NOTE: the forbidden rule looks at every marker; only the host rule skips markers by the text's words.
    const words = matcher.loose ? undefined : new Set(lower.match(/[a-z0-9_-]+/g) ?? []);
    for (let k = 0; k < plain.length; k++) {
      if (plainAt.size > 0 && plainAt.has(k)) continue;
      const rec = plain[k]!;
      const marker = rec.slice(rec.indexOf('\t') + 1);
      if (words) {
        // The marker's first word must be one of the text's words (a cheap test that skips most markers).
        const lead = /^[a-z0-9_-]+/.exec(marker)?.[0];
        if (lead !== undefined && !words.has(lead)) continue;
      }
      const at = words ? wordIndex(lower, marker) : looseIndex(lower, marker);
      if (at >= 0) {
        plainAt.set(k, lowerAt + at);
        plainLeft--;
      }
    }
    lowerAt += lower.length + 1;
  };
  const flush = (): void => {
    if (pending.length === 0) return;
    chunk(pending.length === 1 ? pending[0]! : pending.join('\n'));
    pending = [];
    pendingChars = 0;
  };
  return {
    part(text: string): void {
      if (regexLeft > 0) windows(text, parts > 0);
      if (text || parts > 0) empty = false;
      parts++;
      if (plainLeft === 0) return;
      pending.push(text);
      pendingChars += text.length + 1;
      if (pendingChars >= CHUNK_CHARS) flush();
    },
    labels(): string[] {
      flush();
      if (empty) return [];
      if (regexLeft > 0) runWindow(tail, winAt);
      const first = new Map<number, number>();
      const hit = (label: number, at: number): void => {
        const prev = first.get(label);
        if (prev === undefined || at < prev) first.set(label, at);
      };
      for (const k of [...plainAt.keys()].sort((a, b) => a - b)) hit(Number(plain[k]!.slice(0, plain[k]!.indexOf('\t'))), plainAt.get(k)!);
      for (const r of regexes) if (r.at >= 0) hit(r.label, r.at);
      return [...first.entries()].sort((a, b) => a[1] - b[1]).map(([label]) => matcher.labels[label]!);
    },
  };
}
