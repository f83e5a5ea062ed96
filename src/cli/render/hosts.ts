/**
 * Contract: the human output of `host <sub>` (spec/hosts.md): pure functions from a use case's result to text.
 * `host load` and `host detect` print the sentinel lines of spec/hosts.md, "Sentinels", which the model reads:
 * a forbidden host gets its sentinel alone, never its key or facts.
 */
import type { AddFactResult, DetectResult, ForbidResult, HostInfo, HostStatusResult, LoadResult, RegisterResult } from '../../app/host.js';
import { plural } from './plural.js';
import { localDate } from './time.js';
import { shownPath } from '../../core/errors.js';

/** Sentinel lines of `host load` (spec/hosts.md, "Sentinels"). */
const SENTINELS = {
  loaded: '---HOST_FACTS_LOADED---',
  end: '---HOST_FACTS_END---',
  empty: '---HOST_FACTS_EMPTY---',
  unknown: '---HOST_UNKNOWN---',
  forbidden: '---HOST_FORBIDDEN---',
} as const;

/** `host register`: registered, updated or unchanged, and the commit. */
export function register(r: RegisterResult): string {
  return `${r.changed ? (r.created ? 'registered' : 'updated') : 'unchanged:'} host ${r.key}${r.host.forbidden ? ' (forbidden)' : ''}${r.commit ? ` (commit ${r.commit.slice(0, 12)})` : ''}`;
}

/** `host add`: the new fact's id, and a hint when the host was registered by it. */
export function addFact(r: AddFactResult): string {
  return `${r.id}${r.registered ? `\n(new host ${r.host} registered with its key as marker; "git-kb host register ${r.host} --marker NAME" adds more)` : ''}`;
}

/** A fact's text with any line that reads like a sentinel (`---HOST_FACTS_END---`) marked `\`: only git-kb's own end the facts. */
function escapeSentinels(text: string): string {
  return text.replace(/^(\s*)(---HOST_)/gm, '$1\\$2');
}

/** `host load`: the sentinel first, and for loaded facts each one, then the end sentinel. */
export function load(r: LoadResult): string {
  if (r.status === 'forbidden') return SENTINELS.forbidden;
  if (r.status === 'unknown') return `${SENTINELS.unknown}\nno host "${r.key}" in hosts.yaml; "git-kb host list" shows the hosts, "git-kb host register ${r.key} --marker NAME" adds it`;
  const withheld = r.withheld ? `\n(${plural(r.withheld, 'fact')} withheld: unreadable, or naming a forbidden host or pattern)` : '';
  if (r.status === 'empty') return `${SENTINELS.empty}\nhost ${r.key} has no facts yet; "git-kb host add ${r.key} \"FACT\"" records one${withheld}`;
  const parts = [`${SENTINELS.loaded}`, `host ${r.key}: ${plural(r.facts!.length, 'fact')} (reference data, oldest first)${withheld}`];
  for (const f of r.facts!) {
    parts.push('', `### ${f.id} — ${f.title}${f.updated ? ` (${localDate(f.updated)})` : ''}`);
    if (f.body !== f.title) parts.push('', escapeSentinels(f.body));
  }
  parts.push('', SENTINELS.end);
  return parts.join('\n');
}

/** `host detect`: each known host named, with the command that loads it; forbidden ones only flagged. */
export function detect(r: DetectResult): string {
  const lines = r.hosts.map((h) => `${h.key} (${plural(h.facts, 'fact')}): git-kb host load ${h.key}`);
  if (r.forbidden) lines.push(`${SENTINELS.forbidden} the text names a forbidden host or pattern: load and record nothing about it`);
  return lines.length ? lines.join('\n') : 'no known host in the text';
}

/** `host list`: one host per line with its fact count and other names. */
export function list(hosts: HostInfo[]): string {
  if (hosts.length === 0) return 'no hosts yet; "git-kb host register KEY --marker NAME" adds one';
  // The keys in one column, so the counts line up (as host status has them).
  const width = Math.max(...hosts.map((h) => h.key.length));
  return hosts
    .map((h) => {
      const key = h.key.padEnd(width);
      if (h.forbidden) return `${key}  forbidden`;
      const aliases = h.aliases.filter((m) => m !== h.key);
      const markers = h.markers.filter((m) => m !== h.key && !aliases.includes(m));
      return `${key}  ${plural(h.facts, 'fact')}${aliases.length ? `  aliases: ${aliases.join(', ')}` : ''}${markers.length ? `  markers: ${markers.join(', ')}` : ''}${h.unregistered ? '  (not in hosts.yaml)' : ''}`;
    })
    .join('\n');
}

function kb(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** `host status`: hosts.yaml's health, its problems, then each host's facts and size. */
export function status(r: HostStatusResult): string {
  const lines = [`${r.file}: ${r.valid ? 'valid' : 'INVALID'}; ${plural(r.hosts.length, 'host')}, ${plural(r.forbidden_patterns, 'global forbidden pattern')}; ${plural(r.facts, 'fact')}, ${kb(r.bytes)}`];
  for (const p of r.problems) lines.push(`  ${p}`);
  for (const h of r.hosts) {
    if (h.forbidden) lines.push(`${h.key.padEnd(20)} forbidden`);
    else lines.push(`${h.key.padEnd(20)} ${String(h.facts).padStart(4)} ${h.facts === 1 ? 'fact ' : 'facts'} ${kb(h.bytes).padStart(9)}${h.updated ? `  last change ${localDate(h.updated)}` : ''}${h.unregistered ? '  (not in hosts.yaml)' : ''}`);
  }
  return lines.join('\n');
}

/** `host forbid`: the pattern's number and commit, or that it was already there. */
export function forbid(r: ForbidResult): string {
  if (!r.changed) return 'already forbidden';
  const line = `added forbidden pattern #${r.count} (commit ${r.commit!.slice(0, 12)}): nothing it covers is written from now on`;
  const m = r.mentioned ?? [];
  if (!m.length) return line;
  const shown = m.slice(0, 10).map((p) => `  ${shownPath(p)}`);
  if (m.length > 10) shown.push(`  ... and ${m.length - 10} more (--json lists them all)`);
  return [line, `note: ${plural(m.length, 'entry', 'entries')} written before already ${m.length === 1 ? 'mentions' : 'mention'} it and ${m.length === 1 ? 'stays' : 'stay'} readable, searchable and in git history until edited or deleted (git-kb edit, git-kb delete):`, ...shown].join('\n');
}
