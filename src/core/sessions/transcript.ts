/**
 * Contract: this is the only module that knows the record shapes of Claude Code's transcript JSONL, which are
 * internal to Claude Code and change between releases. `parseTranscript` is pure (the file's text in, plain facts
 * out), imports nothing, and never throws on content: unknown record types and fields are tolerated, lines that are
 * not JSON objects (a truncated last line included) are counted and skipped. When the format changes, only this
 * file and its fixtures change.
 */

/** Plain facts read from one session transcript, with no trace of the record shapes they came from. */
export interface TranscriptFacts {
  /** The session id (the last one seen: a resumed session's own id comes after any copied history). */
  sessionId?: string;
  /** The project directory: the first `cwd` of the main thread. */
  cwd?: string;
  /** The git branch: the last non-empty `gitBranch` of the main thread, so a branch made mid-session wins. */
  branch?: string;
  /** The earliest record timestamp (ISO, as written). */
  startedAt?: string;
  /** The latest record timestamp (ISO, as written). */
  endedAt?: string;
  /** The model of most main-thread API messages, `<synthetic>` ignored. */
  model?: string;
  /** The latest custom title, else the latest AI title. */
  title?: string;
  /** The first real user prompt. */
  firstPrompt?: string;
  /**
   * Real user prompts in order; a slash command is kept as its command text (`/review 12`), but the commands
   * that only manage the session (`/compact`, `/clear`, `/exit`, ... SESSION_COMMANDS) are not prompts.
   */
  prompts: string[];
  /** Number of real user prompts. */
  turns: number;
  /** Compact summaries, in order, without the boilerplate Claude Code wraps them in (cleanRecap). */
  recaps: string[];
  /** Pull request URLs, unique, in first-seen order. */
  prLinks: string[];
  /**
   * Paths written by Write, Edit, MultiEdit and NotebookEdit calls whose result came back without an error, unique,
   * in the order of those results. A call refused (a permission denial, a PreToolUse hook's deny) or failed (a file
   * not read yet, a string not found), or one with no result, wrote nothing.
   */
  filesChanged: string[];
  /** Bash commands, in order, each with its result when one was read. */
  commands: CommandRun[];
  /** Every tool call, sidechains included, in order. */
  toolUses: { name: string; input: unknown; id?: string }[];
  /** Every tool result as text; `filePath` is set when the result is a Read of that file. */
  toolResults: { toolUseId?: string; text: string; filePath?: string }[];
  /** Main-thread model text, one entry per API message however many records it was split over. */
  assistantTexts: string[];
  /** Record types this module does not know, unique. */
  unknownTypes: string[];
  /** Lines that are not JSON objects, a truncated last line included. */
  malformedLines: number;
  /** Records written by subagents (`isSidechain`). */
  sidechainRecords: number;
  /**
   * The session turn by turn (spec/sessions.md, "Turns"): one per real prompt, with the main thread's replies,
   * tool calls and their results, and the recaps that came in it; what came before the first prompt (a resumed
   * session's copied history aside) is turn 0, kept only when it holds something.
   */
  turnLog: TurnFacts[];
  /**
   * Set when the reader kept only what the turn log shows of each tool result (ReaderOptions.toolOutput): then
   * `toolResults`, the turns' tool outputs and the commands' results hold that, and `otherTexts` is not kept.
   */
  toolOutputs?: 'turn-log';
  /**
   * Transcript text that is none of the above (command output, meta records, subagent prompts and replies,
   * thinking, system notes, attachments, unknown records), kept only so checks can see everything.
   */
  otherTexts?: string[];
}

/** One turn of a session: a real prompt and what followed it on the main thread until the next. */
export interface TurnFacts {
  /** The prompt's number (1-based; 0 for what came before the first prompt). */
  n: number;
  /** What identifies the turn across re-reads: the prompt record's uuid, else its time and text. */
  key: string;
  /** The prompt's time (ISO, as written). */
  at?: string;
  prompt: string;
  /** The main thread's model text, one entry per API message. */
  replies: string[];
  recaps: string[];
  /** Tool calls in order; `output` is the result's text, `error` set when the result was an error. */
  tools: TurnTool[];
}

