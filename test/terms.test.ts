/**
 * The one term pipeline (src/core/text/terms.ts): the stemmer on a table of words, the tokenizer, the two stop
 * lists, and search and the prompt index giving the same terms for the same words.
 */
import { describe, expect, it } from 'vitest';
import { queryTerms } from '../src/adapters/index/search.js';
import { processTerm } from '../src/adapters/index/term-count.js';
import { keywords, tagKeywords } from '../src/core/text/prompt-text.js';
import { PROMPT_STOP_WORDS, PROMPT_TERMS, SEARCH_TERMS, STOP_WORDS, stem, terms, tokenize } from '../src/core/text/terms.js';

/** [word, its stem]: every inflection lands on the base word as written, final e included. */
const STEMS: [string, string][] = [
  ['rebase', 'rebase'],
  ['rebases', 'rebase'],
  ['rebasing', 'rebase'],
  ['rebased', 'rebase'],
  ['merge', 'merge'],
  ['merges', 'merge'],
  ['merging', 'merge'],
  ['merged', 'merge'],
  ['status', 'status'],
  ['statuses', 'status'],
  ['index', 'index'],
  ['indexes', 'index'],
  ['indexing', 'index'],
  ['indexed', 'index'],
  ['commits', 'commit'],
  ['committed', 'commit'],
  ['committing', 'commit'],
  ['branches', 'branch'],
  ['alias', 'alias'],
  ['aliases', 'alias'],
  ['aliasing', 'alias'],
  ['databases', 'database'],
  ['cache', 'cache'],
  ['caches', 'cache'],
  ['caching', 'cache'],
  ['queries', 'query'],
  ['queried', 'query'],
  ['running', 'run'],
  ['stopped', 'stop'],
  ['classes', 'class'],
  ['processes', 'process'],
  ['causes', 'cause'],
  ['buses', 'bus'],
  ['focusing', 'focus'],
  ['changing', 'change'],
  ['staging', 'stage'],
  ['coding', 'code'],
  ['encoding', 'encode'],
  ['providing', 'provide'],
  ['including', 'include'],
  ['writing', 'write'],
  ['typing', 'type'],
  ['deleting', 'delete'],
  ['creating', 'create'],
  ['updated', 'update'],
  ['handling', 'handle'],
  ['compiling', 'compile'],
  ['scheduling', 'schedule'],
  ['resolving', 'resolve'],
  ['parsing', 'parse'],
  ['closing', 'close'],
  ['replacing', 'replace'],
  ['syncing', 'sync'],
  ['comparing', 'compare'],
  ['configuring', 'configure'],
  ['requiring', 'require'],
  ['storing', 'store'],
  ['ignoring', 'ignore'],
  ['routing', 'route'],
  ['issuing', 'issue'],
  ['evaluating', 'evaluate'],
  ['cloning', 'clone'],
  ['logging', 'log'],
  ['debugging', 'debug'],
  ['adding', 'add'],
  ['embedded', 'embed'],
  ['embed', 'embed'],
  ['installing', 'install'],
  ['monitoring', 'monitor'],
  ['filtering', 'filter'],
  ['editing', 'edit'],
  ['opening', 'open'],
  ['joining', 'join'],
  ['hanging', 'hang'],
  ['controlled', 'control'],
  ['settings', 'set'],
  ['entries', 'entry'],
  ['cookies', 'cookie'],
  ['schemas', 'schema'],
  ['repos', 'repo'],
  ['string', 'string'],
  ['speed', 'speed'],
  ['needed', 'need'],
  ['fixes', 'fix'],
  ['pushes', 'push'],
  ['v2s', 'v2s'],
  ['vim', 'vim'],
  ['constructor', 'constructor'],
];

