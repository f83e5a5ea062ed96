/**
 * Contract: the host registry of spec/hosts.md, pure: no file is read here (adapters/store/hosts-file.ts reads
 * hosts.yaml and calls checkedRegistry). `hosts.yaml` names hosts (a canonical key, aliases, markers, a
 * `forbidden` flag) and global forbidden patterns; `parseHosts` validates all of it and reports each problem with
 * its line, so a typo can never silently drop a `forbidden: true`, and `checkedRegistry` refuses a registry with
 * any problem. Markers are compiled into a JSON-safe matcher (matcher.ts) that the prompt index keeps and the
 * prompt hook runs; `forbiddenMatch` is the one check every write path runs over the text it would store.
 */
import YAML from 'yaml';
import type * as YAMLNS from 'yaml';
import { formatProblems, KbError } from '../errors.js';
import { regexRisk } from '../format/regex-risk.js';
import { isValidHostKey } from '../format/schema.js';
import { parseDocumentUniqueKeys, yamlErrorAt } from '../format/yaml-error.js';
import { compileMatcher, hostScan, isRegexMarker, matchHosts, MIN_MARKER_CHARS, REGEX_MARKER, type HostMatcher } from './matcher.js';
import { toLf } from '../text/line-ends.js';

export { compileMatcher, isRegexMarker, matchHosts, MIN_MARKER_CHARS, type HostMatcher } from './matcher.js';

/** The registry file, at the top of the data repo. */
export const HOSTS_FILE = 'hosts.yaml';

/** One registered host. */
export interface HostDef {
  key: string;
  aliases: string[];
  /** Markers as written: plain names/IPs, or `/regex/flags`. */
  markers: string[];
  forbidden: boolean;
  description?: string;
  /** 1-based line of the host's key in hosts.yaml (0 when not from a file). */
  line: number;
}

/** The whole registry. */
export interface HostRegistry {
  hosts: HostDef[];
  /** Plain words or `/regex/flags`: text that matches one is never stored. */
  forbiddenPatterns: string[];
}

/** One thing wrong with hosts.yaml. */
export interface HostProblem {
  rule: string;
  message: string;
  file: string;
  line: number;
}

const HOST_FIELDS = new Set(['aliases', 'markers', 'forbidden', 'description']);
const TOP_FIELDS = new Set(['version', 'hosts', 'forbidden_patterns']);

/** An empty registry (no hosts.yaml). */
export function emptyRegistry(): HostRegistry {
  return { hosts: [], forbiddenPatterns: [] };
}

/**
 * Checks one marker or forbidden pattern; returns why it is refused, or undefined. A regex must compile, use only
 * the flags i, m, s, u, never match empty text, and pass the run-time risk analysis of the prose rules.
 */
export function markerProblem(marker: string): string | undefined {
  if (typeof marker !== 'string' || marker.trim() === '') return 'is empty';
  if (marker !== marker.trim()) return 'has leading or trailing white space';
  if (/[\u0000-\u001f\u007f]/.test(marker)) return 'contains a control character (a tab or a line break)';
  if (marker.length > 300) return 'is longer than 300 characters';
  const m = REGEX_MARKER.exec(marker);
  if (!m) {
    if (marker.length < MIN_MARKER_CHARS) return `is shorter than ${MIN_MARKER_CHARS} characters, so it would match almost any text`;
    return undefined;
  }
  const [, source, flags] = m;
  if (!/^[imsu]*$/.test(flags!) || new Set(flags).size !== flags!.length) return `has flags "${flags}"; only i, m, s and u are allowed`;
  let re: RegExp;
  try {
    re = new RegExp(source!, flags);
  } catch (err) {
    return `does not compile: ${(err as Error).message}`;
  }
  if (re.test('')) return 'matches empty text, so it would match every text';
  const risk = regexRisk(source!, flags);
  return risk ? `could run slowly on long text: ${risk}` : undefined;
}

