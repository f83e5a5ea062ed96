/**
 * Contract: the turn log of spec/sessions.md, "Turns": a session as the list of its turns (the prompt, every
 * reply, the recaps, each tool call with its result), each with a stable 8-character anchor a quote can cite, read
 * from the session's facts (./transcript.ts) after redaction (the archive's text is already redacted). What
 * search indexes of it (`turnPieces`) and how a text is found in it (`grepLog`) live here too. Pure: no I/O.
 */
import { isSecretFilePath } from '../secrets/scan.js';
import { fnv1a } from '../text/fnv.js';
import { clip, projectName, sessionEntryId, sessionTitle } from './summary.js';
import { transcriptReader, type TranscriptFacts, type TurnTool } from './transcript.js';

/** Bump when the log's shape or content changes: logs of another version are read again from the archive. */
export const TURN_LOG_VERSION = 1;

/** What a log keeps of long texts (spec/sessions.md, "Turns"). */
export const TURN_LIMITS = {
  prompt: 20_000,
  reply: 20_000,
  recap: 20_000,
  /** A tool call shown on one line (a command, a path, the input as JSON). */
  call: 400,
  /** A tool result keeps its head and its tail (an error is most often at one end). */
  outputHead: 6_000,
  outputTail: 2_000,
} as const;

/** What a Read of a secret file leaves in the log. */
export const SECRET_FILE_OUTPUT = '(secret file: contents never stored)';

/** One tool call of a turn, as the log keeps it. */
export interface LoggedTool {
  name: string;
  /** The call on one line: a Bash command, a file path, a pattern, else the input as JSON. */
  call: string;
  output?: string;
  error?: boolean;
}

export interface LoggedTurn {
  n: number;
  anchor: string;
  at?: string;
  prompt: string;
  replies: string[];
  recaps: string[];
  tools: LoggedTool[];
}

/** A session's turn log (`.git/git-kb/turns/<session>.json`). */
export interface SessionLog {
  v: number;
  sessionId: string;
  /** The id its summary entry has (or will have). */
  id: string;
  title: string;
  cwd?: string;
  project?: string;
  branch?: string;
  started: string;
  ended?: string;
  turns: LoggedTurn[];
}

