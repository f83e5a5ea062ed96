/**
 * Contract: the prose gate's decision for one PreToolUse call (spec/hooks.md, "Prose gate", steps 3 to 8):
 * resolve the data repo, load the kernel, extract the prose, run the kernel rules (layer 1), then the model
 * judge (layer 2, verdicts cached). Returns the deny output, or undefined for allow; every reason goes to the
 * debug log. Loads no YAML parser, git library or model on layer 1: the kernel rebuild, the verdict cache and
 * the judge process are imported only when needed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolveDataDir } from '../adapters/config/config.js';
import { readSettings } from '../adapters/config/settings.js';
import { extractProse } from '../core/prose/extract.js';
import { findClaude } from '../adapters/claude/find-claude.js';
import { readBounded } from '../adapters/system/read-bounded.js';
import { denyOutput, denyReason } from '../core/gate/deny.js';
import { kernelRules, loadKernel } from '../adapters/index/kernel.js';
import { checkRules } from '../core/gate/rules.js';
import { JUDGE_VERSION, judgeablePieces, judgeOutcome } from '../core/gate/verdict.js';

/** The judge model when KB_PROSE_LINT_MODEL is not set. */
export const DEFAULT_MODEL = 'sonnet';
/** The judge timeout when KB_PROSE_LINT_TIMEOUT_MS is not set (the hook's own deadline caps it). */
export const DEFAULT_TIMEOUT_MS = 45_000;
/** Time kept back from the hook deadline for writing the answer. */
const DEADLINE_MARGIN_MS = 500;

export interface GateCall {
  tool: string;
  input: unknown;
  cwd?: string;
  /** Layer 1 only (KB_PROSE_LINT=rules). */
  rulesOnly: boolean;
  /** Epoch milliseconds by which the hook must have answered. */
  deadline: number;
  env: NodeJS.ProcessEnv;
  log: (record: Record<string, unknown>) => void;
}

function timeoutFrom(env: NodeJS.ProcessEnv): number {
  const n = Number.parseInt(env.KB_PROSE_LINT_TIMEOUT_MS ?? '', 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 600_000) : DEFAULT_TIMEOUT_MS;
}

/** Decides one call: the deny output, or undefined (allow). */
export async function gateCall(c: GateCall): Promise<object | undefined> {
  const { tool, env, log } = c;
  let dir: string;
  try {
    dir = resolveDataDir({ settings: readSettings(env) }).dir;
  } catch (err) {
    log({ decision: 'allow', why: `data repo: ${(err as Error).message}` });
    return undefined;
  }
  if (!fs.existsSync(path.join(dir, '.git'))) {
    log({ decision: 'allow', why: 'no data repo', dir });
    return undefined;
  }
  const kernel = await loadKernel(dir);
  if (kernel.entries.length === 0) {
    log({ decision: 'allow', why: 'no kernel entries', kernel: kernel.state });
    return undefined;
  }
  const pieces = extractProse(tool, c.input, { cwd: c.cwd, readFile: readBounded });
  if (pieces.length === 0) {
    log({ decision: 'allow', why: 'no prose', kernel: kernel.state });
    return undefined;
  }

  const l1 = checkRules(pieces, kernelRules(kernel));
  if (l1.violations.length > 0) {
    log({ decision: 'deny', layer: 'rules', kernel: kernel.state, pieces: pieces.map((p) => p.source), violations: l1.violations.length + l1.more });
    return denyOutput(denyReason({ tool, layer: 'rules', violations: l1.violations, more: l1.more }));
  }
  if (c.rulesOnly) {
    log({ decision: 'allow', why: 'rules pass; judge off (KB_PROSE_LINT=rules)', kernel: kernel.state, partial: l1.partial });
    return undefined;
  }

  const judged = judgeablePieces(pieces);
  if (judged.length === 0 || !kernel.entries.some((e) => e.body.trim())) {
    log({ decision: 'allow', why: judged.length === 0 ? 'rules pass; no prose long enough for the judge' : 'rules pass; kernel has no text', partial: l1.partial });
    return undefined;
  }
  // NOTE: no judge, no layer 2: a verdict cached while one was installed is not used either.
  const claude = findClaude(env.KB_PROSE_LINT_CLAUDE, env.PATH ?? '', c.cwd);
  if (!claude) {
    log({ decision: 'allow', why: 'rules pass; no claude executable for the judge' });
    return undefined;
  }
  const model = env.KB_PROSE_LINT_MODEL?.trim() || DEFAULT_MODEL;
  const { readVerdict, saveVerdict, verdictKey } = await import('../adapters/index/verdicts.js');
  const key = verdictKey({ version: JUDGE_VERSION, model, digest: kernel.digest, pieces: judged });
  const cached = readVerdict(dir, key);
  if (cached) {
    log({ decision: cached.pass ? 'allow' : 'deny', layer: 'judge', cache: 'hit' });
    return cached.pass ? undefined : denyOutput(denyReason({ tool, layer: 'judge', violations: cached.violations, model }));
  }
  const timeoutMs = Math.min(timeoutFrom(env), c.deadline - Date.now() - DEADLINE_MARGIN_MS);
  if (timeoutMs < 1_000) {
    log({ decision: 'allow', why: 'rules pass; no time left for the judge' });
    return undefined;
  }
  const { runJudge } = await import('../adapters/claude/judge.js');
  const outcome = judgeOutcome(await runJudge({ claude, model, timeoutMs, pieces: judged, kernel: kernel.entries, env }), judged);
  if (outcome.kind === 'error') {
    log({ decision: 'allow', layer: 'judge', why: outcome.reason, stderr: outcome.stderr });
    return undefined;
  }
  saveVerdict(dir, key, { pass: outcome.kind === 'pass', violations: outcome.kind === 'fail' ? outcome.violations : [] });
  log({ decision: outcome.kind === 'pass' ? 'allow' : 'deny', layer: 'judge', cache: 'miss' });
  return outcome.kind === 'pass' ? undefined : denyOutput(denyReason({ tool, layer: 'judge', violations: outcome.violations, model }));
}
