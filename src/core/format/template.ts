/**
 * Contract: the template `add` opens in an editor when it has no body on a terminal, and reading it back. The
 * template is an entry file without an id: the fields given as flags, empty `title:`/`type:` lines to fill in,
 * and a hint as YAML comments (markdown would read `#` lines in the body as headings). Reading it back gives
 * the fields and the body; the id, `created` and `updated` are always the tool's to set.
 */
import YAML from 'yaml';
import { KbError } from '../errors.js';
import { splitEntry } from './entry.js';
import { TYPES } from './schema.js';

/** The fields of a new entry as typed on the command line (lists already split). */
export interface TemplateFields {
  title?: string;
  type?: string;
  tags?: string[];
  aliases?: string[];
  links?: { rel: string; to: string }[];
  url?: string;
  host?: string;
  applies_to?: string[];
  kernel?: boolean;
  pattern_key?: string;
}

/** What a saved template holds: the fields to add the entry with, and its body. */
export interface TemplateResult {
  title?: string;
  type?: string;
  tags?: string[];
  aliases?: string[];
  links?: string[];
  url?: string;
  host?: string;
  appliesTo?: string[];
  kernel?: boolean;
  patternKey?: string;
  /** Every other field, kept as written. */
  extra: Record<string, unknown>;
  body: string;
}

const HINT = [
  '# git-kb add: fill in the title and type, write the body (markdown) below the closing ---,',
  '# then save and quit. An empty body adds nothing; quitting the editor with an error aborts.',
  `# type is one of: ${TYPES.filter((t) => t !== 'session_summary').join(', ')}.`,
  '# Optional: tags: [a, b], aliases: [...], links: [{rel: relates_to, to: kb-...}], url: (bookmark).',
];

/** The template text for `fields` (title and type always present, empty when not given). */
export function entryTemplate(fields: TemplateFields): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'title' || k === 'type' || v === undefined || v === false || (Array.isArray(v) && v.length === 0)) continue;
    rest[k] = v;
  }
  const line = (k: string, v: string | undefined): string => (v ? YAML.stringify({ [k]: v }, { lineWidth: 0 }).trimEnd() : `${k}: `);
  const yaml = Object.keys(rest).length ? YAML.stringify(rest, { lineWidth: 0 }) : '';
  return `---\n${line('title', fields.title)}\n${line('type', fields.type)}\n${yaml}${HINT.join('\n')}\n---\n\n`;
}

function list(v: unknown, name: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) return v.map(String);
  throw new KbError('INVALID_ENTRY', `"${name}" must be a list of strings`);
}

/** Reads a saved template back (INVALID_ENTRY, with the line, for front matter that does not parse). */
export function readTemplate(text: string, file: string): TemplateResult {
  const { data, body } = splitEntry(text, file);
  const d = { ...data };
  const str = (k: string): string | undefined => {
    const v = d[k];
    delete d[k];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'string' || typeof v === 'number') return String(v);
    throw new KbError('INVALID_ENTRY', `"${k}" must be a string`);
  };
  const take = (k: string): unknown => {
    const v = d[k];
    delete d[k];
    return v;
  };
  const links = take('links');
  let linkArgs: string[] | undefined;
  if (links !== undefined && links !== null) {
    if (!Array.isArray(links)) throw new KbError('INVALID_ENTRY', '"links" must be a list of {rel, to}');
    linkArgs = links.map((l) => {
      const x = l as { rel?: unknown; to?: unknown };
      if (!x || typeof x.rel !== 'string' || typeof x.to !== 'string') throw new KbError('INVALID_ENTRY', `link ${JSON.stringify(l)} must be {rel, to}`);
      return `${x.rel}:${x.to}`;
    });
  }
  const kernel = take('kernel');
  const out: TemplateResult = {
    title: str('title'),
    type: str('type'),
    tags: list(take('tags'), 'tags'),
    aliases: list(take('aliases'), 'aliases'),
    links: linkArgs,
    url: str('url'),
    host: str('host'),
    appliesTo: list(take('applies_to'), 'applies_to'),
    kernel: kernel === true ? true : undefined,
    patternKey: str('pattern_key'),
    extra: {},
    body,
  };
  // The tool's own fields: a new id and the times are always set by `add`.
  for (const k of ['id', 'created', 'updated']) delete d[k];
  out.extra = d;
  return out;
}