describe('stem', () => {
  it('has a table of at least 30 words', () => {
    expect(STEMS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(STEMS)('%s -> %s', (word, want) => {
    expect(stem(word)).toBe(want);
  });
});

describe('tokenize and terms', () => {
  it('lower-cases, drops apostrophes and giant tokens, keeps numbers only when asked, reads any script', () => {
    expect(tokenize("Don't use the 2 branches")).toEqual(['dont', 'use', 'the', '2', 'branches']);
    expect(tokenize('port 3000 v2', false)).toEqual(['port', 'v2']);
    // An ordinal is a number too where numbers are dropped (a date in a prompt); search keeps both.
    expect(tokenize('shows March 9th, the 2nd run, 3rd time, 21st day, 300ms', false)).toEqual(['shows', 'march', 'the', 'run', 'time', 'day', '300ms']);
    expect(tokenize('the 2nd run')).toEqual(['the', '2nd', 'run']);
    // A number's plural is the number: dropped with numbers, and searched as the number ("404s" finds "404").
    expect(tokenize('still 404s in the 1990s, 10s', false)).toEqual(['still', 'in', 'the']);
    expect(terms('still 404s in the 1990s, v2s', SEARCH_TERMS)).toEqual(['still', '404', '1990', 'v2s']);
    expect(tokenize(`x${'a'.repeat(60)} café Straße`)).toEqual(['cafe', 'strasse']);
    expect(tokenize('max_connections 127.0.0.1')).toEqual(['max', 'connections', '127', '0', '0', '1']);
  });

  it('folds Latin letters to ASCII, so an accent typed or left out finds the same note; other scripts stay', () => {
    for (const profile of [SEARCH_TERMS, PROMPT_TERMS]) {
      expect(terms('Größenänderung: Ärger, café naïve, Œuvre, Łódź, ﬁle', profile)).toEqual(terms('Grossenanderung: Arger, cafe naive, Oeuvre, Lodz, file', profile));
    }
    expect(tokenize('Ｆｕｌｌ width ÉCOLE')).toEqual(['full', 'width', 'ecole']);
    // Kana keep their voicing marks (a mark there is part of the letter): プ and フ are different words.
    expect(tokenize('プール フール').map((t) => t.normalize('NFC'))).toEqual(['プー', 'ール', 'フー', 'ール']);
    expect(tokenize('データベース').map((t) => t.normalize('NFC'))).toEqual(['デー', 'ータ', 'タベ', 'ベー', 'ース']);
  });

  it('reads text with no spaces between words (Chinese, Japanese, Korean) as pairs of characters, so a word is found inside a run', () => {
    // "東京都" holds "東京" and "京都"; a query for 京都 (Kyoto) meets it as a query for "rebase" meets "rebasing".
    expect(tokenize('東京都に住む')).toEqual(['東京', '京都', '都に', 'に住', '住む']);
    for (const profile of [SEARCH_TERMS, PROMPT_TERMS]) {
      expect(terms('東京都に住む', profile)).toEqual(expect.arrayContaining(terms('京都', profile)));
      // One character alone is a word there (a cat), not dropped as a stray letter is.
      expect(terms('猫 a x', profile)).toEqual(['猫']);
    }
    // Latin letters in the run stay one word; the prolonged sound mark is part of a katakana word.
    expect(tokenize('Rustの本 コーヒー')).toEqual(['rust', 'の本', 'コー', 'ーヒ', 'ヒー']);
    expect(tokenize('한국어 문서')).toEqual(['한국', '국어', '문서']);
  });

  it('folds the names of one thing onto one term, on both sides', () => {
    // "on my mac" meets a note tagged osx or titled macOS, in search and in the prompt index alike.
    for (const profile of [SEARCH_TERMS, PROMPT_TERMS]) expect(terms('Mac OSX macOS macos', profile)).toEqual(['macos', 'macos', 'macos', 'macos']);
    expect(stem('macs')).toBe('macos');
    // Only those names: a word that merely starts like one is its own.
    expect(terms('machine macro', SEARCH_TERMS)).toEqual(['machine', 'macro']);
  });

  it('search keeps what a query needs; the prompt drops its filler and numbers', () => {
    for (const w of STOP_WORDS) expect(PROMPT_STOP_WORDS.has(w), w).toBe(true);
    expect(terms('how do I get the new work tree on port 3000', SEARCH_TERMS)).toEqual(['get', 'new', 'work', 'tree', 'port', '3000']);
    expect(terms('how do I get the new work tree on port 3000', PROMPT_TERMS)).toEqual(['tree', 'port']);
  });
});

describe('search and the prompt index agree', () => {
  const words = STEMS.map(([w]) => w).filter((w) => !PROMPT_STOP_WORDS.has(w) && !PROMPT_STOP_WORDS.has(stem(w)));

  it('give the same term for every word, whatever its case', () => {
    expect(words.length).toBeGreaterThan(30);
    for (const w of words) {
      const cased = w[0]!.toUpperCase() + w.slice(1);
      expect(processTerm(cased), w).toBe(keywords(cased)[0] ?? null);
      expect(queryTerms(w), w).toEqual(keywords(w));
      expect(tagKeywords(w), w).toEqual(keywords(w));
    }
  });

  it('on a sentence, the prompt keywords are the search terms without the prompt-only stop words and numbers', () => {
    const text = 'Rebasing the feature branches broke 30 merges; please fix the statuses of the indexes and caches';
    const search = queryTerms(text);
    expect(search).toEqual(['rebase', 'feature', 'branch', 'broke', '30', 'merge', 'please', 'fix', 'status', 'index', 'cache']);
    expect(keywords(text)).toEqual(search.filter((t) => !/^\d+$/.test(t) && !PROMPT_STOP_WORDS.has(t)));
  });
});
