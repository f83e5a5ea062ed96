/**
 * Contract: `regexRisk(pattern, flags)` says why a rule pattern could take more than linear time on long prose,
 * or returns undefined. It parses the pattern (which must already compile) into a small tree and refuses, in
 * this order: back-references; repetition inside repetition (`(a+)+`); a repeated group whose alternatives can
 * start with the same character or that can match nothing (`(a|ab)*`, `(a?)*`); two or more open-ended
 * runs of characters that cross words, i.e. match both a space and a letter (`.*x.*`, `[^.]*x[^.]*`). It is
 * conservative: a pattern it refuses may be harmless, and the message says how to rewrite it. Last, runs in a row
 * that can split one long word between them (`[a-z]+[a-z0-9]+`, `\d{0,100}` three times): adjacentRuns. Pure,
 * no imports.
 */

/** A repeat count above this counts as "many" for nesting and alternation checks. */
const MANY = 10;
/** A repeat count above this counts as open-ended for the crossing-runs check. */
const OPEN = 100;

type Node =
  | { t: 'char'; src: string }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; branches: Node[] }
  | { t: 'group'; body: Node; look: boolean }
  | { t: 'quant'; body: Node; min: number; max: number }
  | { t: 'assert' }
  | { t: 'backref' };

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly unicode: boolean,
  ) {}

  parseAlt(): Node {
    const branches = [this.parseSeq()];
    while (this.s[this.i] === '|') {
      this.i++;
      branches.push(this.parseSeq());
    }
    return branches.length === 1 ? branches[0]! : { t: 'alt', branches };
  }

  private parseSeq(): Node {
    const items: Node[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') items.push(this.parseQuant(this.parseAtom()));
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  }

  private parseQuant(atom: Node): Node {
    const s = this.s;
    const c = s[this.i];
    let min: number;
    let max: number;
    if (c === '*' || c === '+' || c === '?') {
      this.i++;
      min = c === '+' ? 1 : 0;
      max = c === '?' ? 1 : Infinity;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i, this.i + 40));
      if (!m) return atom; // a literal brace (Annex B)
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else return atom;
    if (s[this.i] === '?') this.i++; // lazy: same cost in the worst case
    return this.parseQuant({ t: 'quant', body: atom, min, max });
  }

  private parseAtom(): Node {
    const s = this.s;
    const c = s[this.i] as string;
    if (c === '(') {
      this.i++;
      let look = false;
      if (s[this.i] === '?') {
        const rest = s.slice(this.i, this.i + 4);
        if (rest.startsWith('?:')) this.i += 2;
        else if (rest.startsWith('?=') || rest.startsWith('?!')) (this.i += 2), (look = true);
        else if (rest.startsWith('?<=') || rest.startsWith('?<!')) (this.i += 3), (look = true);
        else if (rest.startsWith('?<')) this.i = s.indexOf('>', this.i) + 1;
      }
      const body = this.parseAlt();
      if (s[this.i] === ')') this.i++;
      return { t: 'group', body, look };
    }
    if (c === '[') return { t: 'char', src: this.readClass() };
    if (c === '\\') return this.readEscape();
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'assert' };
    }
    const cp = this.unicode ? (s.codePointAt(this.i) ?? 0) : s.charCodeAt(this.i);
    const len = cp > 0xffff ? 2 : 1;
    const src = s.slice(this.i, this.i + len);
    this.i += len;
    return { t: 'char', src: c === '.' ? '.' : escapeLiteral(src) };
  }

  private readClass(): string {
    const s = this.s;
    const start = this.i;
    let j = this.i + 1;
    if (s[j] === '^') j++;
    if (s[j] === ']' && !this.unicode) j++; // `[]` is empty, `[]]` in Annex B is a class of "]"
    while (j < s.length && s[j] !== ']') j += s[j] === '\\' ? 2 : 1;
    this.i = Math.min(s.length, j + 1);
    return s.slice(start, this.i);
  }

  private readEscape(): Node {
    const s = this.s;
    const e = s[this.i + 1] ?? '';
    const start = this.i;
    this.i += 2;
    if (/[1-9]/.test(e) || (e === 'k' && s[this.i] === '<')) {
      while (/\d/.test(s[this.i] ?? '')) this.i++;
      if (e === 'k') this.i = s.indexOf('>', this.i) + 1 || s.length;
      return { t: 'backref' };
    }
    if (e === 'b' || e === 'B') return { t: 'assert' };
    if ((e === 'p' || e === 'P') && s[this.i] === '{') this.i = s.indexOf('}', this.i) + 1 || s.length;
    else if (e === 'u' && s[this.i] === '{') this.i = s.indexOf('}', this.i) + 1 || s.length;
    else if (e === 'u') this.i += /^[0-9a-fA-F]{4}/.test(s.slice(this.i, this.i + 4)) ? 4 : 0;
    else if (e === 'x') this.i += /^[0-9a-fA-F]{2}/.test(s.slice(this.i, this.i + 2)) ? 2 : 0;
    else if (e === 'c') this.i += /[A-Za-z]/.test(s[this.i] ?? '') ? 1 : 0;
    return { t: 'char', src: s.slice(start, this.i) };
  }
}