/** A tool call of a turn and its result. */
export interface TurnTool {
  name: string;
  input: unknown;
  id?: string;
  output?: string;
  error?: boolean;
  /** The file a Read read. */
  filePath?: string;
}

/** A Bash command and how it ended. */
export interface CommandRun {
  command: string;
  /** The tool result: its text, and whether it was an error (a failed, refused or interrupted command). */
  result?: { text: string; error: boolean };
}

type Rec = Record<string, unknown>;

/** Tools whose input names a file they write. */
const WRITE_TOOLS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** Record types that are understood, whether or not they carry facts. */
const KNOWN_TYPES = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'ai-title',
  'custom-title',
  'pr-link',
  'attachment',
  'file-history-snapshot',
  'file-history-delta',
  'progress',
  'queue-operation',
  'last-prompt',
  'agent-name',
  'mode',
  'permission-mode',
  'tag',
  'cost-state',
  'teleported-from',
  'bridge-session',
]);

const PR_URL = /https?:\/\/(?:www\.)?github\.com\/[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+\/pull\/\d+/g;
const STRIPPED_SPANS =
  /<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics)>[\s\S]*?<\/\1>/g;
const HARNESS_TEXT =
  /^(?:<(?:local-command-[\w-]+|bash-stdout|bash-stderr|task-notification|command-message|command-args|user-memory-input|system-reminder)\b|\[Request interrupted by user|Caveat: The messages below were generated)/;

/**
 * Slash commands that manage the session rather than ask for work: not counted as prompts. NOTE: the custom
 * commands and skills a user types (`/review 12`, `/git-kb ...`) are prompts.
 */
const SESSION_COMMANDS = new Set(['compact', 'clear', 'exit', 'quit', 'resume', 'rewind', 'context', 'cost', 'usage', 'status', 'help', 'login', 'logout', 'doctor']);

/** Paragraphs Claude Code puts around a compaction summary (2.1.x: opening, transcript pointer, continue line). */
const RECAP_BOILERPLATE =
  /^(?:This session is being continued from (?:a previous conversation|another machine)|If you need specific details from before compaction|Continue the conversation from where (?:it|we) left (?:it )?off|Please continue the conversation from where|Pick up the last task as if the break never happened|The messages after this summary are the most recent messages|Recent messages are preserved verbatim)/;

/**
 * Blocks Claude Code puts inside a compaction text that are not the summary: `<system-reminder>` notes (2.1.328 and
 * later put `<tools-used-before-summary>Bash, Edit, …</tools-used-before-summary>` in one, right after the opening),
 * and the tool list on its own. An opened block that is never closed runs to the end of its line.
 */
const RECAP_WRAPPERS = /<(system-reminder|tools-used-before-summary)>(?:[\s\S]*?<\/\1>|[^\n]*)/g;

/**
 * The model's summary out of a compaction text: Claude Code's wrapper blocks (RECAP_WRAPPERS) and the
 * `<analysis>` draft dropped, the `<summary>` tags and the `Summary:` label taken off, and the harness's own
 * paragraphs (RECAP_BOILERPLATE) removed.
 */
export function cleanRecap(text: string): string {
  let t = text.replace(RECAP_WRAPPERS, '').replace(/<analysis>[\s\S]*?<\/analysis>/g, '');
  const inner = /<summary>([\s\S]*?)<\/summary>/.exec(t);
  if (inner) t = inner[1]!;
  const paragraphs = t.split(/\n\s*\n/).map((p) => p.trim()).filter((p) => p !== '');
  const kept: string[] = [];
  for (const p of paragraphs) {
    if (!RECAP_BOILERPLATE.test(p)) {
      kept.push(p);
      continue;
    }
    if (!/^This session is being continued/.test(p)) continue;
    // An opening that runs straight into the summary: "... conversation. Summary: ..." on one line, or
    // "... summarized below:\nAnalysis: ..." on the next.
    const label = /\bSummary:\s*/.exec(p);
    const rest = label ? p.slice(label.index + label[0].length).trim() : p.split('\n').slice(1).join('\n').trim();
    if (rest) kept.push(rest);
  }
  return kept
    .join('\n\n')
    .replace(/^(?:Analysis:[\s\S]*?\n)?Summary:\s*\n/, '')
    .trim();
}

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string with something in it, else undefined. */
function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

/**
 * A value as JSON text, for the checks that must see every text in it; a value nested too deep for
 * JSON.stringify gives its strings one per line instead, found without recursion.
 */
function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? '';
  } catch {
    const out: string[] = [];
    const stack: unknown[] = [v];
    while (stack.length > 0) {
      const x = stack.pop();
      if (typeof x === 'string') out.push(x);
      else if (Array.isArray(x)) for (const y of x) stack.push(y);
      else if (isRec(x)) for (const [k, y] of Object.entries(x)) stack.push(k, y);
    }
    return out.join('\n');
  }
}

