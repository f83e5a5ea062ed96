/**
 * Contract: which session summaries are trivial (spec/sessions.md, "Trivial sessions"): the recent-sessions
 * pointers leave them out. Pure, and tiny on purpose: the prompt index builder imports it.
 */

/** A session this short is left out of the recent-sessions pointers (spec/sessions.md, "Trivial sessions"). */
export const TRIVIAL = { prompts: 1, minutes: 5 };

/**
 * True for a summary not worth pointing to: at most one prompt, no file changed, no command that did work, no pull
 * request, and under TRIVIAL.minutes from start to end. Reads the summary's front matter fields (a summary older
 * than the field, version 1 for `files_changed` and 1 or 2 for `commands`, counts as having none).
 */
export function isTrivialSession(d: Record<string, unknown>): boolean {
  const turns = typeof d.turns === 'number' ? d.turns : Number.NaN;
  if (!(turns <= TRIVIAL.prompts)) return false;
  if (typeof d.files_changed === 'number' && d.files_changed > 0) return false;
  if (typeof d.commands === 'number' && d.commands > 0) return false;
  if (Array.isArray(d.pr_links) && d.pr_links.length > 0) return false;
  const t = (v: unknown): number => (v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : Number.NaN);
  const ms = t(d.ended) - t(d.started);
  return Number.isFinite(ms) ? ms < TRIVIAL.minutes * 60_000 : true;
}
