/**
 * Contract: the one way text is cut to a length for display (pointer titles, summary lines): white space collapsed,
 * then, when too long, cut at the last word boundary that keeps at least half of it (else mid-word), with `…`.
 * Pure and tiny: the prompt hook's bundle holds it.
 */

/** `s` with white space collapsed, at most `max` characters, cut at a word boundary where one is near. */
export function clipText(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  if (max <= 1) return '…'.slice(0, max);
  const cut = t.slice(0, max - 1);
  const space = t[max - 1] === ' ' ? cut.length : cut.lastIndexOf(' ');
  return `${(space >= max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
