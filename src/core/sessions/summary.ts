/**
 * Contract: the session summary of spec/sessions.md, as a pure function of the transcript's facts
 * (./transcript.ts). Same facts in, same summary out: no model, no clock except the caller's `now` (which only
 * sets `updated`). The entry's id and path follow from the session id and start time alone, so every writer
 * (Stop, PreCompact, SessionEnd, catch-up, `session record`) finds and updates the same file. Everything taken
 * from the transcript is redacted before it is placed in the summary (known secret shapes, and every value read
 * from a `.env`, key or credentials file, whose contents are never stored), and tool output is never stored at all.
 * Pure: no I/O (the per-session state that records what was last summarised is src/adapters/store/session-state.ts).
 */
import path from 'node:path';
import { isSecretFilePath, redactSecrets, secretValuesIn } from '../secrets/scan.js';
import type { TranscriptFacts } from './transcript.js';
import { fnv1a } from '../text/fnv.js';
import { idTime } from '../format/schema.js';
import { clipText } from '../text/clip.js';
import { didWork, shownCommand } from './commands.js';
import { REFLECT_OPENING } from '../reflect/opening.js';

/**
 * Bump when the rendering changes, so catch-up knows older summaries may be re-rendered. 3: only writes that
 * succeeded, `commands`, git-kb writes elided in `## Commands`, recaps without Claude Code's wrapper blocks, cuts at
 * word boundaries.
 */
const SUMMARY_VERSION = 3;

/** Limits of what a summary keeps (spec/sessions.md, "Format"). */
export const LIMITS = {
  title: 100,
  prompt: 400,
  prompts: 40,
  recap: 1500,
  recaps: 3,
  reply: 800,
  files: 50,
  commands: 25,
  command: 200,
  prLinks: 20,
} as const;

/** Why a transcript gives no summary. */
export type SkipReason = 'no-prompts' | 'no-session-id' | 'no-timestamps' | 'git-kb-child';

/**
 * The first words of prompts that git-kb itself sends to a child `claude -p` (the prose gate's model judge,
 * src/adapters/claude/judge.ts; the reflection child, src/core/reflect/prompt.ts): such a child's transcript is
 * git-kb's own plumbing, not a session of the user's.
 */
export const OWN_PROMPT_PREFIXES = ["You are a copy editor checking text against a writer's house rules", REFLECT_OPENING];

/** True for the transcript of a `claude -p` child that git-kb itself started (OWN_PROMPT_PREFIXES). */
export function isOwnChildSession(facts: TranscriptFacts): boolean {
  return OWN_PROMPT_PREFIXES.some((p) => (facts.firstPrompt ?? facts.prompts[0] ?? '').startsWith(p));
}

/** A rendered summary: its id, path, front matter fields (in order, without id/created/updated) and body. */
export interface SessionSummary {
  id: string;
  path: string;
  sessionId: string;
  title: string;
  /** `created`: the session's start, to the second. */
  created: string;
  fields: Record<string, unknown>;
  body: string;
  /** How many secret-shaped values were replaced. */
  redactions: number;
}

export interface SummaryOptions {
  /** The session id, as the writer tells it (src/adapters/store/transcript-id.ts); else the facts' own. */
  sessionId?: string;
  /** The transcript's path, recorded so the summary can be rebuilt. */
  transcriptPath?: string;
  /** Extra salt for the id when the natural one is taken by another session (0 = none). */
  salt?: number;
}


/**
 * The entry id of a session: the id format of src/core/format/schema.ts (six base-36 digits of the start second,
 * then four), with the last four taken from a hash of the session id instead of chance, so it is the same on every run.
 */
export function sessionEntryId(sessionId: string, startedAt: string, salt = 0): string {
  const ms = Date.parse(startedAt);
  const time = idTime(Number.isFinite(ms) ? ms : 0);
  const hash = (fnv1a(salt ? `${sessionId}#${salt}` : sessionId) % 36 ** 4).toString(36).padStart(4, '0');
  return `kb-${time}${hash}`;
}

/** The repo path of a session summary: `sessions/<yyyy>/<mm>/<id>.md`, by the session's start (UTC). */
export function sessionPath(id: string, startedAt: string): string {
  const d = new Date(Date.parse(startedAt));
  const yyyy = String(d.getUTCFullYear()).padStart(4, '0');
  const mm = String(d.getUTCMonth() + 1).padStart(2, '0');
  return `sessions/${yyyy}/${mm}/${id}.md`;
}

