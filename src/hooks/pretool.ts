/**
 * Contract: the PreToolUse hook, the prose gate (spec/hooks.md, "Prose gate"). Returns a deny output when the
 * prose a call would publish breaks a kernel rule (layer 1) or the model judge's verdict (layer 2), and
 * undefined otherwise, which the hook protocol turns into no output: allow. This module answers the cheap cases
 * itself (gate off by KB_PROSE_LINT, a tool or Bash command that cannot publish prose) and loads the rest
 * (src/app/gate.ts) only for calls that may publish prose. A Bash call that is one of git-kb's own read-only
 * commands (core/gate/own-reads.ts) is allowed outright, and so is a read-only tool of git-kb's own MCP server, so
 * reading the knowledge base never asks for permission.
 */
import { isOwnRead, isOwnReadTool } from '../core/gate/own-reads.js';
import { debugLog, type HookContext, type HookInput } from './protocol.js';

/**
 * Tools a usual matcher sends that never publish prose (`Write` matches `TodoWrite`, `Bash` matches
 * `BashOutput`). A subset of NEVER_PROSE_TOOLS in src/core/prose/, which the extractor applies to every tool;
 * here it only saves loading the extractor.
 */
const QUICK_PASS = new Set(['TodoWrite', 'TodoRead', 'BashOutput', 'KillBash', 'KillShell', 'NotebookRead', 'Read', 'Grep', 'Glob', 'LS']);

/** False when the call certainly publishes no prose: a quick-pass tool, or Bash naming neither git nor gh. */
export function mayPublish(tool: unknown, input: unknown): tool is string {
  if (typeof tool !== 'string' || tool === '' || QUICK_PASS.has(tool)) return false;
  if (tool !== 'Bash') return true;
  // NOTE: the extractor reads prose only from git and gh commands (also inside sh -c, pipes and $(...)).
  const command = input && typeof input === 'object' ? (input as { command?: unknown }).command : undefined;
  return typeof command === 'string' && /\b(git|gh)\b/.test(command);
}

/** The PreToolUse handler. */
export async function handlePreToolUse(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  const started = performance.now();
  const { settings } = ctx;
  const tool = input.tool_name;
  const command = tool === 'Bash' && input.tool_input && typeof input.tool_input === 'object' ? (input.tool_input as { command?: unknown }).command : undefined;
  if (typeof command === 'string' && isOwnRead(command)) {
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'git-kb: a read-only command of the knowledge base' } };
  }
  if (typeof tool === 'string' && isOwnReadTool(tool)) {
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'git-kb: a read-only tool of the knowledge base' } };
  }
  if (settings.proseLint === 'off' || !mayPublish(tool, input.tool_input)) return undefined;
  const log = (record: Record<string, unknown>): void =>
    debugLog({ event: 'pretool', tool, ms: Math.round(performance.now() - started), sinceStart: Math.round(performance.now()), ...record }, settings);
  const { gateCall } = await import('../app/gate.js');
  const { resolveDataDir } = await import('../adapters/config/config.js');
  const cwd = typeof input.cwd === 'string' && input.cwd ? input.cwd : undefined;
  const dataDir = resolveDataDir({ settings }).dir;
  return gateCall({ tool, input: input.tool_input, cwd, rulesOnly: settings.proseLint === 'rules', deadline: ctx.deadline, dataDir, settings, log });
}
