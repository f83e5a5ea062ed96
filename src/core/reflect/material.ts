/**
 * Contract: what the reflection child reads of a session (spec/reflect.md, "What the model reads"): the session's
 * prompts, tool calls with their results, and replies, every piece through the session's scrubber
 * (src/core/sessions/summary.ts transcriptScrubber) before it is placed, each piece and the whole capped. The same
 * text is what a proposal's quote must be found in. Also: whether the session did real work, and the outputs of
 * help commands (`--help`, `man`...), which a non-obvious fact may not merely restate. Pure.
 */
import { isSecretFilePath } from '../secrets/scan.js';
import type { TranscriptFacts } from '../sessions/transcript.js';

export const MATERIAL_LIMITS = { piece: 3_000, input: 600, total: 60_000 } as const;

/** How much work a session did, as reflection counts it. */
export interface SessionWork {
  /** Bash commands run. */
  commands: number;
  /** Files written (Write, Edit, MultiEdit, NotebookEdit). */
  filesChanged: number;
  /** Tool calls of any kind. */
  toolCalls: number;
}

/** Real work (spec/reflect.md): a command run, a file changed, or at least three tool calls of any kind. */
export function isRealWork(w: SessionWork): boolean {
  return w.commands > 0 || w.filesChanged > 0 || w.toolCalls >= 3;
}

export interface ReflectMaterial {
  /** The redacted session text the model reads, and that quotes are checked against. */
  text: string;
  /** The redacted outputs of help commands (`--help`, `help`, `man`, `tldr`, `info`). */
  helpTexts: string[];
  work: SessionWork;
  /** Secrets and secret-file values replaced. */
  redactions: number;
}

/**
 * A shell command that prints a tool's own documentation. NOTE: `-h` is left out: it means "human-readable" to
 * df, du, ls and sort far more often than "help".
 */
const HELP_COMMAND = /(?:^|[\s;|&(])(?:man|tldr|info)\s+\S|(?:^|\s)(?:--help|help)(?:\s|$|[;|&)])/;

/** True when `command` asks a tool for its own usage text. */
export function isHelpCommand(command: string): boolean {
  return HELP_COMMAND.test(command);
}

function cut(s: string, max: number): string {
  const t = s.trim();
  return t.length <= max ? t : `${t.slice(0, max)} [… cut]`;
}

/** A tool call's input in one line of text: a command, a path, or its JSON. */
function inputText(name: string, input: unknown): string {
  const o = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  if (typeof o.command === 'string') return o.command;
  const file = typeof o.file_path === 'string' ? o.file_path : typeof o.notebook_path === 'string' ? o.notebook_path : typeof o.path === 'string' ? o.path : undefined;
  const change = typeof o.new_string === 'string' ? o.new_string : typeof o.content === 'string' && name !== 'Read' ? o.content : undefined;
  if (file) return change ? `${file}\n${change}` : file;
  try {
    return JSON.stringify(input) ?? '';
  } catch {
    return '';
  }
}

/**
 * The pieces joined, within MATERIAL_LIMITS.total: all of them when they fit; else the first pieces up to a third of
 * it (the prompts: what was asked) and the last up to the rest (the latest work and replies: what was found), with
 * a line saying how many were left out between.
 */
function withinTotal(pieces: string[]): string {
  const size = (p: string): number => p.length + 2;
  const { total } = MATERIAL_LIMITS;
  if (pieces.reduce((n, p) => n + size(p), 0) <= total) return pieces.join('\n\n');
  let used = 0;
  let first = 0;
  while (first < pieces.length && used + size(pieces[first]!) <= total / 3) used += size(pieces[first++]!);
  // NOTE: 100 characters kept for the line that says how many pieces were left out.
  let last = pieces.length;
  while (last > first && used + size(pieces[last - 1]!) <= total - 100) used += size(pieces[--last]!);
  return [...pieces.slice(0, first), `[… ${last - first} pieces left out here]`, ...pieces.slice(last)].join('\n\n');
}

/** The reflection material of a session (see the module contract). */
export function reflectMaterial(facts: TranscriptFacts, scrubber: { scrub: (s: string) => string; count: () => number }): ReflectMaterial {
  const { scrub } = scrubber;
  const pieces: string[] = [];
  const helpTexts: string[] = [];
  facts.prompts.forEach((p, i) => pieces.push(`[prompt ${i + 1}]\n${cut(scrub(p), MATERIAL_LIMITS.piece)}`));
  const results = new Map<string, { text: string; filePath?: string }>();
  for (const r of facts.toolResults) if (r.toolUseId) results.set(r.toolUseId, r);
  for (const u of facts.toolUses) {
    const input = cut(scrub(inputText(u.name, u.input)), MATERIAL_LIMITS.input);
    pieces.push(`[tool ${u.name}] ${input}`);
    const r = u.id ? results.get(u.id) : undefined;
    if (!r) continue;
    if (r.filePath && isSecretFilePath(r.filePath)) {
      pieces.push('[result] (a secret file: contents never shown)');
      continue;
    }
    const text = cut(scrub(r.text), MATERIAL_LIMITS.piece);
    pieces.push(`[result]\n${text}`);
    if (u.name === 'Bash' && isHelpCommand(inputText(u.name, u.input))) helpTexts.push(text);
  }
  for (const a of facts.assistantTexts) pieces.push(`[reply]\n${cut(scrub(a), MATERIAL_LIMITS.piece)}`);
  const text = withinTotal(pieces);
  const work = { commands: facts.commands.length, filesChanged: facts.filesChanged.length, toolCalls: facts.toolUses.length };
  return { text: text.trimEnd(), helpTexts, work, redactions: scrubber.count() };
}