/** Content as a list of blocks: a bare string becomes one text block. */
function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content : [];
}

/** The text of a tool_result's content (a string or text blocks). */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts: string[] = [];
  for (const b of blocksOf(content)) {
    if (isRec(b) && typeof b.text === 'string') parts.push(b.text);
  }
  return parts.join('\n');
}

/** The prompt a user typed, from a user text, or undefined when the text is the harness talking. */
function promptOf(raw: string): string | undefined {
  const t = raw.replace(STRIPPED_SPANS, '').trim();
  if (t === '') return undefined;
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(t)?.[1]?.trim();
  if (name) {
    const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(t)?.[1]?.trim();
    const cmd = name.startsWith('/') ? name : `/${name}`;
    if (SESSION_COMMANDS.has(cmd.slice(1).toLowerCase())) return undefined;
    return args ? `${cmd} ${args}` : cmd;
  }
  const bash = /^<bash-input>([\s\S]*?)<\/bash-input>$/.exec(t)?.[1]?.trim();
  if (bash !== undefined) return bash ? `!${bash}` : undefined;
  if (HARNESS_TEXT.test(t)) return undefined;
  // Older transcripts keep a typed command as its bare text.
  const bare = /^\/([\w-]+)$/.exec(t)?.[1];
  if (bare && SESSION_COMMANDS.has(bare.toLowerCase())) return undefined;
  return t;
}

/** What a reader keeps (transcriptReader). */
export interface ReaderOptions {
  /**
   * For the turn log alone: what is kept of each tool result's text (the turn log's cut, turns.ts), so that a
   * transcript's tool output is not held whole twice; its PR links are read from the whole text first. Nor is
   * `otherTexts` kept. The facts say so (`toolOutputs: 'turn-log'`).
   */
  toolOutput?: (text: string) => string;
}

/** Mutable state of one parse. */
class Reader {
  constructor(private readonly options: ReaderOptions = {}) {
    if (options.toolOutput) this.facts.toolOutputs = 'turn-log';
  }

