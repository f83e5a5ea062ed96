/**
 * Contract: the recent-sessions signal of the prompt hook (spec/hooks.md, "Signals"; spec/sessions.md, "Recall").
 * On a session's first looked-at prompt, it points to the latest few session summaries of the same project
 * directory (the payload's `cwd`, matched exactly), the current session left out. The summaries are read from the
 * side file the index names (adapters/index/prompt/extras-sessions.ts); a missing, unreadable or foreign one
 * gives no pointers.
 */
import path from 'node:path';
import { promptStateDir } from '../../../adapters/index/fresh.js';
import { normDir, readSideRows, recentPointerTitle, SIDE_FILE } from '../../../adapters/index/prompt/extras-sessions.js';
import type { Pointer, PromptSignal } from '../signals.js';

/** Pointers shown. */
export const RECENT_SHOWN = 3;

export const recentSessionsSignal: PromptSignal = {
  name: 'sessions',
  limit: RECENT_SHOWN,
  fire(ctx) {
    if (!ctx.firstPrompt) return { pointers: [] };
    const x = ctx.reader.header.extras?.sessions;
    const cwd = typeof ctx.input.cwd === 'string' && ctx.input.cwd ? normDir(ctx.input.cwd) : undefined;
    if (!x?.file || !cwd || !SIDE_FILE.test(x.file)) return { pointers: [] };
    const rows = readSideRows(path.join(promptStateDir(ctx.dataDir), x.file), cwd);
    if (!rows) return { pointers: [], ...(ctx.debug ? { debug: { error: 'side file unreadable' } } : {}) };
    const self = typeof ctx.input.session_id === 'string' ? ctx.input.session_id : undefined;
    const pointers: Pointer[] = rows
      .filter((r) => Array.isArray(r) && typeof r[0] === 'string' && r[2] !== self)
      .slice(0, RECENT_SHOWN)
      .map((r) => ({ id: r[0], title: recentPointerTitle(String(r[1])), signal: 'recent-session' }));
    return { pointers, ...(ctx.debug ? { debug: { cwd, found: rows.length } } : {}) };
  },
};
