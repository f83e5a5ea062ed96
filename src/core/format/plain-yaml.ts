/**
 * Contract: the front matter git-kb itself writes, read and written without the YAML library. Reading: a mapping
 * of plain keys whose values are scalars (plain, or quoted with nothing to unescape), `[]`, block lists of such
 * scalars, or block lists of flat mappings of them (`links:`). `plainYaml` returns exactly what YAML 1.2's core
 * schema gives for such text (test/plain-yaml.test.ts holds it to the YAML library over the real corpora), and
 * undefined for anything else (comments, blank lines, anchors, tags, block scalars, flow collections, floats,
 * escapes, nesting, a repeated key...), which the caller then gives to the YAML parser. Writing: `plainYamlText` gives exactly what
 * `YAML.stringify(fields, { lineWidth: 0 })` gives for a mapping of such keys whose strings are plain without
 * doubt (no indicator, no `: ` or ` #`, nothing the core schema reads as another type, printable), integers,
 * booleans, `[]` and lists of those or of flat mappings of them; undefined for anything else, which the caller
 * then gives to the YAML library (test/plain-yaml.test.ts holds it to the library too). Pure.
 * NOTE: every rebuild of the caches parses every entry's front matter; through the YAML library that is about
 * 75 us a file (4 s at 50,000 entries), most of the cold first search.
 */

type Value = string | number | boolean | null | Value[] | { [k: string]: Value };

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?: (.*))?$/;
const ITEM = /^ {2}- (.*)$/;
const ITEM_KEY = /^([A-Za-z_][A-Za-z0-9_-]*): (.*)$/;
const CONTINUED = /^ {4}([A-Za-z_][A-Za-z0-9_-]*): (.*)$/;