  readonly facts: TranscriptFacts = {
    prompts: [],
    turns: 0,
    recaps: [],
    prLinks: [],
    filesChanged: [],
    commands: [],
    toolUses: [],
    toolResults: [],
    assistantTexts: [],
    unknownTypes: [],
    malformedLines: 0,
    sidechainRecords: 0,
    turnLog: [],
    otherTexts: [],
  };
  /** The turn being read, and its tool calls by id. */
  private turn?: TurnFacts;
  private readonly turnTools = new Map<string, TurnTool>();
  /** The uuid and time of the record being read. */
  private recKey?: string;
  private recTime?: string;
  private readonly other: string[] = this.facts.otherTexts ?? [];
  private readonly seenUuids = new Set<string>();
  private readonly seenPr = new Set<string>();
  private readonly seenFiles = new Set<string>();
  private readonly seenUnknown = new Set<string>();
  private readonly seenRecaps = new Set<string>();
  private readonly toolUseById = new Map<string, { name: string; input: unknown }>();
  /** Write calls waiting for their result (id -> path), and Bash commands by call id. */
  private readonly pendingWrites = new Map<string, string>();
  private readonly commandById = new Map<string, CommandRun>();
  private readonly seenResults = new Set<string>();
  private readonly textByMessage = new Map<string, { index: number; parts: Set<string>; reply?: { turn: TurnFacts; index: number } }>();
  private readonly modelMessages = new Set<string>();
  private readonly mainModels = new Map<string, number>();
  private readonly sideModels = new Map<string, number>();
  private firstTime = Infinity;
  private lastTime = -Infinity;
  private sideCwd?: string;
  private sideBranch?: string;
  private customTitle?: string;
  private aiTitle?: string;
  private recordNo = 0;

  line(raw: string): void {
    const t = raw.trim();
    if (t === '') return;
    if (t[0] !== '{') {
      this.facts.malformedLines++;
      return;
    }
    let rec: unknown;
    try {
      rec = JSON.parse(t);
    } catch {
      this.facts.malformedLines++;
      return;
    }
    if (!isRec(rec)) {
      this.facts.malformedLines++;
      return;
    }
    try {
      this.record(rec);
    } catch {
      // A record of a shape this code did not foresee: what was read of it stays, the rest is skipped.
    }
  }

  private record(rec: Rec): void {
    this.recordNo++;
    if (typeof rec.uuid === 'string') {
      if (this.seenUuids.has(rec.uuid)) return; // the same record written twice (resume copies)
      this.seenUuids.add(rec.uuid);
    }
    this.recKey = str(rec.uuid);
    this.recTime = str(rec.timestamp);
    const side = rec.isSidechain === true;
    if (side) this.facts.sidechainRecords++;
    this.common(rec, side);
    const type = rec.type;
    switch (type) {
      case 'user':
        this.user(rec, side);
        break;
      case 'assistant':
        this.assistant(rec, side);
        break;
      case 'system':
        this.note(typeof rec.content === 'string' ? rec.content : undefined);
        break;
      case 'summary':
        this.recap(rec.summary);
        break;
      case 'ai-title':
        this.aiTitle = str(rec.aiTitle) ?? str(rec.title) ?? this.aiTitle;
        break;
      case 'custom-title':
        this.customTitle = str(rec.customTitle) ?? str(rec.title) ?? this.customTitle;
        break;
      case 'pr-link':
        this.prLink(rec);
        break;
      case 'attachment':
        this.attachment(rec.attachment, side);
        break;
      default:
        if (typeof type === 'string' && !KNOWN_TYPES.has(type)) {
          if (!this.seenUnknown.has(type)) {
            this.seenUnknown.add(type);
            this.facts.unknownTypes.push(type);
          }
          this.note(json(rec));
        }
    }
  }

  /** Fields any record may carry: time, session, directory, branch. */
  private common(rec: Rec, side: boolean): void {
    const ts = rec.timestamp;
    if (typeof ts === 'string') {
      const ms = Date.parse(ts);
      if (Number.isFinite(ms)) {
        if (ms < this.firstTime) {
          this.firstTime = ms;
          this.facts.startedAt = ts;
        }
        if (ms >= this.lastTime) {
          this.lastTime = ms;
          this.facts.endedAt = ts;
        }
      }
    }
    const sid = str(rec.sessionId);
    if (sid) this.facts.sessionId = sid;
    const cwd = str(rec.cwd);
    const branch = str(rec.gitBranch);
    if (side) {
      if (cwd && !this.sideCwd) this.sideCwd = cwd;
      if (branch) this.sideBranch = branch;
    } else {
      if (cwd && !this.facts.cwd) this.facts.cwd = cwd;
      if (branch) this.facts.branch = branch;
    }
  }

