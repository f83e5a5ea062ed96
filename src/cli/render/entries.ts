/**
 * Contract: the human output of the entry verbs (add, edit, get, search, list, lint, import, history, restore):
 * pure functions from a use case's result to text. The --json output is the result itself (src/cli/main.ts).
 */
import type { AddResult } from '../../app/add.js';
import type { AdoptResult } from '../../app/adopt.js';
import type { CommitEditsResult } from '../../app/commit.js';
import type { DeleteResult } from '../../app/delete.js';
import type { EditResult } from '../../app/edit.js';
import type { GotEntry } from '../../app/get.js';
import type { entryHistory, RestoreResult } from '../../app/history.js';
import type { ImportResult } from '../../app/import.js';
import type { LintResult } from '../../app/lint.js';
import type { RelinkResult } from '../../app/relink.js';
import type { ListItem } from '../../app/list.js';
import type { SearchResultSet } from '../../app/search.js';
import type { TagCount } from '../../app/tags.js';
import { formatProblems, shownPath } from '../../core/errors.js';
import { diff, entryText, paint } from './colour.js';
import { localDate, localTime } from './time.js';
import { plural } from './plural.js';
import { nearestType } from '../../core/text/suggest.js';

/** `add`: the new id alone, so scripts can take it. */
export function add(r: AddResult): string {
  return r.recurred ? `${r.id}\nno new entry: recorded a recurrence on ${r.id} (seen ${r.count} times, commit ${r.commit.slice(0, 12)})` : r.id;
}

/** `edit`: the diff and the commit, or that nothing changed. */
export function edit(r: EditResult): string {
  if (!r.changed) return `${r.id}: no change`;
  const also = r.relinked?.length ? `; the Links section of ${r.relinked.length} entr${r.relinked.length === 1 ? 'y' : 'ies'} linking to it shows the new title` : '';
  return `${diff(r.diff)}\nedited ${r.id} (commit ${r.commit!.slice(0, 12)})${also}`;
}

/** `get`: each entry verbatim, with its 1-hop neighbours when asked for. */
export function get(entries: GotEntry[]): string {
  return entries
    .map((e) => {
      let text = entryText(e.text.endsWith('\n') ? e.text : `${e.text}\n`);
      if (e.links) {
        text += e.links.length
          ? `\n${paint('bold', 'Linked entries (1 hop):')}\n${e.links.map((l) => `- ${paint('yellow', l.id)} — ${l.title} (${l.direction === 'out' ? l.rel : `${l.rel} from`})`).join('\n')}\n`
          : `\n${paint('bold', 'Linked entries (1 hop):')} none\n`;
      }
      return text;
    })
    .join(entries.length > 1 ? '\n' : '');
}

/** `search`: one hit per two lines (id, title, tags, link; then the snippet). */
export function search(r: SearchResultSet): string {
  if (r.results.length === 0 && r.sessions.length === 0) return `no results for ${r.queries.map((q) => `"${q}"`).join(', ')}`;
  const where = (t: { n: number; anchor: string; kind: string; tool?: string }): string => `turn ${t.n} (${t.anchor}) ${t.kind === 'tool' ? `tool output${t.tool ? ` of ${t.tool}` : ''}` : t.kind}`;
  const lines = r.results.map((h) => {
    const via = h.via ? `  (linked: ${h.via.rel} ${h.via.from})` : '';
    const tags = h.tags.length ? paint('dim', `  [${h.tags.join(', ')}]`) : '';
    const turn = h.turn ? `  (matched in ${where(h.turn)})` : '';
    return `${paint('yellow', h.id)}  ${paint('bold', h.title)}${tags}${via}${turn}\n    ${h.snippet}`;
  });
  // The entries that matched beyond --limit (linked results are not among the matches counted).
  const more = r.total - r.results.filter((h) => !h.via).length;
  if (more > 0) lines.push(paint('dim', `... ${more} more matched; --limit N shows more`));
  if (r.sessions.length) {
    lines.push(r.results.length ? `\n${paint('bold', 'session turns:')}` : paint('bold', 'session turns:'));
    for (const t of r.sessions) {
      const shown = t.snippet || `git-kb session show ${t.id} --turn ${t.turn}`;
      lines.push(`${paint('yellow', t.id)}  ${paint('dim', localDate(t.ended))}  ${t.title}  (${where({ n: t.turn, anchor: t.anchor, kind: t.kind, tool: t.tool })})\n    ${shown}`);
    }
  }
  return lines.join('\n');
}

/**
 * The warnings list, search and tags give on stderr: the files skipped (unreadableWarning), and a hosts.yaml that
 * does not load, whose problems hide every host's facts until it is fixed.
 */
export function readWarnings(r: { unreadable: readonly string[]; hostsInvalid?: string }): string[] {
  const out: string[] = [];
  const skipped = unreadableWarning(r.unreadable);
  if (skipped) out.push(skipped);
  if (r.hostsInvalid) out.push(`every host's facts are left out until hosts.yaml is fixed ("git-kb host status" shows its problems): ${r.hostsInvalid.replace(/^hosts\.yaml is invalid; fix it \([^)]*\) and try again:\n/, '')}`);
  return out;
}

