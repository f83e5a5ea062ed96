/**
 * Contract: the one terminal filter of human output. Every text main prints (a verb's rendered reply, an error
 * message, a note on stderr) passes through `terminalSafe`: ANSI escape sequences (CSI such as `ESC[31m`, OSC
 * such as titles and hyperlinks, ended by BEL or `ESC\`) are removed whole, and every other C0 control (all but
 * newline and tab), DEL and C1 control becomes `?`, so text from entries, commits or arguments cannot drive the
 * terminal. The invisible characters that make text read other than it is (bidi embeddings, overrides and
 * isolates, which reorder what follows them as in "Trojan source"; the zero-width space, word joiner and a BOM
 * inside text, which make two titles look alike) are shown by code point, `<U+202E>`. The joiners that scripts and
 * emoji need (U+200C, U+200D) and the plain direction marks (U+200E, U+200F) are left as they are. JSON output
 * needs no filter: JSON.stringify escapes control characters, and keeps the rest for programs.
 */

// eslint-disable-next-line no-control-regex
const SEQUENCE = /\x1b\[[0-?]{0,64}[ -/]{0,16}[@-~]|\x1b\][^\x07\x1b]{0,4096}(?:\x07|\x1b\\)|\x1b[P^_X][^\x1b]{0,4096}\x1b\\|\x1b[@-Z\\-_]|\x9b[0-?]{0,64}[ -/]{0,16}[@-~]/g;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

const INVISIBLE = /[\u202a-\u202e\u2066-\u2069\u200b\u2060\ufeff]/g;

/** `text` with terminal escape sequences removed, other control characters shown as `?`, and invisible reorderers named. */
export function terminalSafe(text: string): string {
  return text
    .replace(SEQUENCE, '')
    .replace(/\r\n/g, '\n')
    .replace(CONTROL, '?')
    .replace(INVISIBLE, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`);
}