  private user(rec: Rec, side: boolean): void {
    const content = isRec(rec.message) ? rec.message.content : undefined;
    const texts: string[] = [];
    const results: Rec[] = [];
    for (const b of blocksOf(content)) {
      if (!isRec(b)) continue;
      if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
      else if (b.type === 'tool_result') results.push(b);
    }
    for (const r of results) this.toolResult(r, results.length === 1 ? rec.toolUseResult : undefined);
    const joined = texts.join('\n');
    if (rec.isCompactSummary === true) {
      this.recap(joined);
      return;
    }
    const origin = isRec(rec.origin) ? rec.origin.kind : undefined;
    const harness =
      side ||
      rec.isMeta === true ||
      rec.isVisibleInTranscriptOnly === true ||
      results.length > 0 ||
      'toolUseResult' in rec ||
      origin === 'task-notification';
    const prompt = harness ? undefined : promptOf(joined);
    if (prompt !== undefined) this.prompt(prompt);
    if (prompt !== joined.trim()) this.note(joined);
  }

  private prompt(p: string): void {
    this.facts.prompts.push(p);
    this.facts.turns = this.facts.prompts.length;
    this.facts.firstPrompt ??= p;
    const n = this.facts.turns;
    this.turn = { n, key: this.recKey ?? `${this.recTime ?? ''}#${n}#${p}`, prompt: p, replies: [], recaps: [], tools: [] };
    if (this.recTime) this.turn.at = this.recTime;
    this.facts.turnLog.push(this.turn);
  }

  /** The turn being read; before the first prompt, turn 0 (made when something comes to put in it). */
  private currentTurn(): TurnFacts {
    if (!this.turn) {
      this.turn = { n: 0, key: '#0', prompt: '', replies: [], recaps: [], tools: [] };
      if (this.recTime) this.turn.at = this.recTime;
      this.facts.turnLog.push(this.turn);
    }
    return this.turn;
  }

  private toolResult(block: Rec, toolUseResult: unknown): void {
    const id = str(block.tool_use_id);
    if (id) {
      if (this.seenResults.has(id)) return;
      this.seenResults.add(id);
    }
    const whole = resultText(block.content);
    this.scanPr(whole);
    const body = this.options.toolOutput ? this.options.toolOutput(whole) : whole;
    const use = id ? this.toolUseById.get(id) : undefined;
    let filePath: string | undefined;
    if (use?.name === 'Read' && isRec(use.input)) filePath = str(use.input.file_path);
    if (!filePath && (!use || use.name === 'Read') && isRec(toolUseResult)) {
      // Without its tool_use (another file, a lost line), only a Read-shaped result names its file.
      const file = toolUseResult.file;
      if (isRec(file)) filePath = str(file.filePath);
      else if (typeof toolUseResult.content === 'string' && toolUseResult.type !== 'create') {
        filePath = str(toolUseResult.filePath);
      }
    }
    const out: TranscriptFacts['toolResults'][number] = { text: body };
    if (id) out.toolUseId = id;
    if (filePath) out.filePath = filePath;
    this.facts.toolResults.push(out);
    const tool = id ? this.turnTools.get(id) : undefined;
    if (tool && tool.output === undefined) {
      tool.output = body;
      if (block.is_error === true) tool.error = true;
      if (filePath) tool.filePath = filePath;
    }
    if (id) this.outcome(id, body, block.is_error === true);
  }

  /** What a call's result says about it: a write that succeeded changed its file; a command ran, or failed. */
  private outcome(id: string, text: string, error: boolean): void {
    const written = this.pendingWrites.get(id);
    if (written !== undefined) {
      this.pendingWrites.delete(id);
      if (!error && !this.seenFiles.has(written)) {
        this.seenFiles.add(written);
        this.facts.filesChanged.push(written);
      }
    }
    const run = this.commandById.get(id);
    if (run && !run.result) run.result = { text, error };
  }

