/**
 * Contract: the reflection child (spec/reflect.md): `claude -p` as a model child (child.ts: hooks off, no tools,
 * no saved session, structured output, its own process group and timeout) with the reflection system prompt and
 * answer schema of src/core/reflect/prompt.ts. Never throws; the answer is read by src/core/reflect/proposals.ts.
 */
import type { ModelRun } from '../../core/text/model-json.js';
import { PROPOSALS_SCHEMA, REFLECT_SYSTEM } from '../../core/reflect/prompt.js';
import { runClaudeChild } from './child.js';

export interface ReflectChildOptions {
  claude: string;
  model: string;
  timeoutMs: number;
  prompt: string;
  env: NodeJS.ProcessEnv;
}

/** Runs the reflection child: its exit and output, or why it did not finish. */
export function runReflectChild(o: ReflectChildOptions): Promise<ModelRun> {
  return runClaudeChild({ ...o, system: REFLECT_SYSTEM, schema: PROPOSALS_SCHEMA, what: 'reflection' });
}
