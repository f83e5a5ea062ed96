/**
 * The light hook entry (bin/git-kb-hook EVENT): loads only the handler of the event it runs.
 * Events: prompt (UserPromptSubmit), pretool (PreToolUse), session-start, stop, precompact, session-end.
 */
import { runHook, type HookHandler } from './main.js';

const handlers: Record<string, () => Promise<HookHandler>> = {};
handlers.prompt = () => import('./prompt.js').then((m) => m.handlePrompt);
handlers.pretool = () => import('./pretool.js').then((m) => m.handlePreToolUse);

await runHook(process.argv[2] ?? '', handlers);
