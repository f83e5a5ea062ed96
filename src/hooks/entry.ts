/**
 * The light hook entry (bin/git-kb-hook EVENT): loads only the handler of the event it runs.
 * Events: prompt (UserPromptSubmit), pretool (PreToolUse), session-start, stop, precompact, session-end.
 */
import { readSettings } from '../adapters/config/settings.js';
import { runHook, type HookHandler } from './protocol.js';

const handlers: Record<string, () => Promise<HookHandler>> = {};
handlers.prompt = () => import('./prompt/prompt.js').then((m) => m.handlePrompt);
handlers.pretool = () => import('./pretool.js').then((m) => m.handlePreToolUse);
handlers['session-start'] = () => import('./session.js').then((m) => m.handleSessionStart);
handlers.stop = () => import('./session.js').then((m) => m.handleStop);
handlers.precompact = () => import('./session.js').then((m) => m.handlePreCompact);
handlers['session-end'] = () => import('./session.js').then((m) => m.handleSessionEnd);

// Each event gives up silently (exit 0) a little before Claude Code's own timeout in hooks/hooks.json would kill
// it. The prose gate waits for its model judge (KB_PROSE_LINT_TIMEOUT_MS, default 45 s) within its 60 s.
const settings = readSettings(process.env);
const deadlines: Record<string, number> = {
  prompt: 8_000,
  pretool: Math.min(58_000, settings.proseLintTimeoutMs + 5_000),
  'session-start': 8_000,
  stop: 13_000,
  precompact: 13_000,
  'session-end': 1_500,
};

const event = process.argv[2] ?? '';
// NOTE: no top-level await: the entry is bundled as CommonJS (build.mjs); runHook never throws.
void runHook(event, handlers, { timeoutMs: deadlines[event], settings });