/** An ISO time to the second (`2026-03-02T09:14:07Z`). */
function stampOf(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

// ---------------------------------------------------------------------------------------------------------
// Redaction

const LINE_NUMBER = /^\s*\d+(?:\t|→)/;

/**
 * NOTE: a value is taken for a secret when it is one token of 8 or more characters that mixes letters and digits
 * or upper and lower case: settings such as `staging` or `half-even` stay readable, keys and passwords do not.
 */
function looksSecret(v: string): boolean {
  if (v.length < 8 || v.length > 4096 || /\s/.test(v)) return false;
  const letters = /[A-Za-z]/.test(v);
  return (letters && /\d/.test(v)) || (/[a-z]/.test(v) && /[A-Z]/.test(v));
}

/** Values of `KEY=VALUE`, `KEY: VALUE` and `"key": "value"` lines of a secret file's text. */
export function secretFileValues(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.replace(LINE_NUMBER, '').trim();
    if (!line || line.startsWith('#') || line.startsWith('//')) continue;
    const m = /^(?:export\s+)?["']?[\w.-]+["']?\s*(?:=|:)\s*(.+)$/.exec(line);
    const value = (m ? m[1]! : line).trim().replace(/,$/, '').replace(/^(["'])(.*)\1$/, '$2').trim();
    if (looksSecret(value)) out.add(value);
    // A line that is all one token (a bare key, a token file) is a value too.
    if (!m && looksSecret(line)) out.add(line);
    // JSON on one line: every `"key": "value"` pair.
    for (const j of line.matchAll(/"[^"\n]*"\s*:\s*"([^"\n]*)"/g)) if (looksSecret(j[1]!)) out.add(j[1]!);
  }
  return [...out].sort((a, b) => b.length - a.length);
}

/**
 * Paths of files whose whole content is secret, read in this session (Read, or `cat`-like Bash commands), and the
 * values to replace wherever they appear: those of the lines of such files, and the secrets its commands give.
 */
function secretReads(facts: TranscriptFacts): { paths: string[]; values: string[] } {
  const paths: string[] = [];
  const values: string[] = [];
  const shellSecret = new Map<string, string>();
  for (const u of facts.toolUses ?? []) {
    if (u.name !== 'Bash' || !u.id || !u.input || typeof u.input !== 'object') continue;
    const cmd = (u.input as { command?: unknown }).command;
    if (typeof cmd !== 'string') continue;
    // A secret the command gives (`PGPASSWORD=...`, `mysql -p...`) is learned: the same value later, in a reply
    // or an output with nothing around it that looks secret, is replaced too.
    values.push(...secretValuesIn(cmd));
    const file = cmd.split(/[\s;|&<>()'"`]+/).find((w) => w && isSecretFilePath(w));
    if (file) shellSecret.set(u.id, file);
  }
  for (const r of facts.toolResults ?? []) {
    const file = r.filePath && isSecretFilePath(r.filePath) ? r.filePath : r.toolUseId ? shellSecret.get(r.toolUseId) : undefined;
    if (!file) continue;
    if (!paths.includes(file)) paths.push(file);
    values.push(...secretFileValues(r.text));
  }
  return { paths, values: [...new Set(values)].sort((a, b) => b.length - a.length) };
}

/**
 * The scrubber every text taken from a session goes through before it is stored or shown to a model (the summary,
 * reflection): the values of secret files the session read, then anything secret-shaped.
 */
export function transcriptScrubber(facts: TranscriptFacts): { scrub: (s: string) => string; count: () => number } {
  return makeScrubber(secretReads(facts).values);
}

/** A scrubber: replaces secret-file values and secret-shaped text, counting replacements. */
function makeScrubber(secretValues: string[]): { scrub: (s: string) => string; count: () => number } {
  let count = 0;
  const scrub = (s: string): string => {
    let t = s;
    for (const v of secretValues) {
      if (t.includes(v)) {
        const parts = t.split(v);
        count += parts.length - 1;
        t = parts.join('[REDACTED:secret-file-value]');
      }
    }
    const r = redactSecrets(t);
    count += r.count;
    // NOTE: an `[[id]]` in a prompt is talk about an entry, not a link of the summary (and may name a missing id).
    return r.text.replace(/\[\[(kb-[0-9a-z]+)((?:[|#][^\]]*)?)\]\]/g, '$1');
  };
  return { scrub, count: () => count };
}

/**
 * The session's redaction as one function (what every piece of a summary goes through): the values of the secret
 * files the session read, then secret shapes. Also used for the transcript archive and the turn log.
 */
export function sessionScrubber(facts: TranscriptFacts): { scrub: (s: string) => string; values: number; count: () => number } {
  const { values } = secretReads(facts);
  return { ...makeScrubber(values), values: values.length };
}

// ---------------------------------------------------------------------------------------------------------
// Rendering

/** Collapses white space and cuts at `max` characters, at a word boundary where one is near (clipText). */
export function clip(s: string, max: number): string {
  return clipText(s, max);
}

/** A path relative to the project directory when inside it. */
function relPath(p: string, cwd: string | undefined): string {
  if (cwd && path.isAbsolute(p)) {
    const rel = path.relative(cwd, p);
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  }
  return p;
}

function fenceFor(body: string): string {
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

function dateRange(started: string, ended: string | undefined): string {
  const s = stampOf(started);
  const day = s.slice(0, 10);
  const from = s.slice(11, 16);
  if (!ended) return `${day} ${from} UTC`;
  const e = stampOf(ended);
  return e.slice(0, 10) === day ? `${day} ${from}–${e.slice(11, 16)} UTC` : `${day} ${from} – ${e.slice(0, 10)} ${e.slice(11, 16)} UTC`;
}

/**
 * A summary's text with its times left out (`updated`, `ended` and the end of the intro's date range): two
 * renderings with the same key say the same thing, so the later one is not committed (a SessionEnd after the last
 * Stop only moves the end time).
 */
export function summaryContentKey(text: string): string {
  return text
    .replace(/^(?:updated|ended): .*$/gm, '')
    .replace(/^(Claude Code session .*?\d{4}-\d\d-\d\d \d\d:\d\d)(?:–\d\d:\d\d| – \d{4}-\d\d-\d\d \d\d:\d\d)( UTC)/m, '$1$2');
}

/**
 * A session's title: the transcript's own title, else the first line of its first prompt (through `scrub`), cut
 * at LIMITS.title; else `Session <8 characters of its id> in <project>`. The summary and the turn log share it.
 */
export function sessionTitle(facts: TranscriptFacts, sessionId: string, project: string | undefined, scrub: (s: string) => string = (s) => s): string {
  const firstLine = (facts.firstPrompt ?? facts.prompts[0] ?? '').split('\n').find((l) => l.trim()) ?? '';
  return clip(scrub(facts.title ?? firstLine), LIMITS.title) || `Session ${sessionId.slice(0, 8)}${project ? ` in ${project}` : ''}`;
}

/** The project's name: the last folder of its directory. */
export function projectName(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  const base = path.basename(cwd.replace(/[\\/]+$/, ''));
  return base || undefined;
}

/** The tag a session summary of a project gets (none without a project): its name, lower case, other characters as `-`. */
export function projectTag(name: string | undefined): string | undefined {
  const t = (name ?? '').toLowerCase().replace(/[^a-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '');
  return t || undefined;
}

/**
 * Builds the summary of a session from its transcript facts, or says why there is none (no real prompt, no
 * session id, no timestamps). Deterministic: see the module contract.
 */
export function summarizeSession(facts: TranscriptFacts, options: SummaryOptions = {}): { summary: SessionSummary } | { skip: SkipReason } {
  const sessionId = (options.sessionId ?? facts.sessionId ?? '').trim();
  if (!sessionId) return { skip: 'no-session-id' };
  if (!facts.prompts || facts.prompts.length === 0) return { skip: 'no-prompts' };
  if (isOwnChildSession(facts)) return { skip: 'git-kb-child' };
  const started = facts.startedAt;
  if (!started || !Number.isFinite(Date.parse(started))) return { skip: 'no-timestamps' };

  const secrets = secretReads(facts);
  const { scrub, count } = makeScrubber(secrets.values);
  const cwd = facts.cwd ? scrub(facts.cwd) : undefined;
  const project = projectName(cwd);
  const tag = projectTag(project);

  const title = sessionTitle(facts, sessionId, project, scrub);

  const id = sessionEntryId(sessionId, started, options.salt ?? 0);
  const fields: Record<string, unknown> = {
    title,
    type: 'session_summary',
    tags: tag ? [tag] : [],
    session_id: sessionId,
    project,
    cwd,
    branch: facts.branch ? clip(scrub(facts.branch), 200) : undefined,
    model: facts.model ? clip(facts.model, 100) : undefined,
    started: stampOf(started),
    ended: facts.endedAt ? stampOf(facts.endedAt) : undefined,
    turns: facts.turns ?? facts.prompts.length,
    files_changed: facts.filesChanged.length || undefined,
    commands: facts.commands.filter(didWork).length || undefined,
    pr_links: facts.prLinks.slice(0, LIMITS.prLinks).map((u) => scrub(u)),
    transcript: options.transcriptPath ? scrub(options.transcriptPath) : undefined,
    summary_version: SUMMARY_VERSION,
  };

  const blocks: string[] = [];
  const where = [cwd ? `in ${cwd}` : undefined, fields.branch ? `on ${String(fields.branch)}` : undefined].filter(Boolean).join(' ');
  const turns = Number(fields.turns);
  blocks.push(`Claude Code session ${sessionId}${where ? ` ${where}` : ''}, ${dateRange(started, facts.endedAt)}, ${turns} prompt${turns === 1 ? '' : 's'}${fields.model ? `, ${String(fields.model)}` : ''}.`);

  const prompts = facts.prompts.map((p) => clip(scrub(p), LIMITS.prompt));
  const lines: string[] = [];
  const half = LIMITS.prompts / 2;
  if (prompts.length <= LIMITS.prompts) prompts.forEach((p, i) => lines.push(`${i + 1}. ${p}`));
  else {
    prompts.slice(0, half).forEach((p, i) => lines.push(`${i + 1}. ${p}`));
    lines.push(`- … ${prompts.length - LIMITS.prompts} more prompts …`);
    prompts.slice(-half).forEach((p, i) => lines.push(`${prompts.length - half + i + 1}. ${p}`));
  }
  blocks.push(['## Prompts', '', ...lines].join('\n'));

  const recaps = facts.recaps.slice(-LIMITS.recaps).map((r) => clip(scrub(r), LIMITS.recap));
  if (recaps.length) blocks.push(['## Recaps', '', recaps.join('\n\n')].join('\n'));

  const reply = facts.assistantTexts[facts.assistantTexts.length - 1];
  if (reply && reply.trim()) blocks.push(['## Last reply', '', clip(scrub(reply), LIMITS.reply)].join('\n'));

  const list = (heading: string, items: string[], limit: number): void => {
    if (items.length === 0) return;
    const shown = items.slice(0, limit).map((x) => `- ${x}`);
    if (items.length > limit) shown.push(`- … and ${items.length - limit} more`);
    blocks.push([`## ${heading}`, '', ...shown].join('\n'));
  };
  list('Pull requests', fields.pr_links as string[], LIMITS.prLinks);
  list('Files changed', facts.filesChanged.map((f) => clip(scrub(relPath(f, facts.cwd)), 300)), LIMITS.files);
  const readPaths: string[] = [];
  const seenRead = new Set<string>();
  for (const r of facts.toolResults) {
    if (!r.filePath || seenRead.has(r.filePath)) continue;
    seenRead.add(r.filePath);
    const shown = clip(scrub(relPath(r.filePath, facts.cwd)), 300);
    readPaths.push(isSecretFilePath(r.filePath) ? `${shown} (secret file: contents never stored)` : shown);
  }
  for (const p of secrets.paths) {
    if (seenRead.has(p)) continue;
    seenRead.add(p);
    readPaths.push(`${clip(scrub(relPath(p, facts.cwd)), 300)} (secret file: contents never stored)`);
  }
  list('Files read', readPaths, LIMITS.files);

  const commands = facts.commands.map((c) => clip(scrub(shownCommand(c)), LIMITS.command));
  if (commands.length) {
    const shown = commands.slice(0, LIMITS.commands);
    if (commands.length > LIMITS.commands) shown.push(`# … and ${commands.length - LIMITS.commands} more`);
    const text = shown.join('\n');
    const fence = fenceFor(text);
    blocks.push(['## Commands', '', `${fence}sh`, text, fence].join('\n'));
  }

  for (const k of Object.keys(fields)) {
    const v = fields[k];
    if (v === undefined || (Array.isArray(v) && v.length === 0 && k !== 'tags')) delete fields[k];
  }
  const created = stampOf(started);
  return {
    summary: { id, path: sessionPath(id, started), sessionId, title, created, fields, body: blocks.join('\n\n'), redactions: count() },
  };
}