/** The line (1-based) of a YAML node, via the line starts of the source. */
function lineAt(lineStarts: number[], offset: number | undefined): number {
  if (offset === undefined) return 1;
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function stringList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.map(String);
  return undefined;
}

/**
 * Parses and validates the text of hosts.yaml. Returns the registry (hosts with problems left out) and every
 * problem with its line; `loadHosts` turns problems into one error.
 */
export function parseHosts(text: string, file = HOSTS_FILE): { registry: HostRegistry; problems: HostProblem[] } {
  const { registry, problems } = checkHosts(text, file);
  return { registry, problems };
}

/** parseHosts, with the document it parsed (of `text` with line ends made LF and a BOM removed). */
function checkHosts(text: string, file: string): { registry: HostRegistry; problems: HostProblem[]; doc: YAML.Document.Parsed; src: string } {
  const problems: HostProblem[] = [];
  const registry = emptyRegistry();
  const src = toLf(text).replace(/^\uFEFF/, '');
  const lineStarts = [0];
  for (let i = 0; i < src.length; i++) if (src[i] === '\n') lineStarts.push(i + 1);
  const at = (node: unknown): number => lineAt(lineStarts, (node as { range?: [number] } | undefined)?.range?.[0]);
  const problem = (rule: string, message: string, line: number): void => {
    problems.push({ rule, message, file, line });
  };

  const lineCounter = new YAML.LineCounter();
  const doc = parseDocumentUniqueKeys(src, lineCounter);
  const error = yamlErrorAt(doc, lineCounter);
  if (error) {
    problem('hosts-yaml', `malformed YAML: ${error.reason}`, error.line);
    return { registry, problems, doc, src };
  }
  const root = doc.contents;
  if (root === null || root === undefined) return { registry, problems, doc, src };
  if (!YAML.isMap(root)) {
    problem('hosts-yaml', 'hosts.yaml must be a mapping with "hosts" and optionally "forbidden_patterns"', at(root));
    return { registry, problems, doc, src };
  }
  for (const pair of root.items) {
    const k = YAML.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
    if (!TOP_FIELDS.has(k)) problem('hosts-field', `unknown top-level field "${k}"; the fields are: ${[...TOP_FIELDS].join(', ')}`, at(pair.key));
  }

  const hostsNode = root.get('hosts', true);
  if (hostsNode !== undefined && hostsNode !== null && !(YAML.isScalar(hostsNode) && hostsNode.value === null)) {
    if (!YAML.isMap(hostsNode)) {
      problem('hosts-field', '"hosts" must be a mapping of host key to its settings', at(hostsNode));
    } else {
      const keys = new Set<string>();
      for (const pair of hostsNode.items) {
        const keyNode = pair.key;
        const key = YAML.isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
        const line = at(keyNode);
        if (!isValidHostKey(key)) {
          problem('host-key', `host key "${key}" must match ^[a-z0-9][a-z0-9_-]{0,63}$ (lowercase letters, digits, _ and -)`, line);
          continue;
        }
        const value = pair.value;
        const raw = value === null || value === undefined || (YAML.isScalar(value) && value.value === null) ? {} : (value as { toJSON?: () => unknown }).toJSON?.();
        if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
          problem('host-field', `host "${key}" must be a mapping (aliases, markers, forbidden, description)`, line);
          continue;
        }
        const r = raw as Record<string, unknown>;
        let ok = true;
        const fieldLine = (f: string): number => (YAML.isMap(value) ? at(value.get(f, true) ?? keyNode) : line);
        for (const f of Object.keys(r)) {
          if (!HOST_FIELDS.has(f)) {
            problem('host-field', `host "${key}": unknown field "${f}"; the fields are: ${[...HOST_FIELDS].join(', ')}`, YAML.isMap(value) ? at(value.items.find((p) => YAML.isScalar(p.key) && p.key.value === f)?.key) : line);
            ok = false;
          }
        }
        const aliases = stringList(r.aliases);
        const markers = stringList(r.markers);
        if (!aliases) {
          problem('host-field', `host "${key}": "aliases" must be a list of names`, fieldLine('aliases'));
          ok = false;
        }
        if (!markers) {
          problem('host-field', `host "${key}": "markers" must be a list of names, IPs or /regex/ patterns`, fieldLine('markers'));
          ok = false;
        }
        if (r.forbidden !== undefined && typeof r.forbidden !== 'boolean') {
          problem('host-field', `host "${key}": "forbidden" must be true or false`, fieldLine('forbidden'));
          ok = false;
        }
        if (r.description !== undefined && typeof r.description !== 'string') {
          problem('host-field', `host "${key}": "description" must be text`, fieldLine('description'));
          ok = false;
        }
        for (const a of aliases ?? []) {
          if (isRegexMarker(a)) {
            problem('host-alias', `host "${key}": alias "${a}" is a pattern; put patterns under "markers"`, fieldLine('aliases'));
            ok = false;
          } else {
            const why = markerProblem(a);
            if (why) {
              problem('host-alias', `host "${key}": alias "${a}" ${why}`, fieldLine('aliases'));
              ok = false;
            }
          }
        }
        for (const m of markers ?? []) {
          const why = markerProblem(m);
          if (why) {
            problem('host-marker', `host "${key}": marker ${JSON.stringify(m)} ${why}`, fieldLine('markers'));
            ok = false;
          }
        }
        if (keys.has(key)) continue; // one key twice: malformed YAML, or two spellings of it (1 and "1")
        if (!ok) continue;
        keys.add(key);
        const host: HostDef = { key, aliases: dedupe(aliases!), markers: dedupe(markers!), forbidden: r.forbidden === true, line };
        if (typeof r.description === 'string' && r.description.trim()) host.description = r.description.trim();
        registry.hosts.push(host);
      }
    }
  }

  // A marker names one host: the same text on two hosts would make detection ambiguous.
  const owner = new Map<string, HostDef>();
  for (const h of registry.hosts) {
    for (const m of hostTerms(h)) {
      const norm = m.toLowerCase();
      const other = owner.get(norm);
      if (other && other.key !== h.key) {
        problem('marker-duplicate', `marker ${JSON.stringify(m)} of host "${h.key}" (line ${h.line}) is also a key, alias or marker of host "${other.key}" (line ${other.line}); a marker must name one host`, h.line);
      } else owner.set(norm, h);
    }
  }

  const fpNode = root.get('forbidden_patterns', true);
  const fp = stringList(fpNode === undefined ? undefined : (fpNode as { toJSON?: () => unknown })?.toJSON?.() ?? fpNode);
  if (!fp) problem('forbidden-patterns', '"forbidden_patterns" must be a list of words or /regex/ patterns', at(fpNode));
  else {
    for (const p of fp) {
      const why = markerProblem(p);
      if (why) problem('forbidden-pattern', `forbidden pattern ${JSON.stringify(p)} ${why}`, at(fpNode));
      else registry.forbiddenPatterns.push(p);
    }
  }
  return { registry, problems, doc, src };
}

