/**
 * Contract: Latin letters folded to plain ASCII, so that "café" and "cafe", "Ärger" and "arger", "straße" and
 * "strasse" meet: in search terms (terms.ts) and in file-name slugs (core/format/entry.ts slugify). Compatibility
 * forms are unfolded too ("ﬁ" is "fi", a full-width "Ａ" is "A"). Other scripts are left as they are (their
 * marks are part of the letter: kana voicing, Devanagari vowel signs). Pure.
 */

/** Letters that carry no combining mark to strip but have a usual ASCII spelling. */
const LETTERS: Record<string, string> = { ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ð: 'd', Ð: 'D', ł: 'l', Ł: 'L', þ: 'th', Þ: 'TH', ı: 'i' };
const LETTER = /[ßẞæÆœŒøØđĐðÐłŁþÞı]/g;

/** `text` with Latin diacritics dropped and the letters above spelled in ASCII; ASCII text is returned as it is. */
export function foldLatin(text: string): string {
  // NOTE: a search rebuild folds hundreds of megabytes: ASCII text (most of it) is not touched.
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(LETTER, (c) => LETTERS[c]!)
    .normalize('NFC');
}
