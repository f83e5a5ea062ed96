/**
 * Contract: the one term pipeline of git-kb, shared by full-text search (adapters/index/term-count.ts, as MiniSearch's
 * tokenize and processTerm) and the prompt index (core/text/prompt-text.ts, for titles, tags, aliases and
 * prompts): `tokenize` cuts text into lower-cased words, `stem` folds inflections onto a base form, and
 * `terms` runs both and drops stop words. A `TermProfile` says which words are dropped; it is the only thing
 * the two sides may set differently. Any change here that changes a term changes every index on disk: bump
 * TERMS_VERSION, which the search base, the prompt index and the turn index all record and check. Pure, no I/O.
 */

import { foldLatin } from './fold.js';

/** Bump when a text's terms change (a word split, dropped or stemmed otherwise): every stored index is rebuilt. */
export const TERMS_VERSION = 13;

/** Tokens longer than this are not words (hashes, base64, minified code). */
export const MAX_TOKEN_CHARS = 40;

/** English function words: no topic in a query or a note. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but ' +
    'by can could did do does doing down during each few for from further had has have having he her here hers herself ' +
    'him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or ' +
    'other our ours ourselves out over own same she should so some such than that the their theirs them themselves then ' +
    'there these they this those through to too under until up very was we were what when where which while who whom ' +
    'why will with would you your yours yourself yourselves'
  ).split(' '),
);

// NOTE: the filler of prompts to a coding agent ("can you", "how do I", "please fix", "this works"), tuned on
// bench/data/hook-prompts.json (spec/hooks.md). Search keeps these words: a query is typed to find a note, and
// "work tree", "new branch" or "help page" must still find it; a prompt is a chat sentence, and these words in
// it would fire pointers to every title that has one. The commonest verbs and nouns (get, use, make, need,
// want, way, thing) are here too, not among the function words: in a query they can be the topic (`make`, a
// Makefile, `go get`, "get the absolute path"), and search measured better keeping them (bench/retrieval.mjs).
const PROMPT_FILLER =
  'get got use using used want need make way thing things ' +
  'almost also anything aren arent around away back cannot cant couldn didn didnt doesn doesnt don dont either ' +
  'else even ever every everything gets getting give given go goes going gone hadn hasn haven however id ill im ' +
  'instead isn isnt ive keep keeps kind know let lets like ll look looks made makes making many may maybe might ' +
  'mine much must needs never new nothing often ok okay one onto others otherwise please pretty probably put ' +
  'quite rather re really right say says see seem seems shall shouldn since something sometimes somewhere still ' +
  'sure take tell thank thanks thats think though thus try trying upon us uses ve via wants wasn ways well ' +
  'weren whats whatever whether whole whose within without won wont wouldn yes yet youre able actually already ' +
  'always another anyway asked bit e.g etc figure fine gonna good great guess help hey hi hmm i.e lot lots mean ' +
  'means okey sort stuff wanna ask tried work works working lol';

/** STOP_WORDS plus the filler of prompts (see the NOTE above). */
export const PROMPT_STOP_WORDS: ReadonlySet<string> = new Set([...STOP_WORDS, ...PROMPT_FILLER.split(' ')]);

/** Which words a side of the pipeline drops. */
export interface TermProfile {
  stop: ReadonlySet<string>;
  /** Keep tokens made only of digits (ports, status codes: a search for "port 3000" needs them). */
  numbers: boolean;
}

// NOTE: particles that make a phrasal verb of a command ("log out", "turn off", "set up", "scroll down"): a
// query names the action with them, so search keeps them (measured on bench/retrieval.mjs); the prompt side drops them.
const PARTICLES = new Set(['out', 'off', 'up', 'down', 'over', 'under']);

/** Search: the function words but the particles, numbers kept. */
export const SEARCH_TERMS: TermProfile = { stop: new Set([...STOP_WORDS].filter((w) => !PARTICLES.has(w))), numbers: true };
/**
 * The prompt index: prompt filler too, and no pure numbers or ordinals. NOTE: numbers in a prompt are line numbers, counts
 * and log noise far more often than a topic, and the prompt signals match titles, which rarely hold one.
 */
