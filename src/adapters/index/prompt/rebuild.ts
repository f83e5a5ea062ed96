/**
 * Contract: the public door to the prompt index's rebuilds for other modules (CLI write paths, session hooks):
 * `refreshPromptIndex(dir)` brings an existing index up to date and never throws; `rebuildPromptIndex(dir)`
 * rebuilds it now. Both load the prompt handler's module on demand. NOTE: this file imports nothing at run
 * time, so importing it (even dynamically) never makes the bundler split the prompt hook's hot path into more
 * chunks; the work is in prompt-load.ts.
 */
import type { BuildResult } from './build.js';

/** Brings the prompt index of `dir` up to date when it exists and is stale. Never throws. */
export async function refreshPromptIndex(dir: string): Promise<void> {
  try {
    const m = await import('../../../hooks/prompt/prompt.js');
    await m.refreshPromptIndex(dir);
  } catch {
    /* the next prompt rebuilds */
  }
}

/** Rebuilds the prompt index of `dir` now. */
export async function rebuildPromptIndex(dir: string): Promise<BuildResult> {
  const m = await import('../../../hooks/prompt/prompt.js');
  return m.rebuildPromptIndex(dir);
}
