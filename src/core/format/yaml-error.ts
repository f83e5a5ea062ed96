/**
 * Contract: how a YAML parse error is told to a person (entry front matter, hosts.yaml): the line to fix and a
 * sentence that ends. The YAML library notices a flow collection (`[a, b`, `{a: 1`) or a quoted value (`"abc`)
 * left open only where the next key starts, a line or more below the one to fix, and ends its message with
 * "at line L, column C:" before an excerpt; the line is named beside the message instead. Pure.
 */
import YAML from 'yaml';

/**
 * Where the flow collection or quoted scalar left open that error offset `at` ends lies: its opening's offset (the
 * outermost one), or undefined.
 */
function unclosedAt(doc: YAML.Document, at: number): number | undefined {
  let start: number | undefined;
  YAML.visit(doc, (_key, node) => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    if (!range || range[0] >= at || (range[1] !== at && range[2] !== at)) return;
    const open = (YAML.isCollection(node) && node.flow) || (YAML.isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE'));
    if (open && (start === undefined || range[0] < start)) start = range[0];
  });
  return start;
}

/** The first line of a YAML library message, without its cut-off "at line L, column C:". */
export function yamlReason(message: string): string {
  return message.split('\n')[0]!.replace(/\s*at line \d+, column \d+:?\s*$/, '');
}

/** A parsed document's first error: the 1-based line to fix (where an unclosed bracket or quote opens) and why. */
export function yamlErrorAt(doc: YAML.Document, lineCounter: YAML.LineCounter): { line: number; reason: string } | undefined {
  const err = doc.errors[0];
  if (!err) return undefined;
  const opened = unclosedAt(doc, err.pos[0]);
  const line = opened !== undefined ? lineCounter.linePos(opened).line : (err.linePos?.[0]?.line ?? 1);
  return { line, reason: yamlReason(err.message) };
}

type Token = { offset: number; source: string };
type Items = { key: unknown; value?: unknown; srcToken?: { start?: Token[]; sep?: Token[] } }[];

function tokensEnd(tokens: Token[] | undefined): number | undefined {
  const last = tokens?.[tokens.length - 1];
  return last ? last.offset + last.source.length : undefined;
}

function rangeOf(node: unknown): [number, number, number] | undefined {
  return (node as { range?: [number, number, number] } | null | undefined)?.range ?? undefined;
}

/**
 * Where the library places the error of the repeated key `items[i]`: after the item's own start tokens (an anchor,
 * a tag, `?`, a comma, comments), or else where the item before it ended. NOTE: as resolve-block-map.js and
 * resolve-flow-collection.js of the yaml package do, so the line is the one the library names (for `box:` with no
 * value followed by a second `box:`, the first one's line).
 */
function repeatedKeyAt(items: Items, i: number): number {
  const own = rangeOf(items[i]!.key)?.[0] ?? 0;
  const start = tokensEnd(items[i]!.srcToken?.start);
  if (start !== undefined) return start;
  const prev = items[i - 1];
  if (!prev) return own;
  return rangeOf(prev.value)?.[2] ?? tokensEnd(prev.srcToken?.sep) ?? rangeOf(prev.key)?.[2] ?? own;
}

/**
 * `YAML.parseDocument(src, { uniqueKeys: true, lineCounter })` in linear time. NOTE: the library finds a key
 * repeated in a mapping by comparing each key with every key before it, quadratic in the mapping's size (a
 * hosts.yaml of 32,000 hosts took 11 s); here the text is parsed without that check, and repeated keys are found
 * with one Set per mapping. Each becomes the error the library gives (DUPLICATE_KEY, "Map keys must be unique",
 * at the place it names), placed among the other errors in the order of the text, so the first error is the same.
 */
export function parseDocumentUniqueKeys(src: string, lineCounter: YAML.LineCounter): YAML.Document.Parsed {
  const doc = YAML.parseDocument(src, { uniqueKeys: false, keepSourceTokens: true, lineCounter });
  const repeated: YAML.YAMLParseError[] = [];
  YAML.visit(doc, {
    Map(_key, map) {
      const items = map.items as unknown as Items;
      const seen = new Set<unknown>();
      for (let i = 0; i < items.length; i++) {
        const key = items[i]!.key;
        // NOTE: the library's equality: two scalars whose values are ===, so NaN repeats nothing.
        if (!YAML.isScalar(key) || Number.isNaN(key.value)) continue;
        if (!seen.has(key.value)) {
          seen.add(key.value);
          continue;
        }
        const at = repeatedKeyAt(items, i);
        const error = new YAML.YAMLParseError([at, at + 1], 'DUPLICATE_KEY', 'Map keys must be unique');
        error.linePos = [lineCounter.linePos(at), lineCounter.linePos(at + 1)];
        repeated.push(error);
      }
    },
  });
  if (repeated.length === 0) return doc;
  repeated.sort((a, b) => a.pos[0] - b.pos[0]);
  const errors: YAML.YAMLParseError[] = [];
  let r = 0;
  for (const e of doc.errors) {
    while (r < repeated.length && repeated[r]!.pos[0] < e.pos[0]) errors.push(repeated[r++]!);
    errors.push(e);
  }
  while (r < repeated.length) errors.push(repeated[r++]!);
  doc.errors = errors;
  return doc;
}