/**
 * The one line list, search and tags give (a warning, on stderr) when files were skipped because they do not read
 * as entries: how many, the first few paths, and where to see why.
 */
export function unreadableWarning(paths: readonly string[]): string | undefined {
  if (paths.length === 0) return undefined;
  const shown = paths.slice(0, 3).map(shownPath).join(', ');
  const rest = paths.length > 3 ? `, and ${paths.length - 3} more` : '';
  return `${plural(paths.length, 'entry', 'entries')} could not be read and ${paths.length === 1 ? 'was' : 'were'} skipped (${shown}${rest}); "git-kb lint" says why`;
}

/**
 * An entry's type as a line shows it: the type, or, when the one written is not a known type, that as written,
 * marked (`lesson (unknown type)`, `(no type)`): git-kb serves it as factual_reference, and listing it as one
 * would hide the typo.
 */
function typeLabel(e: { type: string; type_written?: string }): string {
  if (e.type_written === undefined) return e.type;
  return e.type_written === '' ? '(no type)' : `${e.type_written} (unknown type)`;
}

/** `list`: one entry per line (local dates), and how many more there are when the terminal's limit cut it. */
export function list(items: ListItem[], more = 0): string {
  if (items.length === 0) return 'no entries';
  const footer = more ? `\n... ${more} more; git-kb list --all shows every entry (or --limit N)` : '';
  // NOTE: padded outside the paint (its markers are invisible but count as characters).
  const typeColumn = (e: ListItem): string => {
    const label = typeLabel(e);
    return (e.type_written === undefined ? label : paint('red', label)) + ' '.repeat(Math.max(0, 18 - label.length));
  };
  return items.map((e) => `${paint('yellow', e.id)}  ${paint('dim', localDate(e.updated ?? e.created))}  ${typeColumn(e)} ${e.title}`).join('\n') + paint('dim', footer);
}

/** The warning `get` gives (stderr) for an entry whose type git-kb does not know: as written, served as, the fix. */
export function unknownTypeNote(e: { id: string; path: string; type_written: string }): string {
  const near = nearestType(e.type_written);
  return `${shownPath(e.path)}: ${e.type_written === '' ? 'no "type"' : `type "${e.type_written}" is not a type git-kb knows`}, so git-kb treats it as factual_reference (--type filters, decay, budgets); ${near ? `did you mean ${near}? "git-kb edit ${e.id} --type ${near}" sets it` : `"git-kb edit ${e.id} --type T" sets one`}`;
}

/**
 * The warning list gives (stderr) while entries have a type git-kb does not know: how many, the first few with
 * their type as written and the nearest known type, that they are served (and filtered) as factual_reference,
 * and where to see more. Given whatever the filters, so `list --type lesson_learned` never silently leaves out a
 * `type: lesson`.
 */
export function unknownTypeWarning(entries: readonly { id: string; type_written: string }[]): string | undefined {
  if (entries.length === 0) return undefined;
  const shown = entries
    .slice(0, 3)
    .map((e) => {
      const near = nearestType(e.type_written);
      return `${e.id} (${e.type_written === '' ? 'no type' : `"${e.type_written}"`}${near ? `: ${near}?` : ''})`;
    })
    .join(', ');
  const rest = entries.length > 3 ? `, and ${entries.length - 3} more` : '';
  const one = entries.length === 1;
  return `${plural(entries.length, 'entry', 'entries')} ${one ? 'has' : 'have'} a type git-kb does not know, and ${one ? 'counts' : 'count'} as factual_reference meanwhile (for --type too): ${shown}${rest}; "git-kb lint" says where, "git-kb edit ID --type T" sets the type`;
}

/** `lint`: every problem with file, line and rule, then hints (which do not fail lint), then the count line last. */
export function lint(r: LintResult): string {
  // A link to no file (link-unresolved) is Obsidian's "note not yet written": nothing for relink to fix.
  const fixable = r.hints.filter((h) => h.rule !== 'link-unresolved').length;
  const hintCount = plural(r.hints.length, 'hint');
  const hintLine = fixable === r.hints.length ? `${hintCount}: "git-kb relink" fixes them` : fixable ? `${hintCount}: "git-kb relink" fixes ${fixable}; the rest are links to notes not written yet` : `${hintCount}: links to notes not written yet`;
  const hints = r.hints.length ? [...r.hints.map((h) => `${paint('cyan', 'hint:')} ${formatProblems([h])}`), hintLine] : [];
  if (r.problems.length === 0) return [...hints, `${paint('green', 'ok:')} ${r.files} files, no problems`].join('\n');
  return [formatProblems(r.problems), ...hints, paint('red', `${plural(r.problems.length, 'problem')} in ${plural(r.files, 'file')}`)].join('\n');
}

