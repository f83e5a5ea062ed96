/**
 * Contract: where an entry's front matter ends, found without a YAML parser. The one scan for the closing `---`
 * fence, shared by the parser (entry.ts) and the light readers that want only the body (search snippets, the
 * kernel, the prompt index). Dependency-free (./links.ts is plain string work).
 */
import { LINKS_OPEN_PREFIX, stripLinksSection } from './links.js';
import { toLf } from '../text/line-ends.js';

/** The closing fence line of front matter opened by the first line of `src` (`\n` line ends): its span, or undefined. */
export function closingFence(src: string): { start: number; end: number } | undefined {
  const close = /\n---[ \t]*(\n|$)/.exec(src.slice(3));
  return close ? { start: 3 + close.index, end: 3 + close.index + close[0].length } : undefined;
}

/**
 * The body of an entry file without parsing its YAML (for snippets and indexing): text after the closing fence,
 * without the generated Links section (./links.ts), whose links are the front matter's and whose file names
 * would lend the entry words of the entries it links to.
 */
export function bodyOf(text: string): string {
  const src = toLf(text);
  if (!src.startsWith('---')) return src;
  const close = closingFence(src);
  const body = close ? src.slice(close.end).replace(/^\n/, '') : src;
  return body.includes(LINKS_OPEN_PREFIX) ? stripLinksSection(body) : body;
}
