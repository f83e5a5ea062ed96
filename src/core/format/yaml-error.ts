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
