/**
 * Contract: where the prose gate's model judge lives: KB_PROSE_LINT_CLAUDE (a path, relative to the call's
 * working directory, or a name looked up on PATH), else `claude` on PATH.
 */
import { findExecutable } from '../system/which.js';

/** Finds the claude executable: `wanted` (a path, or a name looked up on PATH), else `claude` on PATH. */
export function findClaude(wanted: string | undefined, pathVar: string, cwd = process.cwd()): string | undefined {
  return findExecutable(wanted?.trim() || 'claude', pathVar, cwd);
}
