/**
 * Contract: the prose gate's decision for one PreToolUse call (spec/hooks.md, "Prose gate", steps 3 to 8): load
 * the kernel, extract the prose, run the kernel rules (layer 1), then the model judge (layer 2, verdicts cached).
 * Returns the deny output, or undefined for allow; every reason goes to the debug log. The data repo and the
 * settings come from the caller (no environment is read here). The kernel comes from the prompt index, with its
 * bodies and rules: one kernel cache for the prompt hook and the gate, rebuilt here when stale. Loads no YAML
 * parser, git library or model on layer 1: the index rebuild, the verdict cache and the judge process are
 * imported only when needed.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Settings } from '../adapters/config/settings.js';
import { extractProse } from '../core/prose/extract.js';
import { findClaude } from '../adapters/claude/find-claude.js';
import { readBounded } from '../adapters/system/read-bounded.js';
import { denyOutput, denyReason } from '../core/gate/deny.js';
import { readKernel, type IndexKernel } from '../adapters/index/prompt/format.js';
import { loadPromptIndex } from '../adapters/index/prompt/load.js';
import { checkRules, type GateRule } from '../core/gate/rules.js';
import { JUDGE_VERSION, judgeablePieces, judgeOutcome } from '../core/gate/verdict.js';
import { redactSecrets } from '../core/secrets/scan.js';

/** The judge model when KB_PROSE_LINT_MODEL is not set. */
export const DEFAULT_MODEL = 'sonnet';
/** The longest judge timeout KB_PROSE_LINT_TIMEOUT_MS may ask for (the hook's own deadline caps it too). */
const MAX_TIMEOUT_MS = 600_000;
/** Time kept back from the hook deadline for writing the answer. */
const DEADLINE_MARGIN_MS = 500;

/** What the gate reads of the Settings: the judge's model, timeout, executable and environment, and PATH. */
export type GateSettings = Pick<Settings, 'proseLintModel' | 'proseLintTimeoutMs' | 'proseLintClaude' | 'path' | 'env'>;

export interface GateCall {
  tool: string;
  input: unknown;
  cwd?: string;
  /** Layer 1 only (KB_PROSE_LINT=rules). */
  rulesOnly: boolean;
  /** Epoch milliseconds by which the hook must have answered. */
  deadline: number;
  /** The data repo (it may not exist: the gate then allows). */
  dataDir: string;
  settings: GateSettings;
  log: (record: Record<string, unknown>) => void;
}

/** The kernel as the gate judges by it. */
export interface GateKernel {
  entries: IndexKernel[];
  /** A hash of every kernel id, title, body and rule: equal digests mean the gate judges by the same rules. */
  digest: string;
  /** How the prompt index was had (`fresh`, `rebuilt (...)`), for the debug log. */
  state: string;
}

/** The kernel of the data repo at `dir` (which must exist), from the prompt index, rebuilt here when stale. */
export async function loadGateKernel(dir: string): Promise<GateKernel> {
  // NOTE: `wait`: the gate has the time to rebuild a large index itself (its deadline is the judge's), and a
  // kernel left out while a background build runs would let prose through.
  const loaded = await loadPromptIndex(dir, undefined, { wait: true });
  if (!loaded.reader) return { entries: [], digest: '', state: loaded.state };
  let entries: IndexKernel[];
  try {
    entries = readKernel(loaded.reader);
  } finally {
    loaded.reader.close();
  }
  const h = crypto.createHash('sha256');
  for (const e of entries) h.update(JSON.stringify([e.id, e.title, e.body, e.rules])).update('\n');
  return { entries, digest: h.digest('hex'), state: loaded.state };
}

/** Every rule of the kernel, with the entry that carries it, in entry then list order. */
export function kernelRules(kernel: GateKernel): GateRule[] {
  const out: GateRule[] = [];
  for (const e of kernel.entries) e.rules.forEach((r, i) => out.push({ id: e.id, title: e.title, index: i + 1, ...r }));
  return out;
}

/** Decides one call: the deny output, or undefined (allow). */
export async function gateCall(c: GateCall): Promise<object | undefined> {
  const { tool, log, settings } = c;
  const dir = c.dataDir;
  if (!fs.existsSync(path.join(dir, '.git'))) {
    log({ decision: 'allow', why: 'no data repo', dir });
    return undefined;
  }
  const kernel = await loadGateKernel(dir);
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
  const claude = findClaude(settings.proseLintClaude, settings.path, c.cwd);
  if (!claude) {
    log({ decision: 'allow', why: 'rules pass; no claude executable for the judge' });
    return undefined;
  }
  const model = settings.proseLintModel?.trim() || DEFAULT_MODEL;
  const { readVerdict, saveVerdict, verdictKey } = await import('../adapters/index/verdicts.js');
  const key = verdictKey({ version: JUDGE_VERSION, model, digest: kernel.digest, pieces: judged });
  const cached = readVerdict(dir, key);
  if (cached) {
    log({ decision: cached.pass ? 'allow' : 'deny', layer: 'judge', cache: 'hit' });
    return cached.pass ? undefined : denyOutput(denyReason({ tool, layer: 'judge', violations: cached.violations, model }));
  }
  const timeoutMs = Math.min(settings.proseLintTimeoutMs, MAX_TIMEOUT_MS, c.deadline - Date.now() - DEADLINE_MARGIN_MS);
  if (timeoutMs < 1_000) {
    log({ decision: 'allow', why: 'rules pass; no time left for the judge' });
    return undefined;
  }
  const { runJudge } = await import('../adapters/claude/judge.js');
  const outcome = judgeOutcome(await runJudge({ claude, model, timeoutMs, pieces: judged, kernel: kernel.entries, env: settings.env }), judged);
  if (outcome.kind === 'error') {
    log({ decision: 'allow', layer: 'judge', why: outcome.reason, stderr: outcome.stderr });
    return undefined;
  }
  // NOTE: a verdict whose quote or fix holds a secret (the prose's own, or the judge's words) is not cached: the
  // cache is a file, and secrets never land in one; the same prose is judged again instead.
  const violations = outcome.kind === 'fail' ? outcome.violations : [];
  if (!violations.some((v) => redactSecrets(JSON.stringify(v)).count > 0)) saveVerdict(dir, key, { pass: outcome.kind === 'pass', violations });
  log({ decision: outcome.kind === 'pass' ? 'allow' : 'deny', layer: 'judge', cache: 'miss' });
  return outcome.kind === 'pass' ? undefined : denyOutput(denyReason({ tool, layer: 'judge', violations: outcome.violations, model }));
}