export const PROMPT_TERMS: TermProfile = { stop: PROMPT_STOP_WORDS, numbers: false };

/** Scripts written without spaces between words (Chinese, Japanese; Korean's words carry their particles). */
const CJK_CLASS = '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\u30fc';
let cjkPatterns: { one: RegExp; every: RegExp; runs: RegExp } | undefined;
/**
 * The CJK patterns: one character, every character, and a token's runs of CJK characters and of other letters in
 * order. NOTE: compiled on first use: only a text with non-ASCII characters needs them, and building their Unicode
 * classes costs most of a millisecond in a process that starts for one prompt.
 */
function cjk(): { one: RegExp; every: RegExp; runs: RegExp } {
  return (cjkPatterns ??= {
    one: new RegExp(`[${CJK_CLASS}]`, 'u'),
    every: new RegExp(`[${CJK_CLASS}]`, 'gu'),
    runs: new RegExp(`[${CJK_CLASS}]+|[^${CJK_CLASS}]+`, 'gu'),
  });
}

/** How many CJK characters a text holds (each says about as much as a short word of a Latin script). */
export function cjkChars(text: string): number {
  return /^[\x00-\x7f]*$/.test(text) ? 0 : (text.match(cjk().every)?.length ?? 0);
}

/**
 * A token holding CJK characters as terms: each run of them as its overlapping pairs of characters ("東京都" is
 * "東京", "京都"; one character alone is itself), as search engines index text with no spaces between words
 * without a dictionary; a word a query names is then found inside a longer run. Letters of other scripts in the
 * token stay one token.
 */
function cjkTokens(word: string): string[] {
  const out: string[] = [];
  const { one, runs } = cjk();
  for (const run of word.match(runs) ?? []) {
    if (!one.test(run)) {
      out.push(run);
      continue;
    }
    const chars = [...run];
    if (chars.length === 1) out.push(run);
    for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  }
  return out;
}

/**
 * The lower-cased word tokens of a text: runs of letters, digits and combining marks, inner apostrophes dropped
 * ("don't" is "dont"), Latin letters folded to ASCII (fold.ts: "café" is "cafe", "straße" is "strasse"); tokens over MAX_TOKEN_CHARS left out, and pure numbers and ordinals too unless `numbers`.
 */
