/**
 * Contract: paths in line-oriented files (derived state that lists files one per line). Pure.
 */

/**
 * A path as one line of a line-oriented cache file (a stat table's paths, the prompt index's file list): each
 * backslash doubled and each newline written as a backslash and `n`, so that a file whose name holds a newline
 * is one line like any other. A path with neither is written as it is.
 */
export function pathLine(p: string): string {
  return needsEscape(p) ? p.replace(/[\\\n]/g, (c) => (c === '\n' ? '\\n' : '\\\\')) : p;
}

/** True for a path `pathLine` changes (one with a backslash or a newline). */
export function needsEscape(p: string): boolean {
  return p.includes('\\') || p.includes('\n');
}

/** The path of a line `pathLine` wrote. */
export function linePath(line: string): string {
  return line.includes('\\') ? line.replace(/\\([\s\S])/g, (_, c: string) => (c === 'n' ? '\n' : c)) : line;
}