  private assistant(rec: Rec, side: boolean): void {
    const msg = isRec(rec.message) ? rec.message : {};
    const msgId = str(msg.id);
    const model = str(msg.model);
    const key = msgId ?? `#${this.recordNo}`;
    if (model && model !== '<synthetic>' && !this.modelMessages.has(key)) {
      this.modelMessages.add(key);
      const counts = side ? this.sideModels : this.mainModels;
      counts.set(model, (counts.get(model) ?? 0) + 1);
    }
    for (const b of blocksOf(msg.content)) {
      if (!isRec(b)) continue;
      if (b.type === 'text') {
        const t = str(b.text);
        if (!t) continue;
        // Subagent replies and Claude Code's own messages (API errors) are not the session's assistant text.
        if (side || model === '<synthetic>') this.note(t);
        else this.assistantText(msgId, t);
        this.scanPr(t);
      } else if (b.type === 'tool_use') {
        this.toolUse(b, side);
      } else if (b.type === 'thinking') {
        this.note(typeof b.thinking === 'string' ? b.thinking : undefined);
      } else {
        this.note(json(b));
      }
    }
  }

  private assistantText(msgId: string | undefined, t: string): void {
    const texts = this.facts.assistantTexts;
    const entry = msgId ? this.textByMessage.get(msgId) : undefined;
    if (!entry) {
      const turn = this.currentTurn();
      const reply = { turn, index: turn.replies.length };
      turn.replies.push(t);
      if (msgId) this.textByMessage.set(msgId, { index: texts.length, parts: new Set([t]), reply });
      texts.push(t);
    } else if (!entry.parts.has(t)) {
      entry.parts.add(t);
      texts[entry.index] += `\n\n${t}`;
      if (entry.reply) entry.reply.turn.replies[entry.reply.index] += `\n\n${t}`;
    }
  }

  private toolUse(b: Rec, side: boolean): void {
    const id = str(b.id);
    if (id && this.toolUseById.has(id)) return;
    const name = typeof b.name === 'string' ? b.name : '';
    const input = b.input;
    if (id) this.toolUseById.set(id, { name, input });
    const use: TranscriptFacts['toolUses'][number] = { name, input };
    if (id) use.id = id;
    this.facts.toolUses.push(use);
    if (!side) {
      const tool: TurnTool = { name, input };
      if (id) {
        tool.id = id;
        this.turnTools.set(id, tool);
      }
      this.currentTurn().tools.push(tool);
    }
    if (!isRec(input)) return;
    if (WRITE_TOOLS.has(name)) {
      // NOTE: the file counts as changed once the call's result says it was written (outcome).
      const path = str(input.file_path) ?? str(input.notebook_path);
      if (path && id) this.pendingWrites.set(id, path);
    } else if (name === 'Bash') {
      const cmd = str(input.command);
      if (!cmd) return;
      const run: CommandRun = { command: cmd };
      this.facts.commands.push(run);
      if (id) this.commandById.set(id, run);
    }
  }

  private prLink(rec: Rec): void {
    let url = str(rec.prUrl) ?? str(rec.url);
    const repo = str(rec.prRepository) ?? str(rec.repository);
    const num = rec.prNumber;
    if (!url && repo && (typeof num === 'number' || typeof num === 'string') && /^\d+$/.test(String(num))) {
      url = `https://github.com/${repo}/pull/${num}`;
    }
    if (url) this.addPr(url.trim());
  }

  private attachment(a: unknown, side: boolean): void {
    if (!isRec(a)) return;
    // A prompt typed while Claude was working reaches the transcript as a queued command.
    if (!side && a.type === 'queued_command' && (a.commandMode ?? 'prompt') === 'prompt' && typeof a.prompt === 'string') {
      const p = promptOf(a.prompt);
      if (p !== undefined) {
        this.prompt(p);
        return;
      }
    }
    this.note(json(a));
  }

