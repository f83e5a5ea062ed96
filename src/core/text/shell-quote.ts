/**
 * Contract: a string as one word of a POSIX shell command line. Single quotes keep everything literal (`$(…)`,
 * backquotes, `$VAR`, `\`), and a single quote inside is written `'\''`. Pure.
 */

/** `s` in single quotes, safe to paste into `sh` as one word whatever it holds. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