function dedupe(list: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const x of list) {
    const k = x.toLowerCase();
    if (!seen.has(k)) {
      seen.add(k);
      out.push(x);
    }
  }
  return out;
}

/** Everything that names a host in text: its key, aliases and markers (short plain ones left out). */
export function hostTerms(h: HostDef): string[] {
  return dedupe([h.key, ...h.aliases, ...h.markers]).filter((t) => isRegexMarker(t) || t.length >= MIN_MARKER_CHARS);
}

/**
 * The registry of the text of hosts.yaml. Throws INVALID_ENTRY listing every problem: a registry with any problem
 * is never used, because a broken forbidden flag must not let anything through.
 */
export function checkedRegistry(text: string): HostRegistry {
  const { registry, problems } = parseHosts(text);
  if (problems.length > 0) throw invalidRegistry(problems);
  return registry;
}

/** The INVALID_ENTRY error of a hosts.yaml with these problems (checkedRegistry's). */
export function invalidRegistry(problems: HostProblem[]): KbError {
  return new KbError('INVALID_ENTRY', `${HOSTS_FILE} is invalid; fix it (git-kb host register --help shows the fields) and try again:\n${formatProblems(problems)}`, { file: HOSTS_FILE, line: problems[0]!.line, problems });
}

/** The host with this key, or one whose alias is this name (case-insensitive). */
export function findHost(registry: HostRegistry, name: string): HostDef | undefined {
  const n = name.toLowerCase();
  return registry.hosts.find((h) => h.key === n) ?? registry.hosts.find((h) => h.aliases.some((a) => a.toLowerCase() === n));
}