  private recap(v: unknown): void {
    const raw = str(v);
    const t = raw === undefined ? undefined : cleanRecap(raw);
    if (!t || this.seenRecaps.has(t)) return;
    this.seenRecaps.add(t);
    this.facts.recaps.push(t);
    this.currentTurn().recaps.push(t);
  }

  private note(t: string | undefined): void {
    if (t && !this.options.toolOutput && t.trim() !== '') this.other.push(t);
  }

  private scanPr(t: string): void {
    if (!t.includes('/pull/')) return;
    for (const m of t.matchAll(PR_URL)) this.addPr(m[0]);
  }

  private addPr(url: string): void {
    if (this.seenPr.has(url)) return;
    this.seenPr.add(url);
    this.facts.prLinks.push(url);
  }

  finish(): TranscriptFacts {
    const f = this.facts;
    if (!f.cwd && this.sideCwd) f.cwd = this.sideCwd;
    if (!f.branch && this.sideBranch) f.branch = this.sideBranch;
    const model = top(this.mainModels) ?? top(this.sideModels);
    if (model) f.model = model;
    const title = this.customTitle ?? this.aiTitle;
    if (title) f.title = title.trim();
    return f;
  }
}

/** The most counted key; ties go to the first seen. */
function top(counts: Map<string, number>): string | undefined {
  let best: string | undefined;
  let n = 0;
  for (const [k, c] of counts) {
    if (c > n) {
      best = k;
      n = c;
    }
  }
  return best;
}

/** Reads a Claude Code transcript's JSONL text into plain facts, never throwing on its content. */
export function parseTranscript(text: string): TranscriptFacts {
  const reader = transcriptReader();
  if (typeof text !== 'string') return reader.finish();
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    reader.line(text.slice(start, end));
    start = end + 1;
  }
  return reader.finish();
}

/**
 * parseTranscript line by line, for a transcript read in pieces: `line` takes the text's lines in order (without
 * their `\n`), `finish` gives the facts. The same facts as parseTranscript of the lines joined.
 */
export function transcriptReader(options: ReaderOptions = {}): { line(text: string): void; finish(): TranscriptFacts } {
  const reader = new Reader(options);
  let first = true;
  return {
    line(text: string): void {
      reader.line(first && text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      first = false;
    },
    finish: () => reader.finish(),
  };
}

/**
 * The session id one transcript line carries (its record's top-level `sessionId`, as parseTranscript reads it), or
 * undefined. `whole` false: the line is only the start of a longer one (a reader that keeps the first part of a huge
 * line); then, as when the line does not parse (a last line still being written), the id is looked for among the
 * record's top-level fields before the text ends. NOTE: Claude Code writes the envelope (`sessionId` among it)
 * before the message, so the start of a line holds it.
 */
export function lineSessionId(line: string, whole = true): string | undefined {
  const t = (line.charCodeAt(0) === 0xfeff ? line.slice(1) : line).trim();
  if (t[0] !== '{') return undefined;
  if (whole) {
    try {
      const rec: unknown = JSON.parse(t);
      return isRec(rec) ? str(rec.sessionId) : undefined;
    } catch {
      /* cut off: look through what there is */
    }
  }
  return topLevelString(t, 'sessionId');
}

/**
 * A top-level string field of a JSON object's text, read up to where the text ends (it may be cut): strings are
 * skipped whole, nested objects and arrays by their depth.
 */
function topLevelString(t: string, key: string): string | undefined {
  let depth = 0;
  let expectKey = false;
  let lastKey: string | undefined;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (c === '"') {
      let j = i + 1;
      while (j < t.length && t[j] !== '"') j += t[j] === '\\' ? 2 : 1;
      if (j >= t.length) return undefined;
      const raw = t.slice(i, j + 1);
      if (depth === 1) {
        if (expectKey) {
          lastKey = raw;
          expectKey = false;
        } else if (lastKey === JSON.stringify(key)) {
          try {
            return str(JSON.parse(raw));
          } catch {
            return undefined;
          }
        }
      }
      i = j;
    } else if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') {
      depth--;
      if (depth <= 0) return undefined;
    } else if (c === ',' && depth === 1) {
      expectKey = true;
      lastKey = undefined;
    } else if (c === ':' && depth === 1) {
      /* the value follows */
    } else if (depth === 1 && lastKey === JSON.stringify(key) && !/\s/.test(c!)) {
      return undefined; // not a string value
    }
  }
  return undefined;
}