/** `import`: the count and commit (and how many notes were already there), the attachments, then everything skipped, each link left as written, and each note redacted. */
export function imported(r: ImportResult): string {
  const lines = [`imported ${r.imported} notes${r.commit ? ` (commit ${r.commit.slice(0, 12)})` : ''}${r.present.length ? `; ${r.present.length} already in the repo` : ''}`];
  const copied = r.attachments.filter((a) => !a.present).length;
  if (r.attachments.length) lines.push(`attachments: ${copied} copied into attachments/${r.attachments.length > copied ? `, ${r.attachments.length - copied} already there` : ''}`);
  for (const s of r.skipped) lines.push(`skipped ${s.file}: ${s.reason}`);
  for (const u of r.unresolved) lines.push(`link left as written: ${u.file}:${u.line} ${u.link} (${u.reason})`);
  for (const x of r.redacted) lines.push(`redacted ${plural(x.count, 'secret')} in ${x.file} (${x.kinds.join(', ')})`);
  return lines.join('\n');
}

/** `history`: the entry, then one commit per line, newest first. */
export function history(r: Awaited<ReturnType<typeof entryHistory>>): string {
  const head = `${r.id} (${r.path})${r.deleted ? `, deleted in ${r.deleted.slice(0, 12)}` : ''}`;
  return [paint('bold', head), ...r.commits.map((c) => `${paint('yellow', c.commit.slice(0, 12))}  ${paint('dim', localTime(c.date))}  ${c.message.split('\n')[0]}`)].join('\n');
}

/** `restore`: the version brought back and its commit, or that it already matches. */
export function restore(r: RestoreResult): string {
  if (r.changed && r.deleted) return `restored deleted ${r.id} from ${r.from.slice(0, 12)} (deleted in ${r.deleted.slice(0, 12)}; commit ${r.commit!.slice(0, 12)})`;
  return r.changed ? `restored ${r.id} from ${r.from.slice(0, 12)} (commit ${r.commit!.slice(0, 12)})` : `${r.id} already matches ${r.from.slice(0, 12)}; nothing to do`;
}

/** `delete`: each entry deleted, the commit, and the links left dangling (with --force). */
export function deleted(r: DeleteResult): string {
  const lines = r.deleted.map((d) => `deleted ${d.id} (${d.path})`);
  lines.push(`commit ${r.commit.slice(0, 12)}`);
  if (r.dangling.length) {
    lines.push(`${plural(r.dangling.length, 'link')} left dangling (git-kb lint lists them until fixed):`);
    for (const d of r.dangling) lines.push(`  ${d.file}:${d.line}: links to ${d.to}`);
  }
  return lines.join('\n');
}

/** `tags`: one tag per line, its count first. */
export function tags(r: TagCount[]): string {
  if (r.length === 0) return 'no tags';
  const w = String(r[0]!.count).length;
  return r.map((t) => `${String(t.count).padStart(w)}  ${t.tag}`).join('\n');
}

/** `commit`: each file committed with its status, and the commit; or that there was nothing to commit. */
export function committed(r: CommitEditsResult): string {
  if (!r.commit) return 'nothing to commit: no entry file differs from HEAD';
  const lines = r.files.map((f) => `${f.status.padEnd(8)} ${f.path}`);
  if (r.gitignore) lines.push('added    .gitignore (keeps .obsidian/ out of git)');
  lines.push(`committed ${plural(r.files.length, 'file')} (commit ${r.commit.slice(0, 12)})`);
  return lines.join('\n');
}

/** `adopt`: each note with its new id and path, and the commit. */
export function adopted(r: AdoptResult): string {
  const skipped = (r.skipped ?? []).map((s) => `skipped ${shownPath(s.path)}: ${s.reason}`);
  if (!r.commit) return [...skipped, 'nothing to adopt: every note in the entry folders is an entry'].join('\n');
  return [...r.adopted.map((a) => `${a.id}  ${a.from} -> ${a.path}  (${a.type}) ${a.title}`), ...skipped, `adopted ${plural(r.adopted.length, 'note')} (commit ${r.commit.slice(0, 12)})`].join('\n');
}

/** `relink`: the entries rewritten and the commit, or that every link is in form already. */
export function relinked(r: RelinkResult): string {
  const lines = r.changed.length ? [`relinked ${plural(r.changed.length, 'entry', 'entries')} (commit ${r.commit!.slice(0, 12)})`, ...r.changed.map((c) => `- ${c.id} ${c.path}`)] : ['every link is in the form Obsidian follows; nothing to do'];
  for (const u of r.unreadable) lines.push(`left alone ${u.path}: ${u.reason} (git-kb lint)`);
  if (r.unresolved.length) lines.push(`${plural(r.unresolved.length, 'link')} to no file and no entry, left as written:`, ...r.unresolved.map((u) => `${u.path}:${u.line}: ${u.link}`));
  return lines.join('\n');
}
