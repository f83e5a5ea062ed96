/**
 * Contract: `extractProse` returns the prose a Claude Code tool call would publish, and nothing else.
 * - Write, Edit, MultiEdit, NotebookEdit: a text file (.md .mdx .markdown .txt .rst .adoc ..., README-,
 *   CHANGELOG- or LICENSE-like names, COMMIT_EDITMSG) gives one piece holding the whole new text; a source
 *   file gives only its comments and docstrings (runs of whole-line comments merged), never string literals
 *   or code. A name that settles nothing (unknown or no extension) is source when the text starts with `#!`
 *   or when at least 30% of its non-blank lines look like code (end in `;` `{` `}`, start with a keyword such
 *   as `import` `def` `function`, or assign), and text otherwise.
 * - Bash: only `git commit|merge|tag` messages (-m, -F, heredocs, --trailer), `gh pr|issue|release` titles,
 *   bodies, comments and notes, and prose fields of `gh api`; any other command gives nothing.
 * - Any other tool: strings in its input that read as prose: at least 60 characters with spaces (12 under
 *   keys such as `title` or `body`), never URLs, ids, paths or code.
 * - Tools in NEVER_PROSE_TOOLS give nothing. No input makes it throw; the text returned is capped at
 *   MAX_PROSE_CHARS and the work is linear in the size of the input.
 * Pure: files named by a command (`git commit -F`) or edited are read only through the caller's `readFile`.
 * The parts: pieces.ts (what counts as prose, the caps), file-kinds.ts and comments.ts (source files),
 * files.ts (the file tools), commands.ts and shell.ts (git and gh commands); this module dispatches by tool.
 */
import { shellProse } from './commands.js';
import { isRecord, str, type ExtractContext } from './context.js';
import { editProse, notebookEditProse, writeProse } from './files.js';
import { addPiece, isFull, looksLikeProse, newSink, type ProsePiece } from './pieces.js';

export { looksLikeProse, MAX_PROSE_CHARS, type ProsePiece } from './pieces.js';

/** Where relative paths start, and how files named by a command (`git commit -F`) or edited are read. */
export interface ProseOptions {
  cwd?: string;
  /** Reads a file a command names or an edit changes; without it none is read (edits count from their new text). */
  readFile?: (path: string) => string | undefined;
}

/** Tools that never publish prose; their calls are passed at once. */
export const NEVER_PROSE_TOOLS: ReadonlySet<string> = new Set([
  'Read', 'Glob', 'Grep', 'LS', 'TodoWrite', 'TodoRead', 'Task', 'Agent', 'WebFetch', 'WebSearch',
  'BashOutput', 'KillShell', 'KillBash', 'ExitPlanMode', 'EnterPlanMode', 'NotebookRead', 'Skill',
  'SlashCommand', 'AskUserQuestion', 'ListMcpResourcesTool', 'ReadMcpResourceTool',
]);

const MAX_WALK_NODES = 10_000;
const MAX_WALK_DEPTH = 12;

/** Returns the prose that the tool call would publish, or [] when it publishes none; never throws. */
export function extractProse(toolName: string, toolInput: unknown, options?: ProseOptions): ProsePiece[] {
  const out = newSink();
  try {
    if (typeof toolName !== 'string' || toolName === '' || NEVER_PROSE_TOOLS.has(toolName)) return [];
    const opts: ProseOptions = isRecord(options) ? options : {};
    const cwd = typeof opts.cwd === 'string' && opts.cwd !== '' ? opts.cwd : undefined;
    const reader = typeof opts.readFile === 'function' ? opts.readFile : (): undefined => undefined;
    const read = (path: string): string | undefined => {
      try {
        const text = reader(path);
        return typeof text === 'string' ? text : undefined;
      } catch {
        return undefined;
      }
    };
    const ctx: ExtractContext = { tool: toolName, cwd, read, out };
    const input: Record<string, unknown> = isRecord(toolInput) ? toolInput : {};
    switch (toolName) {
      case 'Write':
        writeProse(ctx, input);
        break;
      case 'Edit':
        editProse(ctx, str(input.file_path), [{ old: input.old_string, next: input.new_string }], false);
        break;
      case 'MultiEdit': {
        const edits = Array.isArray(input.edits) ? input.edits.slice(0, 1_000) : [];
        const list = edits.map((e: unknown) => (isRecord(e) ? { old: e.old_string, next: e.new_string } : {}));
        editProse(ctx, str(input.file_path), list, true);
        break;
      }
      case 'NotebookEdit':
        notebookEditProse(ctx, input);
        break;
      case 'Bash':
        if (typeof input.command === 'string') shellProse(ctx, input.command, cwd, 0);
        break;
      default:
        walkInput(ctx, toolInput, 'input', '', 0, { nodes: 0 });
    }
  } catch {
    // NOTE: fail-open; whatever was collected before the fault is still worth judging.
  }
  return out.pieces;
}

// ---------------------------------------------------------------------------------------------------------
// Any other tool: walk the input and keep the strings that read as prose.

const PROSE_KEY_RE = /^(title|subject|summary|body|description|desc|comment|message|msg|text|note|notes|reason|details?|markdown|review|reply|answer|explanation)$/i;
const NOT_PROSE_KEY_RE = /^(diff|patch|code|source|script|command|cmd|query|sql|regex|pattern|url|uri|href|link|path|file_?path|sha|hash|token|password|secret|api_?key|id|uuid|encoding)$/i;

function identifierPath(key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function walkInput(ctx: ExtractContext, v: unknown, path: string, key: string, depth: number, budget: { nodes: number }): void {
  if (isFull(ctx.out) || ++budget.nodes > MAX_WALK_NODES || depth > MAX_WALK_DEPTH) return;
  if (typeof v === 'string') {
    if (NOT_PROSE_KEY_RE.test(key)) return;
    const ok = looksLikeProse(v, 60) || (PROSE_KEY_RE.test(key) && v.length >= 12 && !/[;{}]/.test(v.slice(0, 200)) && looksLikeProse(v, 12));
    if (ok) addPiece(ctx.out, `${ctx.tool} ${path}`, v);
    return;
  }
  if (Array.isArray(v)) {
    const n = Math.min(v.length, 1_000);
    for (let k = 0; k < n; k++) walkInput(ctx, v[k], `${path}[${k}]`, key, depth + 1, budget);
    return;
  }
  if (isRecord(v)) {
    let count = 0;
    for (const k of Object.keys(v)) {
      if (++count > 1_000) break;
      walkInput(ctx, v[k], `${path}${identifierPath(k)}`, k, depth + 1, budget);
    }
  }
}
