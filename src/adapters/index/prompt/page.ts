/**
 * Contract: a page with sections read part by part for the keyword signal (spec/hooks.md, "Keyword"): the entry
 * file is read now (the index records which pages have sections, format.ts IndexDoc.path), cut at its headings
 * (core/format/sections.ts), and each section's keywords taken with the same pipeline as the index's (the entry's
 * title with every section, as a note's title is with its body). Asked only for the few entries a prompt could
 * point to, when the page as a whole holds the prompt's words too thinly.
 */
import { bodyOf } from '../../../core/format/fence.js';
import { readableLinks } from '../../../core/format/links.js';
import { sections } from '../../../core/format/sections.js';
import { keywords } from '../../../core/text/prompt-text.js';
import { readEntryText } from '../../store/layout.js';

/** The distinct keywords of each section of the page at `rel` in `dir`, with the title's; undefined when unreadable. */
export function sectionKeywords(dir: string, rel: string, title: string): Set<string>[] | undefined {
  let text: string;
  try {
    text = readEntryText(dir, rel);
  } catch {
    return undefined; // gone or changed into something unreadable: the next prompt's freshness check sees it
  }
  const own = keywords(title);
  return sections(readableLinks(bodyOf(text))).map((s) => new Set([...own, ...keywords(s.heading), ...keywords(s.text)]));
}