/** The matcher of the hosts that may be surfaced (forbidden ones left out). */
export function hostMatcher(registry: HostRegistry): HostMatcher {
  return compileMatcher(registry.hosts.filter((h) => !h.forbidden).map((h) => ({ label: h.key, terms: hostTerms(h) })));
}

/** The matcher of everything that must never be stored: forbidden hosts' terms and the global patterns. */
export function forbiddenMatcher(registry: HostRegistry): HostMatcher {
  const groups = registry.hosts.filter((h) => h.forbidden).map((h) => ({ label: `host:${h.key}`, terms: hostTerms(h) }));
  registry.forbiddenPatterns.forEach((p, i) => groups.push({ label: `pattern:${i + 1}`, terms: [p] }));
  return compileMatcher(groups, { loose: true });
}

/** What made a text forbidden: a forbidden host (by key) or a global pattern (by its 1-based number). */
export interface ForbiddenHit {
  kind: 'host' | 'pattern';
  /** The host key, or the pattern's number in forbidden_patterns. */
  name: string;
}

/**
 * The first forbidden host or global pattern that `text` mentions, or undefined. Never echoes the text. `text` may
 * be given as its parts, as if joined by `\n` (the same answer: hostScan).
 */
export function forbiddenMatch(registry: HostRegistry | HostMatcher, text: string | Iterable<string>): ForbiddenHit | undefined {
  const matcher = 'labels' in registry ? registry : forbiddenMatcher(registry);
  if (matcher.labels.length === 0) return undefined;
  let label: string | undefined;
  if (typeof text === 'string') label = matchHosts(matcher, text)[0];
  else {
    // The parts of one text joined by line breaks, matched without joining them (a transcript's hundreds of MB).
    const scan = hostScan(matcher);
    for (const part of text) scan.part(part);
    label = scan.labels()[0];
  }
  if (!label) return undefined;
  const sep = label.indexOf(':');
  return { kind: label.slice(0, sep) as ForbiddenHit['kind'], name: label.slice(sep + 1) };
}

/** Describes a forbidden hit for messages (a host by key; a pattern by number, never by its text). */
export function describeForbidden(hit: ForbiddenHit): string {
  return hit.kind === 'host' ? `the forbidden host "${hit.name}"` : `global forbidden pattern #${hit.name} of hosts.yaml`;
}

// ---------------------------------------------------------------------------------------------------------
// Editing hosts.yaml, keeping the user's comments and order.

/** A change to one host made by `host register`. */
export interface HostChange {
  key: string;
  markers?: string[];
  aliases?: string[];
  forbidden?: boolean;
  description?: string;
}

const HEADER = '# git-kb host registry (man git-kb): hosts with their aliases and markers, and text never to store.\n';

/** The document an edit of hosts.yaml starts from: the text's, or a fresh file's (header and no host). */
function editableDocument(text: string): YAML.Document {
  // NOTE: uniqueKeys false: the library's repeated-key check is quadratic, and every edit has refused a text with
  // a repeated key (parseHosts) before it edits one.
  return YAML.parseDocument(text.trim() ? text : `${HEADER}hosts: {}\n`, { uniqueKeys: false });
}