function escapeLiteral(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

// Characters tried against each atom: whitespace, ASCII, and a few letters and marks common in prose.
const SPACES = [' ', '\t', '\n', '\u00a0'];
const SAMPLES: string[] = [...SPACES, '\r'];
for (let c = 0x21; c < 0x7f; c++) SAMPLES.push(String.fromCharCode(c));
SAMPLES.push('\u00e9', '\u00df', '\u00fc', '\u0436', '\u4e2d', '\u2014', '\u2013', '\u2018', '\u2019', '\u201c', '\u201d', '\u2026', '\u00b7');
const LETTERS = new Set([...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ', '\u00e9', '\u00df', '\u00fc', '\u0436', '\u4e2d']);

class Sets {
  private readonly cache = new Map<string, Set<string>>();
  constructor(private readonly flags: string) {}

  /** The sample characters one atom matches. */
  of(src: string): Set<string> {
    let set = this.cache.get(src);
    if (set) return set;
    set = new Set();
    try {
      const re = new RegExp(`^(?:${src})$`, this.flags);
      for (const ch of SAMPLES) if (re.test(ch)) set.add(ch);
    } catch {
      for (const ch of SAMPLES) set.add(ch); // unknown: assume it matches anything
    }
    this.cache.set(src, set);
    return set;
  }
}

function nullable(n: Node): boolean {
  switch (n.t) {
    case 'char':
      return false;
    case 'seq':
      return n.items.every(nullable);
    case 'alt':
      return n.branches.some(nullable);
    case 'group':
      return n.look || nullable(n.body);
    case 'quant':
      return n.min === 0 || nullable(n.body);
    default:
      return true;
  }
}

/** The characters a match of `n` can start with. */
function first(n: Node, sets: Sets, out = new Set<string>()): Set<string> {
  switch (n.t) {
    case 'char':
      for (const c of sets.of(n.src)) out.add(c);
      break;
    case 'seq':
      for (const item of n.items) {
        first(item, sets, out);
        if (!nullable(item)) break;
      }
      break;
    case 'alt':
      for (const b of n.branches) first(b, sets, out);
      break;
    case 'group':
      if (!n.look) first(n.body, sets, out);
      break;
    case 'quant':
      if (n.max > 0) first(n.body, sets, out);
      break;
  }
  return out;
}

/** Every character any atom inside `n` can match. */
function reach(n: Node, sets: Sets, out = new Set<string>()): Set<string> {
  if (n.t === 'char') for (const c of sets.of(n.src)) out.add(c);
  else for (const child of children(n)) reach(child, sets, out);
  return out;
}

function children(n: Node): Node[] {
  if (n.t === 'seq') return n.items;
  if (n.t === 'alt') return n.branches;
  if (n.t === 'group' || n.t === 'quant') return [n.body];
  return [];
}

function some(n: Node, test: (m: Node) => boolean): boolean {
  return test(n) || children(n).some((c) => some(c, test));
}

function alternatives(n: Node): Node[] | undefined {
  if (n.t === 'alt') return n.branches;
  if (n.t === 'group' && !n.look) return alternatives(n.body);
  return undefined;
}

function intersects(a: Set<string>, b: Set<string>): boolean {
  for (const x of a) if (b.has(x)) return true;
  return false;
}

/**
 * How many lengths a repetition inside `n` can take (outside lookarounds): `\d{0,100}` 100, `\d+` without end,
 * `\d{20}` none (one length, nothing to try). Runs in a row that can match the same characters multiply these at
 * each start: 100 x 100 x 100 x 100 for four `\d{0,100}`.
 */
function spread(n: Node): number {
  if (n.t === 'group' && n.look) return 0;
  const own = n.t === 'quant' ? n.max - n.min : 0;
  return Math.max(own, ...children(n).map(spread));
}

const openRun = (n: Node): boolean => spread(n) > MANY;

/** The most lengths runs in a row may multiply to at each start (`[^.]{0,80}x[^.]{0,80}`: 6,400). */
const ADJACENT_BUDGET = 10_000;

/**
 * A sequence with its groups opened and its short repetitions written out (`(?:\w+\s+){2}` is `\w+ \s+ \w+ \s+`;
 * a copy beyond the least count is optional), so runs are compared with what really stands between them.
 */
function flat(items: Node[]): Node[] {
  const out: Node[] = [];
  for (const n of items) {
    if (n.t === 'group' && !n.look) for (const m of flat(n.body.t === 'seq' ? n.body.items : [n.body])) out.push(m);
    else if (n.t === 'quant' && n.max <= MANY && n.max > 0 && openRun(n.body)) {
      const body = flat([n.body]);
      // A copy beyond the least count is one optional unit: its parts stay together (`(?:\.\w{2,9}){0,2}`).
      for (let k = 0; k < n.max; k++) {
        if (k < n.min) for (const b of body) out.push(b);
        else out.push({ t: 'quant', body: n.body, min: 0, max: 1 });
      }
    } else out.push(n);
  }
  return out;
}

/**
 * Two open-ended runs in one sequence that can match the same characters, with nothing between them that must
 * match a character neither can (`[a-z]+[a-z0-9]+`, `\w+_?\w+`): each split of a long run between them is tried
 * at each start, cubic time or worse on one long word (a base64 blob in a transcript). `\w+\s+\w+` and
 * `\d+\.\d+` are fine: the space and the dot separate them.
 */
function adjacentRuns(seq: Node[], sets: Sets): string | undefined {
  const items = flat(seq);
  // NOTE: every part of variable length counts, an optional character too: forty `[a-z ]?` in a row before
  // `[a-z ]{40}` are 2^40 ways to place forty letters, each tried at each start (the prose gate hung past its
  // deadline on one). A run multiplies the ways by its spread, an optional part (spread 1) by 2.
  const variable = (n: Node): boolean => spread(n) > 0;
  const ways = (n: Node): number => Math.max(2, spread(n));
  for (let i = 0; i < items.length; i++) {
    if (!variable(items[i]!)) continue;
    const a = reach(items[i]!, sets);
    let cost = ways(items[i]!);
    for (let j = i + 1; j < items.length; j++) {
      if (!variable(items[j]!)) continue;
      // Where the later run can start with a character the earlier one takes, a long run splits between them.
      const both = new Set([...first(items[j]!, sets)].filter((c) => a.has(c)));
      if (both.size === 0) continue;
      const separated = items.slice(i + 1, j).some((k) => !nullable(k) && !intersects(first(k, sets), both) && !intersects(reach(k, sets), both));
      if (separated) continue;
      cost *= ways(items[j]!);
      if (cost > ADJACENT_BUDGET) {
        return 'runs or optional parts in a row that can match the same characters (like [a-z]+[a-z0-9]+, \\d{0,100}\\d{0,100}\\d{0,100} or many [a-z ]? in a row) can take exponential time on one long word; merge them into one run, bound them, or put a character neither matches between them';
      }
    }
  }
  return undefined;
}

/** Why `pattern` could run away on long input, or undefined. The pattern must compile with `flags`. */
export function regexRisk(pattern: string, flags = 'i'): string | undefined {
  const unicode = flags.includes('u') || flags.includes('v');
  const tree = new Parser(pattern, unicode).parseAlt();
  const sets = new Sets(flags.replace(/[^imsu]/g, ''));
  if (some(tree, (n) => n.t === 'backref')) return 'back-references can run away on long input';

  let reason: string | undefined;
  let adjacent: string | undefined;
  const crossing: string[] = [];
  const visit = (n: Node): void => {
    if (reason) return;
    if (n.t === 'quant' && n.max > MANY) {
      if (some(n.body, (m) => m.t === 'quant' && m.max > MANY)) {
        reason = 'a repetition inside a repetition (like (a+)+ or (\\w+\\s?)*) can run away on long input; repeat one level only';
        return;
      }
      if (nullable(n.body)) {
        reason = 'a repeated part that can match nothing (like (a?)*) can run away on long input';
        return;
      }
      const alts = alternatives(n.body);
      if (alts) {
        const firsts = alts.map((b) => first(b, sets));
        for (let x = 0; x < firsts.length && !reason; x++) {
          for (let y = x + 1; y < firsts.length; y++) {
            if (intersects(firsts[x]!, firsts[y]!)) {
              reason = 'a repeated group whose alternatives can start with the same character (like (a|ab)+) can run away on long input; make the alternatives start differently';
              break;
            }
          }
        }
        if (reason) return;
      }
    }
    if (!adjacent && (n.t === 'seq' || (n.t === 'quant' && n.max <= MANY))) adjacent = adjacentRuns(n.t === 'seq' ? n.items : [n], sets);
    if (n.t === 'quant' && n.max > OPEN) {
      const chars = reach(n.body, sets);
      if (SPACES.some((c) => chars.has(c)) && [...chars].some((c) => LETTERS.has(c))) crossing.push(n.t);
    }
    for (const c of children(n)) visit(c);
  };
  visit(tree);
  if (reason) return reason;
  if (crossing.length >= 2) {
    return 'two open-ended runs that cross words (like .*a.* or [^.]*a[^.]*) take quadratic time or worse on long input; bound all but one, e.g. .{0,80}';
  }
  return adjacent;
}