// The core schema's plain scalars that are not strings (YAML 1.2, 10.3.2), and the floats, which are left to the parser.
const NULL = /^(?:~|null|Null|NULL)$/;
const TRUE = /^(?:true|True|TRUE)$/;
const FALSE = /^(?:false|False|FALSE)$/;
const INT = /^[-+]?[0-9]+$/;
const OTHER_NUMBER = /^(?:0o[0-7]+|0x[0-9a-fA-F]+|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

/** A scalar as the core schema reads it, or undefined when this reader does not take it. */
function scalar(raw: string): Value | undefined {
  if (raw === '' || raw !== raw.trim() || raw.includes('\t')) return undefined;
  const q = raw[0];
  if (q === '"') return raw.length >= 2 && raw.endsWith('"') && !/["\\]/.test(raw.slice(1, -1)) ? raw.slice(1, -1) : undefined;
  if (q === "'") {
    const inner = raw.slice(1, -1);
    return raw.length >= 2 && raw.endsWith("'") && !inner.replace(/''/g, '').includes("'") ? inner.replace(/''/g, "'") : undefined;
  }
  // A plain scalar that starts with no indicator and holds no ": " or " #" (YAML 1.2, 7.3.3).
  if (/^[-?:,[\]{}#&*!|>%@`]/.test(raw) || raw.includes(': ') || raw.includes(' #') || raw.endsWith(':')) return undefined;
  if (NULL.test(raw)) return null;
  if (TRUE.test(raw)) return true;
  if (FALSE.test(raw)) return false;
  if (INT.test(raw)) {
    const n = Number(raw);
    return Number.isSafeInteger(n) && !/^[-+]?0[0-9]/.test(raw) ? n : undefined;
  }
  if (OTHER_NUMBER.test(raw)) return undefined;
  return raw;
}

/**
 * A one-line flow list of scalars (`[a, b]`, the form v1 wrote `tags` in), or undefined. Items holding a flow
 * indicator, a quote or a tab are left to the parser.
 */
function flowList(raw: string): Value[] | undefined {
  if (!raw.endsWith(']') || /[[\]{}"'\t]/.test(raw.slice(1, -1))) return undefined;
  const out: Value[] = [];
  for (const part of raw.slice(1, -1).split(',')) {
    const v = part.trim() === '' ? undefined : scalar(part.trim());
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

/** The mapping `text` holds (lines ending in "\n"), or undefined when it is not of the shapes this reader takes. */
export function plainYaml(text: string): Record<string, Value> | undefined {
  if (!text.endsWith('\n')) return text === '' ? {} : undefined;
  const lines = text.slice(0, -1).split('\n');
  const out: Record<string, Value> = {};
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const m = KEY.exec(lines[i]!);
    if (!m) return undefined;
    const key = m[1]!;
    if (seen.has(key) || key === '__proto__') return undefined;
    seen.add(key);
    const rest = m[2];
    if (rest !== undefined) {
      const v = rest === '[]' ? [] : rest[0] === '[' ? flowList(rest) : scalar(rest);
      if (v === undefined) return undefined;
      out[key] = v;
      continue;
    }
    // `key:` then a block list, of scalars or of flat mappings
    const list: Value[] = [];
    while (i + 1 < lines.length && lines[i + 1]!.startsWith('  ')) {
      const item = ITEM.exec(lines[++i]!);
      if (!item) return undefined;
      const pair = ITEM_KEY.exec(item[1]!);
      if (!pair) {
        const v = scalar(item[1]!);
        if (v === undefined) return undefined;
        list.push(v);
        continue;
      }
      const map: Record<string, Value> = {};
      for (let p: RegExpExecArray | null = pair; p; p = i + 1 < lines.length ? CONTINUED.exec(lines[i + 1]!) : null) {
        if (p !== pair) i++;
        const v = scalar(p[2]!);
        if (v === undefined || p[1]! in map || p[1] === '__proto__') return undefined;
        map[p[1]!] = v;
      }
      list.push(map);
    }
    if (list.length === 0) return undefined; // `key:` alone is null, or a nested mapping: the parser's
    out[key] = list;
  }
  return out;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
// What the library escapes or quotes in any string: control characters, C1, line separators, BOMs, and a half of a
// surrogate pair on its own ("\ud800"). The rest of what makes a string not plain is scalar's to say.
const UNPRINTABLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\ufeff]/;
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** A key the library writes plain: a plain word the core schema reads back as that string (not `true`, `null`, `1`). */
function plainKey(k: string): boolean {
  return PLAIN_KEY.test(k) && scalar(k) === k;
}

/** `v` as a plain scalar the library writes the same way, or undefined. */
function plainScalar(v: unknown): string | undefined {
  if (typeof v === 'string') {
    if (UNPRINTABLE.test(v) || LONE_SURROGATE.test(v)) return undefined;
    // read back as itself: not quoted, no indicator first, no `: ` or ` #`, no space around, not null, a boolean or a number
    return scalar(v) === v ? v : undefined;
  }
  if (typeof v === 'number') return Number.isSafeInteger(v) && !Object.is(v, -0) ? String(v) : undefined;
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

const FLOW_UNSAFE = /[,[\]{}]/;

/**
 * `key: [a, b]` for a list of strings each plain in flow context too (no `,[]{}`), the one-line form v1 wrote
 * lists in and reads them back from (spec/entry-format.md, "v1 readers"); undefined for anything else.
 */
export function flowListText(key: string, v: unknown): string | undefined {
  if (!plainKey(key) || !Array.isArray(v)) return undefined;
  const items: string[] = [];
  for (const item of v) {
    const s = typeof item === 'string' ? plainScalar(item) : undefined;
    if (s === undefined || FLOW_UNSAFE.test(s)) return undefined;
    items.push(s);
  }
  return `${key}: [${items.join(', ')}]\n`;
}

/** The YAML text of `fields` in the shapes above (lines ending in "\n"), or undefined. */
export function plainYamlText(fields: Record<string, unknown>): string | undefined {
  let out = '';
  for (const [key, v] of Object.entries(fields)) {
    if (!plainKey(key)) return undefined;
    if (!Array.isArray(v)) {
      const s = plainScalar(v);
      if (s === undefined) return undefined;
      out += `${key}: ${s}\n`;
      continue;
    }
    if (v.length === 0) {
      out += `${key}: []\n`;
      continue;
    }
    out += `${key}:\n`;
    for (const item of v) {
      if (item && typeof item === 'object' && !Array.isArray(item)) {
        const pairs = Object.entries(item as Record<string, unknown>);
        if (pairs.length === 0) return undefined;
        let lead = '  - ';
        for (const [k, x] of pairs) {
          const s = plainScalar(x);
          if (s === undefined || !plainKey(k)) return undefined;
          out += `${lead}${k}: ${s}\n`;
          lead = '    ';
        }
        continue;
      }
      const s = plainScalar(item);
      if (s === undefined) return undefined;
      out += `  - ${s}\n`;
    }
  }
  return out;
}
