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

const HEADING = /^ {0,3}#{1,6}(?:[ \t]+|$)/;

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
  const levels = masked.map((l) => (HEADING.test(l) ? /#+/.exec(l)![0].length : 0));
  const counts = [0, 0, 0, 0, 0, 0, 0];
  for (const l of levels) counts[l]!++;
  let cut = counts.findIndex((c, l) => l > 0 && c >= 2);
  if (cut < 0) cut = counts.findIndex((c, l) => l > 0 && c > 0);
  for (let i = 0; i < lines.length; i++) {
    const m = levels[i]! > 0 && levels[i]! <= cut ? HEADING.exec(masked[i]!) : null;
    if (!m) continue;
    close(i);
    heading = lines[i]!.slice(m[0].length).replace(/[ \t]+#+[ \t]*$/, '').trim();
    from = i + 1;
  }
  close(lines.length);
  return out;
}

/** True when a body has more than one section: a page the prompt hook may read part by part. */
export function hasSections(body: string): boolean {
  // NOTE: most bodies have no heading line at all; only those are masked and cut (a build checks every entry).
  return /^ {0,3}#{1,6}(?:[ \t]|$)/m.test(body) && sections(body).length > 1;
}
