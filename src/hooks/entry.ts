/**
 * The light hook entry (bin/git-kb-hook EVENT): loads only the handler of the event it runs.
 * Events: prompt (UserPromptSubmit), pretool (PreToolUse), session-start, stop, precompact, session-end.
 */
import { runHook, type HookHandler } from './main.js';

const handlers: Record<string, () => Promise<HookHandler>> = {};
handlers.prompt = () => import('./prompt.js').then((m) => m.handlePrompt);
handlers.pretool = () => import('./pretool.js').then((m) => m.handlePreToolUse);
handlers['session-start'] = () => import('./session.js').then((m) => m.handleSessionStart);
handlers.stop = () => import('./session.js').then((m) => m.handleStop);
handlers.precompact = () => import('./session.js').then((m) => m.handlePreCompact);
handlers['session-end'] = () => import('./session.js').then((m) => m.handleSessionEnd);

await runHook(process.argv[2] ?? '', handlers);
