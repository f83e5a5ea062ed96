/**
 * Contract: the editor flow of `edit ID` (no change flags) and `add` (no body, on a terminal), as `git commit`
 * does it. The text goes into a private temporary file (a folder of mode 0700 under the OS temp dir), the
 * editor runs on it (`$VISUAL`, else `$EDITOR`, through `sh -c` like git, so `EDITOR="code --wait"` works; with
 * neither set, `vi`, but only on a terminal), and the saved text is handed to `save`, the use case that
 * validates and commits it. An editor that exits non-zero aborts (ABORTED, nothing written). A save the use case
 * refuses (format, secrets, links, forbidden hosts) is shown and, on a terminal, the user is asked whether to
 * re-open the editor on the same text or abort; otherwise the command fails with the use case's error (its
 * code, its problems) and the saved text is kept in the temporary file, whose path the message names. This is
 * the one place besides main.ts that writes to the terminal: it talks to the user while the editor is open.
 */
import { childProcess, tty } from '../adapters/system/builtins.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import type { Settings } from '../adapters/config/settings.js';
import { noColorFlag } from './io.js';
import { colourOn, finish, paint } from './render/colour.js';
import { KbError } from '../core/errors.js';
import { decodeUtf8 } from '../core/text/utf8.js';
import { terminalSafe } from './render/safe.js';

/** Refusals the user can fix by editing again. */
const FIXABLE = new Set(['INVALID_ENTRY', 'SECRET_DETECTED', 'USAGE', 'FORBIDDEN_HOST', 'NOT_FOUND']);

/** True when both stdin and stderr are terminals: there is someone to ask. */
export function onTerminal(): boolean {
  return tty().isatty(0) && tty().isatty(2);
}

/** The editor command to run, or a USAGE error saying how to get one. */
export function editorCommand(settings: Settings, what: string): string {
  if (settings.editor) return settings.editor;
  if (tty().isatty(0) && tty().isatty(1)) return 'vi';
  throw new KbError('USAGE', `${what} opens an editor, but $VISUAL and $EDITOR are unset and this is not a terminal; set EDITOR or pass the change as flags (git-kb ${what.split(' ')[0]} --help)`);
}

function runEditor(command: string, file: string, settings: Settings): void {
  // NOTE: `id=$(git-kb add ...)` captures stdout; the editor still gets the terminal (git does the same).
  let out: number | undefined;
  if (!tty().isatty(1) && tty().isatty(0)) {
    try {
      out = fs.openSync('/dev/tty', 'w');
    } catch {
      out = undefined;
    }
  }
  let r: ReturnType<ReturnType<typeof childProcess>['spawnSync']>;
  try {
    r = childProcess().spawnSync('sh', ['-c', `${command} "$@"`, command, file], { stdio: ['inherit', out ?? 'inherit', 'inherit'], env: settings.env });
  } finally {
    if (out !== undefined) fs.closeSync(out);
  }
  if (r.error) throw new KbError('ABORTED', `could not run the editor "${command}": ${r.error.message}; nothing written`);
  if (r.status !== 0) {
    throw new KbError('ABORTED', `the editor "${command}" ${r.signal ? `was killed by ${r.signal}` : `exited with status ${r.status}`}; nothing written`);
  }
}

async function ask(question: string): Promise<string | undefined> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  try {
    return await new Promise<string | undefined>((resolve) => {
      rl.on('close', () => resolve(undefined));
      rl.question(question, resolve);
    });
  } finally {
    rl.close();
    process.stdin.pause();
  }
}

/**
 * Runs the editor on `text` (in a file called `name`) and hands each save to `save` until it succeeds, the user
 * aborts, or (off a terminal) it is refused once. `empty` says whether a saved text means "abort" (add's
 * template left empty); the caller's use case decides everything else.
 */
export async function editLoop<T>(options: { text: string; name: string; settings: Settings; what: string; save: (text: string) => Promise<T> }): Promise<T> {
  const command = editorCommand(options.settings, options.what);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'git-kb-edit-'));
  fs.chmodSync(folder, 0o700);
  const file = path.join(folder, options.name);
  fs.writeFileSync(file, options.text, { mode: 0o600 });
  let keep = false;
  try {
    for (;;) {
      runEditor(command, file, options.settings);
      const saved = decodeUtf8(fs.readFileSync(file), file);
      try {
        return await options.save(saved);
      } catch (err) {
        if (!(err instanceof KbError) || err.code === 'ABORTED') throw err;
        if (FIXABLE.has(err.code) && onTerminal()) {
          process.stderr.write(finish(`git-kb: ${paint('red', 'error:')} ${terminalSafe(err.message)}\n`, colourOn(2, noColorFlag, options.settings.color)));
          const a = (await ask('Edit again? [Y/n] '))?.trim().toLowerCase();
          if (a === undefined || /^n/.test(a)) {
            keep = true;
            throw new KbError('ABORTED', `aborted; nothing written; your text is kept in ${file}`, { buffer: file });
          }
          continue;
        }
        keep = true;
        throw new KbError(err.code, `${err.message}\nyour text is kept in ${file}`, { ...err.data, buffer: file });
      }
    }
  } finally {
    if (!keep) fs.rmSync(folder, { recursive: true, force: true });
  }
}
