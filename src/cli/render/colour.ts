/**
 * Contract: colour in human output, where git and gh use it (spec/cli.md, "Colour"): diffs (added green, removed
 * red, hunk headers cyan, file headers bold), headings bold, ids yellow, secondary text dim, `error:` red and
 * `warning:` yellow. Render functions mark text with `paint`; the one printing place (src/cli/main.ts) turns the
 * marks into ANSI colours with `finish` after `terminalSafe` has cleaned the text, or drops them when colour is
 * off for that stream. A mark is private-use characters with a per-process random key, so text from an entry,
 * a commit or an argument can neither forge one nor reach the terminal as an escape sequence.
 *
 * Colour is on for a stream when: no `--no-color`, `NO_COLOR` unset or empty, and either `FORCE_COLOR` is set
 * to anything but `0`/`false`/empty, or the stream is a terminal and `TERM` is not `dumb`. `--json` output is
 * data and is never painted.
 */
import { tty } from '../../adapters/system/builtins.js';
import type { Settings } from '../../adapters/config/settings.js';

const SGR = { red: '31', green: '32', yellow: '33', cyan: '36', bold: '1', dim: '2', boldRed: '1;31' } as const;
export type Style = keyof typeof SGR;
const STYLES = Object.keys(SGR) as Style[];

// The key: eight characters of the private-use area drawn once per process.
const KEY = Array.from({ length: 8 }, () => String.fromCharCode(0xe100 + Math.floor(Math.random() * 0x100))).join('');
const OPEN = `\ue000${KEY}`;
const CLOSE = `\ue001${KEY}`;
const MARK = new RegExp(`\\ue000${KEY}([\\ue010-\\ue01f])|\\ue001${KEY}`, 'g');

/** `text` marked to show in `style` (each line apart, so a pager or a cut line never bleeds colour). */
export function paint(style: Style, text: string): string {
  if (!text) return text;
  const open = `${OPEN}${String.fromCharCode(0xe010 + STYLES.indexOf(style))}`;
  return text
    .split('\n')
    .map((line) => (line ? `${open}${line}${CLOSE}` : line))
    .join('\n');
}

/** `text` with its marks as ANSI colours (`on`) or removed. */
export function finish(text: string, on: boolean): string {
  return text.replace(MARK, (_m, style: string | undefined) => {
    if (!on) return '';
    return style === undefined ? '\x1b[0m' : `\x1b[${SGR[STYLES[style.charCodeAt(0) - 0xe010]!]}m`;
  });
}

/** Whether output to descriptor `fd` (1 stdout, 2 stderr) is coloured, given --no-color and Settings.color. */
export function colourOn(fd: 1 | 2, noColorFlag: boolean, color: Settings['color']): boolean {
  if (noColorFlag || color === 'never') return false;
  if (color === 'always') return true;
  try {
    return tty().isatty(fd);
  } catch {
    return false;
  }
}

/** A unified diff, coloured as git colours one. */
export function diff(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      if (/^(\+\+\+|---) /.test(line) || line.startsWith('Index: ')) return paint('bold', line);
      if (line.startsWith('@@')) return paint('cyan', line);
      if (line.startsWith('+')) return paint('green', line);
      if (line.startsWith('-')) return paint('red', line);
      return line;
    })
    .join('\n');
}

/**
 * An entry's file as `get` prints it: the fences dim, front matter keys cyan, markdown headings bold (not inside
 * a fenced code block). The text itself is unchanged.
 */
export function entryText(text: string): string {
  const lines = text.split('\n');
  let inFront = lines[0] === '---';
  let fence: string | undefined;
  return lines
    .map((line, i) => {
      if (inFront) {
        if (i > 0 && line === '---') {
          inFront = false;
          return paint('dim', line);
        }
        if (i === 0) return paint('dim', line);
        const key = /^([A-Za-z_][\w-]*):(.*)$/.exec(line);
        return key ? `${paint('cyan', `${key[1]}:`)}${key[2]}` : line;
      }
      const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (f && (fence === undefined || (f[0] === fence[0] && f.length >= fence.length))) {
        fence = fence === undefined ? f : undefined;
        return line;
      }
      if (fence === undefined && /^#{1,6} /.test(line)) return paint('bold', line);
      return line;
    })
    .join('\n');
}
