/**
 * Contract: the PreToolUse hook, the prose gate (spec/hooks.md, "Prose gate"). For a call of a tool that can
 * publish prose, with the gate on and a data repo whose kernel entries carry rules or text: extract the prose
 * (src/prose.ts), run the kernel `rules:` over it (layer 1), then, when those pass and a `claude` executable is
 * found, ask the model judge (layer 2, verdicts cached). A violation returns a deny with the rule, the phrase
 * and where it is; everything else (no prose, no rules, no data repo, no claude, any error or timeout) returns
 * undefined, which the hook protocol turns into no output: allow. Layer 1 loads no YAML parser, git library or
 * model; the catalog is imported only when the kernel cache is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { resolveDataDir } from '../config.js';
import { denyOutput, denyReason } from '../gate/deny.js';
import { kernelRules, loadKernel } from '../gate/kernel.js';
import { checkRules } from '../gate/rules.js';
import { extractProse, NEVER_PROSE_TOOLS } from '../prose.js';
import { debugLog, type HookContext, type HookInput } from './main.js';

/** The judge model when KB_PROSE_LINT_MODEL is not set. */
export const DEFAULT_MODEL = 'sonnet';
/** The judge timeout when KB_PROSE_LINT_TIMEOUT_MS is not set (the hook's own deadline caps it). */
export const DEFAULT_TIMEOUT_MS = 45_000;
/** Time kept back from the hook deadline for writing the answer. */
const DEADLINE_MARGIN_MS = 500;

/** What KB_PROSE_LINT asks for: off (0, false, no, off), rules only (rules), or both layers (anything else). */
export function gateMode(value: string | undefined): 'off' | 'rules' | 'full' {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '0' || v === 'false' || v === 'no' || v === 'off') return 'off';
  if (v === 'rules' || v === 'rule') return 'rules';
  return 'full';
}

function timeoutFrom(env: NodeJS.ProcessEnv): number {
  const n = Number.parseInt(env.KB_PROSE_LINT_TIMEOUT_MS ?? '', 10);
  return Number.isFinite(n) && n > 0 ? Math.min(n, 600_000) : DEFAULT_TIMEOUT_MS;
}

/** The PreToolUse handler. */
export async function handlePreToolUse(input: HookInput, ctx: HookContext): Promise<object | undefined> {
  const started = performance.now();
  const env = ctx.env;
  const tool = input.tool_name;
  const log = (record: Record<string, unknown>): void =>
    debugLog({ event: 'pretool', tool, ms: Math.round(performance.now() - started), sinceStart: Math.round(performance.now()), ...record }, env);
  const mode = gateMode(env.KB_PROSE_LINT);
  if (mode === 'off') return undefined;
  if (typeof tool !== 'string' || tool === '' || NEVER_PROSE_TOOLS.has(tool)) return undefined;

  let dir: string;
  try {
    dir = resolveDataDir({ env }).dir;
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
  const cwd = typeof input.cwd === 'string' && input.cwd ? input.cwd : undefined;
  const pieces = extractProse(tool, input.tool_input, { cwd });
  if (pieces.length === 0) {
    log({ decision: 'allow', why: 'no prose', kernel: kernel.state });
    return undefined;
  }

  const rules = kernelRules(kernel);
  const l1 = checkRules(pieces, rules);
  if (l1.violations.length > 0) {
    log({ decision: 'deny', layer: 'rules', kernel: kernel.state, pieces: pieces.map((p) => p.source), violations: l1.violations.length + l1.more });
    return denyOutput(denyReason({ tool, layer: 'rules', violations: l1.violations, more: l1.more }));
  }
  if (mode === 'rules') {
    log({ decision: 'allow', why: 'rules pass; judge off (KB_PROSE_LINT=rules)', partial: l1.partial });
    return undefined;
  }

  const judge = await import('../gate/judge.js');
  const judged = judge.judgeablePieces(pieces);
  if (judged.length === 0 || !kernel.entries.some((e) => e.body.trim())) {
    log({ decision: 'allow', why: judged.length === 0 ? 'rules pass; no prose long enough for the judge' : 'rules pass; kernel has no text', partial: l1.partial });
    return undefined;
  }
  const model = env.KB_PROSE_LINT_MODEL?.trim() || DEFAULT_MODEL;
  const { readVerdict, saveVerdict, verdictKey } = await import('../gate/verdicts.js');
  const key = verdictKey({ model, digest: kernel.digest, pieces: judged });
  const cached = readVerdict(dir, key);
  if (cached) {
    log({ decision: cached.pass ? 'allow' : 'deny', layer: 'judge', cache: 'hit' });
    return cached.pass ? undefined : denyOutput(denyReason({ tool, layer: 'judge', violations: cached.violations, model }));
  }
  const claude = judge.findClaude(env, cwd);
  if (!claude) {
    log({ decision: 'allow', why: 'rules pass; no claude executable for the judge' });
    return undefined;
  }
  const timeoutMs = Math.min(timeoutFrom(env), ctx.deadline - Date.now() - DEADLINE_MARGIN_MS);
  if (timeoutMs < 1_000) {
    log({ decision: 'allow', why: 'rules pass; no time left for the judge' });
    return undefined;
  }
  const outcome = await judge.runJudge({ claude, model, timeoutMs, pieces: judged, kernel: kernel.entries, env });
  if (outcome.kind === 'error') {
    log({ decision: 'allow', layer: 'judge', why: outcome.reason, stderr: outcome.stderr });
    return undefined;
  }
  saveVerdict(dir, key, { pass: outcome.kind === 'pass', violations: outcome.kind === 'fail' ? outcome.violations : [] });
  log({ decision: outcome.kind === 'pass' ? 'allow' : 'deny', layer: 'judge', cache: 'miss' });
  return outcome.kind === 'pass' ? undefined : denyOutput(denyReason({ tool, layer: 'judge', violations: outcome.violations, model }));
}