/**
 * hosts.yaml checked for an edit: parseHosts' registry and problems, and the text with one change made
 * (applyHostChange's or applyForbiddenPattern's, the same text) by editing the document the check parsed rather than
 * parsing the text again: one parse of a 32,000-host file costs about a second. The document is edited once; a
 * second change, a text with line ends other than LF or a byte-order mark, or one the parser refused, is parsed
 * again (the check read the text made LF, the edit keeps what it is given).
 */
export interface HostsForEdit {
  registry: HostRegistry;
  problems: HostProblem[];
  withHost(change: HostChange): string;
  withForbiddenPattern(pattern: string): string;
}

/** Checks the text of hosts.yaml (parseHosts) and keeps its document for one edit. */
export function parseHostsForEdit(text: string, file = HOSTS_FILE): HostsForEdit {
  const { registry, problems, doc, src } = checkHosts(text, file);
  let parsed: YAML.Document | undefined = src === text && text.trim() && doc.errors.length === 0 ? doc : undefined;
  const take = (): YAML.Document => {
    const d = parsed ?? editableDocument(text);
    parsed = undefined;
    return d;
  };
  return { registry, problems, withHost: (change) => editHost(take(), change), withForbiddenPattern: (pattern) => editForbiddenPattern(take(), pattern) };
}

/** Returns the text of hosts.yaml with one host added or extended (markers and aliases are merged). */
export function applyHostChange(text: string, change: HostChange): string {
  return editHost(editableDocument(text), change);
}

/** applyHostChange on a parsed document (changed in place). */
function editHost(doc: YAML.Document, change: HostChange): string {
  if (!YAML.isMap(doc.contents)) doc.contents = doc.createNode({}) as never;
  const root = doc.contents as YAMLNS.YAMLMap;
  let hosts = root.get('hosts', true);
  if (!YAML.isMap(hosts)) {
    hosts = doc.createNode({}) as unknown as typeof hosts;
    root.set('hosts', hosts);
  }
  const map = hosts as unknown as YAMLNS.YAMLMap;
  // NOTE: flow style ({} written by a fresh file) is switched to block style so the file stays hand-editable.
  (map as { flow?: boolean }).flow = false;
  let host = map.get(change.key, true) as unknown;
  if (!YAML.isMap(host)) {
    host = doc.createNode({});
    map.set(change.key, host);
  }
  const h = host as YAMLNS.YAMLMap;
  const merge = (field: string, add: string[] | undefined): void => {
    if (!add || add.length === 0) return;
    const current = stringList((h.get(field, true) as { toJSON?: () => unknown } | undefined)?.toJSON?.() ?? h.get(field)) ?? [];
    const merged = dedupe([...current, ...add]);
    h.set(field, doc.createNode(merged));
  };
  merge('aliases', change.aliases);
  merge('markers', change.markers);
  if (change.forbidden !== undefined) {
    if (change.forbidden) h.set('forbidden', true);
    else h.delete('forbidden');
  }
  if (change.description !== undefined) h.set('description', change.description);
  // NOTE: a host with no settings is written `key:` (not `key: {}`), so fields can be added under it by hand.
  if (h.items.length === 0) map.set(change.key, doc.createNode(null));
  const out = doc.toString({ lineWidth: 0, nullStr: '' });
  return out.startsWith('#') ? out : `${HEADER}${out}`;
}

/** Returns the text of hosts.yaml with a global forbidden pattern added (once). */
export function applyForbiddenPattern(text: string, pattern: string): string {
  return editForbiddenPattern(editableDocument(text), pattern);
}

/** applyForbiddenPattern on a parsed document (changed in place). */
function editForbiddenPattern(doc: YAML.Document, pattern: string): string {
  const root = doc.contents as YAMLNS.YAMLMap;
  const current = stringList((root.get('forbidden_patterns', true) as { toJSON?: () => unknown } | undefined)?.toJSON?.()) ?? [];
  if (!current.includes(pattern)) root.set('forbidden_patterns', doc.createNode([...current, pattern]));
  const out = doc.toString({ lineWidth: 0, nullStr: '' });
  return out.startsWith('#') ? out : `${HEADER}${out}`;
}