/** A turn's anchor: 8 hex digits of a hash of what identifies it (its prompt record), the same on every read. */
export function turnAnchor(key: string): string {
  return fnv1a(key).toString(16).padStart(8, '0');
}

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}\n… ${s.length - max} more characters`;
}

/** A long output as its head and tail with the count of what was left out between. */
function headTail(s: string): string {
  const { outputHead: head, outputTail: tail } = TURN_LIMITS;
  if (s.length <= head + tail) return s;
  return `${s.slice(0, head)}\n… ${s.length - head - tail} characters left out …\n${s.slice(-tail)}`;
}

/** A tool call on one line. */
function callOf(t: TurnTool): string {
  const input = (t.input && typeof t.input === 'object' ? t.input : {}) as Record<string, unknown>;
  const pick = ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'].find((k) => typeof input[k] === 'string');
  let text: string;
  if (pick) text = input[pick] as string;
  else {
    try {
      text = JSON.stringify(t.input) ?? '';
    } catch {
      text = '';
    }
  }
  return clip(text, TURN_LIMITS.call);
}

/**
 * A reader of a (redacted) transcript for sessionLog alone: it keeps of each tool result only what the log shows
 * (headTail), so a transcript of hundreds of MB of tool output is not held whole while its log is made.
 */
export function turnLogReader(): ReturnType<typeof transcriptReader> {
  return transcriptReader({ toolOutput: (s) => detached(headTail(s)) });
}

/**
 * `s` as a string of its own: a cut of a string (slice, concatenation) may keep the whole string it was cut from
 * alive in V8, so a log of head-and-tail cuts would hold every tool output whole.
 */
function detached(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/**
 * The turn log of a session from its (redacted) facts, or undefined when it has no real prompt or no time. Turn 0
 * (what came before the first prompt) is kept only when it holds a reply, recap or tool call.
 */
export function sessionLog(facts: TranscriptFacts, sessionId: string): SessionLog | undefined {
  const started = facts.startedAt;
  if (!started || !Number.isFinite(Date.parse(started)) || facts.prompts.length === 0) return undefined;
  const turns: LoggedTurn[] = [];
  for (const t of facts.turnLog ?? []) {
    const tools: LoggedTool[] = t.tools.map((tool) => {
      const out: LoggedTool = { name: tool.name, call: callOf(tool) };
      if (tool.output !== undefined) out.output = tool.filePath && isSecretFilePath(tool.filePath) ? SECRET_FILE_OUTPUT : facts.toolOutputs === 'turn-log' ? tool.output : headTail(tool.output);
      if (tool.error) out.error = true;
      return out;
    });
    if (t.n === 0 && t.replies.length + t.recaps.length + tools.length === 0) continue;
    const turn: LoggedTurn = {
      n: t.n,
      anchor: turnAnchor(t.key),
      prompt: cut(t.prompt, TURN_LIMITS.prompt),
      replies: t.replies.map((r) => cut(r, TURN_LIMITS.reply)),
      recaps: t.recaps.map((r) => cut(r, TURN_LIMITS.recap)),
      tools,
    };
    if (t.at) turn.at = t.at;
    turns.push(turn);
  }
  const cwd = facts.cwd;
  const project = projectName(cwd);
  const log: SessionLog = {
    v: TURN_LOG_VERSION,
    sessionId,
    id: sessionEntryId(sessionId, started),
    title: sessionTitle(facts, sessionId, project),
    started,
    turns,
  };
  if (cwd) log.cwd = cwd;
  if (project) log.project = project;
  if (facts.branch) log.branch = facts.branch;
  if (facts.endedAt) log.ended = facts.endedAt;
  return log;
}

/** What a piece of a turn is: search ranks tool output below the rest and shows it only on request. */
export type PieceKind = 'prompt' | 'reply' | 'recap' | 'tool';

/** One searchable piece of a log: `key` is `<n>:<kind>:<i>`. */
export interface TurnPiece {
  key: string;
  n: number;
  kind: PieceKind;
  text: string;
}

/** The pieces of a log that search indexes: each prompt, reply, recap, and each tool call with its output. */
export function turnPieces(log: SessionLog): TurnPiece[] {
  const out: TurnPiece[] = [];
  for (const t of log.turns) {
    if (t.prompt) out.push({ key: `${t.n}:prompt:0`, n: t.n, kind: 'prompt', text: t.prompt });
    t.replies.forEach((text, i) => out.push({ key: `${t.n}:reply:${i}`, n: t.n, kind: 'reply', text }));
    t.recaps.forEach((text, i) => out.push({ key: `${t.n}:recap:${i}`, n: t.n, kind: 'recap', text }));
    t.tools.forEach((tool, i) => out.push({ key: `${t.n}:tool:${i}`, n: t.n, kind: 'tool', text: `${tool.name} ${tool.call}\n${tool.output ?? ''}` }));
  }
  return out;
}

/** The text of a piece by its key, or undefined. */
export function pieceText(log: SessionLog, key: string): { turn: LoggedTurn; kind: PieceKind; text: string; tool?: LoggedTool } | undefined {
  const [n, kind, i] = key.split(':');
  const turn = log.turns.find((t) => t.n === Number(n));
  if (!turn) return undefined;
  const k = Number(i);
  if (kind === 'prompt') return { turn, kind, text: turn.prompt };
  if (kind === 'reply' && turn.replies[k] !== undefined) return { turn, kind, text: turn.replies[k]! };
  if (kind === 'recap' && turn.recaps[k] !== undefined) return { turn, kind, text: turn.recaps[k]! };
  const tool = turn.tools[k];
  if (kind === 'tool' && tool) return { turn, kind, text: `${tool.call}\n${tool.output ?? ''}`, tool };
  return undefined;
}

/** A turn by anchor (`1a2b3c4d`, or `#1a2b3c4d`) or number (`3`); an anchor can be all digits, and wins. */
export function findTurn(log: SessionLog, ref: string): LoggedTurn | undefined {
  const r = ref.trim().replace(/^#/, '').toLowerCase();
  const byAnchor = r.length === 8 ? log.turns.find((t) => t.anchor === r) : undefined;
  if (byAnchor) return byAnchor;
  return /^\d+$/.test(r) ? log.turns.find((t) => t.n === Number(r)) : undefined;
}

/** One line of a log that holds a text. */
export interface GrepLine {
  n: number;
  anchor: string;
  kind: PieceKind;
  /** The tool's name, for a tool line. */
  tool?: string;
  line: string;
}

/** Every line of the log that holds `text` (case-insensitive), in order, at most `limit`. */
export function grepLog(log: SessionLog, text: string, limit = 200): GrepLine[] {
  const needle = text.toLowerCase();
  const out: GrepLine[] = [];
  const scan = (t: LoggedTurn, kind: PieceKind, body: string, tool?: string): void => {
    if (!body.toLowerCase().includes(needle)) return;
    for (const line of body.split('\n')) {
      if (out.length >= limit) return;
      if (line.toLowerCase().includes(needle)) out.push({ n: t.n, anchor: t.anchor, kind, ...(tool ? { tool } : {}), line: clip(line, 400) });
    }
  };
  for (const t of log.turns) {
    scan(t, 'prompt', t.prompt);
    for (const r of t.replies) scan(t, 'reply', r);
    for (const r of t.recaps) scan(t, 'recap', r);
    for (const tool of t.tools) scan(t, 'tool', `${tool.call}\n${tool.output ?? ''}`, tool.name);
    if (out.length >= limit) break;
  }
  return out;
}
