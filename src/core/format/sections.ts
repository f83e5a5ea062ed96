/**
 * Contract: an entry body cut into its sections at its markdown headings (ATX `#` to `######`, outside code), for
 * the prompt hook's reading of a long page as the several notes it holds (spec/hooks.md, "Keyword": the focus bar
 * of a page with sections). Pure.
 */
import { maskCode } from './links.js';

/** One part of a body: its heading's text ('' for what comes before the first heading) and the lines under it. */
export interface Section {
  heading: string;
  text: string;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+|$)/;
/** Any line of a text that is a heading (HEADING's pattern, every line): the quick test before a text is cut. */
const ANY_HEADING = new RegExp(HEADING.source, 'm');

/**
 * The sections of a body, in order: the text before the first heading (when it holds anything but white space),
 * then each top-level heading with the text up to the next one, its subsections included. Top level: the
 * shallowest heading level that occurs at least twice, else the shallowest there is. A heading inside fenced or
 * inline code is text.
 */
export function sections(body: string): Section[] {
  if (!body.includes('#')) return body.trim() ? [{ heading: '', text: body }] : [];
  const lines = body.split('\n');
  // NOTE: headings are found in the masked text (code blanked, same line lengths) and read from the original.
  const masked = maskCode(body).split('\n');
  const out: Section[] = [];
  let heading = '';
  let from = 0;
  const close = (to: number): void => {
    const text = lines.slice(from, to).join('\n');
    if (heading || text.trim()) out.push({ heading, text });
  };
  // NOTE: cut into its top-level parts only: subsections of a few lines would each read as a note of their own,
  // and a short one sharing two or three words with a prompt passes the focus bar (measured on corpus4, the
  // development corpus of long pages: spec/hooks.md, "Keyword").
  const heads = masked.map((l) => HEADING.exec(l));
  const counts = [0, 0, 0, 0, 0, 0, 0];
  for (const m of heads) if (m) counts[m[1]!.length]!++;
  let cut = counts.findIndex((c, l) => l > 0 && c >= 2);
  if (cut < 0) cut = counts.findIndex((c, l) => l > 0 && c > 0);
  for (let i = 0; i < lines.length; i++) {
    const m = heads[i];
    if (!m || m[1]!.length > cut) continue;
    close(i);
    heading = lines[i]!.slice(m[0].length).replace(/[ \t]+#+[ \t]*$/, '').trim();
    from = i + 1;
  }
  close(lines.length);
  return out;
}

/** The most parts a page is read in (a bit each in a 32-bit mask); the last one takes the rest of the page. */
export const MAX_PARTS = 32;

/**
 * A page read part by part, as the prompt index keeps it: each part's count of distinct keywords, and per keyword a
 * mask of the parts that hold it (bit i: part i).
 */
export interface PageParts {
  sizes: number[];
  masks: Map<string, number>;
}

/**
 * The parts of a page with more than one section (undefined for one section or none): each section with the
 * page's title, its keywords by `keywordsOf` (the prompt index's pipeline); sections past MAX_PARTS join the last.
 */
export function pageParts(title: string, body: string, keywordsOf: (text: string) => string[]): PageParts | undefined {
  // NOTE: most bodies have no heading line at all; only those are masked and cut (a build checks every entry).
  if (!ANY_HEADING.test(body)) return undefined;
  const secs = sections(body);
  if (secs.length < 2) return undefined;
  const own = keywordsOf(title);
  const sets: Set<string>[] = [];
  for (const [i, sec] of secs.entries()) {
    const words = [...keywordsOf(sec.heading), ...keywordsOf(sec.text)];
    if (i < MAX_PARTS) sets.push(new Set([...own, ...words]));
    else for (const w of words) sets[MAX_PARTS - 1]!.add(w);
  }
  const masks = new Map<string, number>();
  sets.forEach((set, i) => {
    for (const w of set) masks.set(w, (masks.get(w) ?? 0) | (1 << i));
  });
  return { sizes: sets.map((x) => x.size), masks };
}
