/**
 * Contract: the double-quoted scalars of a text's YAML front matter that hold an escape, decoded. YAML writes a
 * tab, a control character or a line break in a value as `\t`, `\x01`, `\n`: the scanner reads the file's bytes,
 * where `password:\t'…'` is no assignment, while the value the front matter holds is one. Pure.
 */

/** A double-quoted scalar of the front matter: where it starts and ends in the text (quotes included), decoded. */
export interface QuotedScalar {
  start: number;
  end: number;
  value: string;
}

const QUOTED_RE = /"((?:[^"\\]|\\[\s\S])*)"/g;
const SIMPLE: Record<string, string> = { '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029' };

/** A double-quoted scalar's body as YAML reads it (an escaped line break folds away; an unknown escape stays). */
function decode(body: string): string {
  return body.replace(/\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|\r?\n[ \t]*|[\s\S])/g, (m, e: string) => {
    if (e[0] === '\n' || e[0] === '\r') return '';
    if (e.length > 1 && 'xuU'.includes(e[0]!)) {
      const cp = parseInt(e.slice(1), 16);
      return cp <= 0x10ffff ? String.fromCodePoint(cp) : m;
    }
    return SIMPLE[e] ?? m;
  });
}

/** The escaped double-quoted scalars of the front matter `text` opens with (none without one, or no escape in it). */
export function escapedScalars(text: string): QuotedScalar[] {
  if (!text.startsWith('---')) return [];
  const open = text.indexOf('\n');
  if (open < 0 || text.slice(3, open).trim() !== '') return [];
  const close = text.indexOf('\n---', open);
  const end = close < 0 ? text.length : close;
  const head = text.slice(0, end);
  if (!head.includes('\\') || !head.includes('"')) return [];
  const out: QuotedScalar[] = [];
  QUOTED_RE.lastIndex = open;
  for (let m = QUOTED_RE.exec(head); m; m = QUOTED_RE.exec(head)) {
    if (m[1]!.includes('\\')) out.push({ start: m.index, end: m.index + m[0].length, value: decode(m[1]!) });
  }
  return out;
}
