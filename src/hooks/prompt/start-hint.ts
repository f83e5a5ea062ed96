/**
 * Contract: the prompt hook with no data repo (spec/hooks.md, "No data repo yet"): once per session, one line
 * saying how to start, for the model (additionalContext) and the user (systemMessage). Once is remembered by an
 * empty marker file per session under ~/.git-kb/hinted/, made with O_EXCL, so two prompts at once hint once; a
 * marker that cannot be made means no hint (fail-open: silence rather than the same line on every prompt). The
 * markers of old sessions are swept when there are many. Node built-ins only: this is on the prompt path.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Settings } from '../../adapters/config/settings.js';
import { gitKbHome, homeShort } from '../../adapters/config/config.js';
import { ledgerName } from '../../adapters/index/ledger.js';

/** Markers kept before old ones are swept, and the age past which one goes. */
const KEEP_MARKERS = 200;
const MARKER_MAX_AGE_MS = 7 * 24 * 3600 * 1000;

/** The one line: where the data repo was looked for, and the commands that start one. */
export function startHintText(dir: string, settings: Pick<Settings, 'home' | 'pluginRoot'>): string {
  const shown = homeShort(dir, settings.home);
  const start = settings.pluginRoot ? '`/git-kb init` (or `git-kb init` in a shell) starts one' : '`git-kb init` starts one';
  return `git-kb: no knowledge base yet (no data repo at ${shown}); ${start}, and the first \`git-kb add\` creates it there too.`;
}

/** True the first time it is asked for a session (the marker is made now); false after, or when it cannot tell. */
function firstTimeFor(sessionId: string | undefined, settings: Pick<Settings, 'home'>): boolean {
  if (!sessionId) return true; // nothing to remember it by; as the pointers, nothing is deduplicated
  const folder = path.join(gitKbHome(settings), 'hinted');
  const marker = path.join(folder, ledgerName(sessionId));
  const make = (): void => fs.closeSync(fs.openSync(marker, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600));
  try {
    try {
      make();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return false;
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      make();
    }
  } catch {
    return false;
  }
  sweep(folder);
  return true;
}

function sweep(folder: string): void {
  try {
    const names = fs.readdirSync(folder);
    if (names.length <= KEEP_MARKERS) return;
    const cutoff = Date.now() - MARKER_MAX_AGE_MS;
    for (const n of names) {
      const f = path.join(folder, n);
      const st = fs.statSync(f, { throwIfNoEntry: false });
      if (st && st.mtimeMs < cutoff) fs.rmSync(f, { force: true });
    }
  } catch {
    /* a marker too many costs nothing */
  }
}

/** The hook's answer for a prompt with no data repo: the start line on the session's first prompt, else nothing. */
export function startHint(dir: string, sessionId: string | undefined, settings: Pick<Settings, 'home' | 'pluginRoot'>): object | undefined {
  if (!firstTimeFor(sessionId, settings)) return undefined;
  const text = startHintText(dir, settings);
  return { systemMessage: text, hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: text } };
}