export function tokenize(text: string, numbers = true): string[] {
  let lower = text.toLowerCase();
  if (lower.includes("'") || lower.includes('’')) lower = lower.replace(/['’]/g, '');
  // NOTE: the Unicode-aware pattern and the fold are only run on text that needs them: they cost a fraction of a
  // millisecond, which the prompt path counts.
  const ascii = /^[\x00-\x7f]*$/.test(lower);
  let words: string[] = (ascii ? lower.match(/[a-z0-9]+/g) : foldLatin(lower).match(/[\p{L}\p{N}\p{M}]+/gu)) ?? [];
  if (!ascii && cjk().one.test(lower)) words = words.flatMap(cjkTokens);
  // NOTE: an ordinal ("9th", "2nd") and a number's plural ("404s", "1990s") are numbers too: in a prompt, a date
  // or a count, not its subject.
  const dropped = (w: string): boolean => w.length > MAX_TOKEN_CHARS || (!numbers && /^\d+(?:st|nd|rd|th|s)?$/.test(w));
  // NOTE: most texts drop nothing, and their word list is returned as it is (a rebuild tokenizes 200 MB).
  for (let i = 0; i < words.length; i++) if (dropped(words[i]!)) return words.filter((w) => !dropped(w));
  return words;
}

/** One token through the rest of the pipeline: its stem, or undefined when the profile drops it. */
export function termOf(token: string, profile: TermProfile): string | undefined {
  // NOTE: one character is no word, but for a CJK one (U+2E80 and up), which is.
  if ((token.length < 2 && token.charCodeAt(0) < 0x2e80) || profile.stop.has(token)) return undefined;
  const s = stem(token);
  return s === token || !(s.length < 2 || profile.stop.has(s)) ? s : undefined;
}

/** The terms of a text: tokenized, stop words dropped, each stemmed (order kept, repeats kept). */
export function terms(text: string, profile: TermProfile): string[] {
  const out: string[] = [];
  for (const t of tokenize(text, profile.numbers)) {
    const s = termOf(t, profile);
    if (s !== undefined) out.push(s);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The stemmer. NOTE: it folds inflections (plural, -ing, -ed) onto the base word as written, final e included
// ("rebasing", "rebased", "rebases" and "rebase" are all "rebase"; "statuses" is "status"), so that a term
// reads as the word it came from. An -ing or -ed form has lost the base's final e, and the rules below decide
// from the letters whether to give it back; the lists cover what the rules cannot tell.

/** A lookup table of words (a Map: a word such as "constructor" must not find Object's own properties). */
function table(pairs: Record<string, string>): ReadonlyMap<string, string> {
  return new Map(Object.entries(pairs));
}

/** Whole words whose stem the rules get wrong. */
const IRREGULAR = table({
  canvas: 'canvas',
  canvases: 'canvas',
  atlas: 'atlas',
  chaos: 'chaos',
  kudos: 'kudos',
  macos: 'macos',
  news: 'news',
  series: 'series',
  species: 'species',
});
/** Words that end in -ed without being a past tense. */
const NOT_PAST = new Set(['embed', 'imbed', 'testbed', 'hundred', 'sacred', 'naked', 'wicked']);
/** Stems left by -ing, -ed or -es that the rules would not turn back into their word. */
const STEM_FIX = table({
  cach: 'cache',
  creat: 'create',
  rout: 'route',
  past: 'paste',
  wast: 'waste',
  tast: 'taste',
  guid: 'guide',
  controll: 'control',
  patroll: 'patrol',
  cancell: 'cancel',
  labell: 'label',
  modell: 'model',
  travell: 'travel',
  levell: 'level',
  signall: 'signal',
  channell: 'channel',
  tunnell: 'tunnel',
  totall: 'total',
});
/** Endings of a stem that lost a final e to -ing or -ed, with words each serves (and words it must not). */
const TAKES_E_ENDINGS = [
  '[^aeiou]at|[iu]at', // update, migrate, evaluate, instantiate (not repeat, float)
  'u', // issue, continue, queue, rescue, value
  '[^aeiouwrl]l', // handle, bundle, toggle, sample, cycle (not curl, bowl, install)
  '[^aeiou][iu]l', // compile, file, profile, rule, schedule (not fail, detail)
  'v', // save, move, resolve, serve
  '[^z]z', // optimize, size, freeze (not buzz)
  '[^aeious]s', // parse, reverse, collapse, license (not pass)
  '(?:^|[aeiou])us', // use, cause, pause, reuse (not focus, bus)
  '[^i]as|is|os|ys', // rebase, release, promise, raise, close, analyse (not alias, bias)
  '[aeiou]c|rc|[a-z]{3}nc', // place, produce, force, source, enhance, bounce (not sync)
  '[rdl]g|[aei]g', // merge, judge, stage, page, manage (tag, log and debug double their g instead)
  'eng|(?:ch|r)ang', // challenge, change, arrange, range (not hang, bring, belong)
  '[^aeiou][aeiou]d', // code, encode, provide, include, upgrade, precede (not load, avoid, add)
  '[^aeiou][aeiouy]k', // invoke, bake, like, smoke (not speak, check)
  '(?:[^aeiou]|qu)[aiu]r', // compare, share, require, configure, secure (not clear, pour, enter)
  '(?:st|pl|gn)or', // restore, explore, ignore (not monitor, color)
  '(?:[aeiou]l|pl)et', // delete, complete (not target, wallet)
  'writ|[^o]ut|mot', // write, rewrite, execute, compute, promote (not shout)
  '[^aeiou]in', // define, combine, pipeline (not join, contain)
  'nam|(?:be|wel|over)com|sum', // rename, become, welcome, assume, consume
  'typ|scap|scrib', // prototype, escape, describe
];
const TAKES_E = new RegExp(`(?:${TAKES_E_ENDINGS.join('|')})$`);

function isVowel(w: string, i: number): boolean {
  const c = w[i]!;
  if ('aeiou'.includes(c)) return !(c === 'u' && w[i - 1] === 'q');
  return c === 'y' && i > 0 && !isVowel(w, i - 1);
}

/**
 * True for a stem of one syllable ending consonant-vowel-consonant, the last not w, x or y (Porter's "*o" with
 * m = 1): such a word doubles its consonant before -ing when it has no final e (stop, stopping), so a single
 * one means the e was dropped (code, coding; store, storing; write, writing).
 */
function shortSyllable(w: string): boolean {
  const n = w.length;
  if (n < 3 || !isVowel(w, n - 2) || isVowel(w, n - 1) || isVowel(w, n - 3) || /[wxy]$/.test(w)) return false;
  let groups = 0;
  for (let i = 0; i < n - 1; i++) if (isVowel(w, i) && !isVowel(w, i + 1)) groups++;
  return groups === 1;
}

/** The base word of a stem that lost an -ing or -ed ending. */
function restore(s: string): string {
  const fixed = STEM_FIX.get(s);
  if (fixed) return fixed;
  // A doubled consonant was doubled for the ending (commit -> committing), except in a three-letter stem (add).
  if (s.length >= 4 && /([bdgmnprt])\1$/.test(s)) return s.slice(0, -1);
  return TAKES_E.test(s) || shortSyllable(s) ? `${s}e` : s;
}

const HAS_VOWEL = /[aeiouy]/;

/**
 * A light stemmer for English: folds plurals and third persons (-s, -es, -ies), -ing and -ed onto the base word,
 * so "indexes", "indexing" and "indexed" meet "index", and "merges", "merging" and "merged" meet "merge".
 * Words of three letters or fewer, and words with a digit, are kept as they are, but a number's plural ("404s",
 * "1990s"), which is the number. Then names of one thing become one (SAME_THING: "mac" and "osx" are "macos").
 */
export function stem(word: string): string {
  const s = stemWord(word);
  return SAME_THING.get(s) ?? s;
}

/**
 * Names of one thing that notes and prompts use interchangeably, folded onto one term: "on my mac" meets a note
 * tagged `osx` or titled "macOS". NOTE: only names with no other common sense in developers' text (the `mac`
 * of "MAC address" is the exception accepted: it meets macOS notes too). Measured (bench/search-tune.mjs,
 * bench/hook-tune.mjs): tldr-pages' search recall@1 54.6 to 58.5%, its hook hits 39.2 to 42.3% (with the background
 * regenerated), no false fire added on any corpus. Abbreviations (repo, config, env, dir, db) and language short names (js, ts, py) measured
 * mixed: not folded.
 */
const SAME_THING = table({ mac: 'macos', osx: 'macos' });

function stemWord(word: string): string {
  if (/\d/.test(word)) return /^\d+s$/.test(word) ? word.slice(0, -1) : word;
  if (word.length <= 3) return word;
  const irregular = IRREGULAR.get(word);
  if (irregular) return irregular;
  let s = word;
  if (s.endsWith('ies')) s = s.length > 4 && !/[kv]ies$/.test(s) ? `${s.slice(0, -3)}y` : s.slice(0, -1);
  else if (/(?:ss|x|ch|sh|zz|[^aeiou]us|ias)es$/.test(s)) s = STEM_FIX.get(s.slice(0, -2)) ?? s.slice(0, -2);
  else if (s.endsWith('s') && !/(?:ss|us|is|ias)$/.test(s)) s = s.slice(0, -1);
  if (s.endsWith('ing') && s.length > 5 && HAS_VOWEL.test(s.slice(0, -3))) return restore(s.slice(0, -3));
  if (s.endsWith('ied') && s.length > 4) return `${s.slice(0, -3)}y`;
  if (s.endsWith('ed') && !s.endsWith('eed') && s.length > 4 && !NOT_PAST.has(s) && HAS_VOWEL.test(s.slice(0, -2))) return restore(s.slice(0, -2));
  return s;
}