/**
 * Text every transcript holds once its session made a tool call (the `tool_use` content block's type, as Claude
 * Code writes it): a hook can tell from raw bytes, without parsing, that a session surely did no work.
 */
export const TOOL_USE_MARK = '"tool_use"';

/** All the text of a session that a forbidden-host or secret check must see, one piece per line. */
export function allTranscriptText(facts: TranscriptFacts): string {
  return transcriptTexts(facts).join('\n');
}

/**
 * The pieces of allTranscriptText, in its order (none empty), for a check that takes them one by one
 * (forbiddenMatch): the text of a transcript of hundreds of MB is never built.
 */
export function transcriptTexts(facts: TranscriptFacts): string[] {
  const parts: (string | undefined)[] = [facts.title, facts.cwd, facts.branch, facts.firstPrompt];
  for (const list of [facts.prompts, facts.recaps, facts.assistantTexts]) for (const p of list ?? []) parts.push(p);
  for (const u of facts.toolUses ?? []) parts.push(`${u.name} ${json(u.input)}`);
  for (const r of facts.toolResults ?? []) parts.push(r.filePath, r.text);
  for (const c of facts.commands ?? []) parts.push(c.command);
  for (const list of [facts.filesChanged, facts.prLinks, facts.otherTexts]) for (const p of list ?? []) parts.push(p);
  return parts.filter((p): p is string => typeof p === 'string' && p !== '');
}

/**
 * Fields of a record that hold structure, not text anyone wrote: ids that link records together (a tool result to
 * its call, a reply split over records), times, types, models. A redaction leaves them as they are, so that a
 * redacted transcript reads the same way as the original.
 */
const STRUCTURAL_KEYS = new Set([
  'uuid', 'parentUuid', 'logicalParentUuid', 'sessionId', 'id', 'tool_use_id', 'requestId', 'messageId', 'leafUuid',
  'timestamp', 'type', 'role', 'model', 'version', 'userType', 'stop_reason', 'isSidechain', 'isMeta',
]);

/**
 * How deep a redaction walks a record: what lies deeper (no transcript Claude Code writes comes near) is replaced
 * by DROPPED_DEEP, not walked, so that a record nested thousands of levels cannot overflow the stack.
 */
const REDACT_MAX_DEPTH = 64;
const DROPPED_DEEP = '[git-kb: nested too deep, left out]';

/**
 * One transcript line with every text in it passed through `scrub` (the session's redaction), its structure kept;
 * a line that is not a JSON object is scrubbed as text. Pure; never throws on content.
 */
export function redactTranscriptLine(line: string, scrub: (s: string) => string): string {
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return scrub(line);
  }
  const walk = (v: unknown, depth: number, key?: string): unknown => {
    if (typeof v === 'string') return key !== undefined && STRUCTURAL_KEYS.has(key) ? v : scrub(v);
    if (depth >= REDACT_MAX_DEPTH && typeof v === 'object' && v !== null) return DROPPED_DEEP;
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1));
    if (isRec(v)) {
      const out: Rec = {};
      for (const [k, x] of Object.entries(v)) out[k] = walk(x, depth + 1, k);
      return out;
    }
    return v;
  };
  return JSON.stringify(walk(rec, 0));
}
