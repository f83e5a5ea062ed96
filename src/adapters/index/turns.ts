/**
 * Contract: the turn store and its search of spec/sessions.md, "Turns": one JSON file per session under
 * `.git/git-kb/turns/` (derived, per machine, safe to delete: rebuilt from the transcript or its archive), written
 * by the Stop hook at the end of every turn, and a MiniSearch index over them with one document per session.
 *
 * The index is stored as the search store's is, scaled down: a base (`base.json`: the logs it holds with their
 * stat, MiniSearch's document tables, and one shard file per first character of a term) of which a search reads
 * only the shards of its query's first characters, and a delta kept in memory: the logs changed since the base
 * are taken out of it and put in again, with only their terms in scope. So a turn is found by the next search
 * after its Stop, with no commit and no rewrite of the index. Catch-up rebuilds the base once more than
 * DELTA_FOLD logs changed (a search does, past DELTA_MAX). The term pipeline is search's own (term-count.ts), and
 * so are the query options and scoring (search.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch, { type SearchResult } from 'minisearch';
import { pieceText, turnPieces, TURN_LOG_VERSION, type PieceKind, type SessionLog } from '../../core/sessions/turns.js';
import { isoAtLeast } from '../../core/format/since.js';
import { projectTag } from '../../core/sessions/summary.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { stateDir } from '../store/layout.js';
import { sessionFileBase } from '../store/session-state.js';
import { makeSnippet, queryOptions, queryTerms, rescore } from './search.js';
import { processTerm, tokenizeText } from './term-count.js';
import { TERMS_VERSION } from '../../core/text/terms.js';

/** The stored shape's version and the terms' (core/text/terms.ts): a base of another version of either is rebuilt. */
const INDEX_VERSION = `2.${TERMS_VERSION}`;
const BASE_FILE = 'base.json';

export function turnsDir(dir: string): string {
  return path.join(stateDir(dir), 'turns');
}

function logFile(dir: string, sessionId: string): string {
  return path.join(turnsDir(dir), `${sessionFileBase(sessionId)}.json`);
}

/** Writes a session's log (atomically: a search reads the old or the new). */
export function writeSessionLog(dir: string, log: SessionLog): void {
  writeFileAtomic(logFile(dir, log.sessionId), JSON.stringify(log), { fsync: false });
}

function readLogFile(file: string): SessionLog | undefined {
  try {
    const log = JSON.parse(fs.readFileSync(file, 'utf8')) as SessionLog;
    return log && log.v === TURN_LOG_VERSION && typeof log.sessionId === 'string' && Array.isArray(log.turns) ? log : undefined;
  } catch {
    return undefined;
  }
}

/** A session's log, or undefined (none, unreadable, or of another version). */
export function readSessionLog(dir: string, sessionId: string): SessionLog | undefined {
  const log = readLogFile(logFile(dir, sessionId));
  return log?.sessionId === sessionId ? log : undefined;
}

export function removeSessionLog(dir: string, sessionId: string): void {
  fs.rmSync(logFile(dir, sessionId), { force: true });
}

/** The logs on disk: file name and stat. */
function logFiles(dir: string): Map<string, { size: number; mtimeMs: number }> {
  const out = new Map<string, { size: number; mtimeMs: number }>();
  const root = turnsDir(dir);
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return out;
  }
  for (const n of names) {
    if (!n.endsWith('.json') || n === BASE_FILE || n.startsWith('base-')) continue;
    const st = fs.statSync(path.join(root, n), { throwIfNoEntry: false });
    if (st?.isFile()) out.set(n, { size: st.size, mtimeMs: st.mtimeMs });
  }
  return out;
}

/** Every log, by a predicate on it (a session id prefix, an entry id): the first that matches, or all. */
export function findSessionLogs(dir: string, match: (log: SessionLog) => boolean, sessionPrefix?: string): SessionLog[] {
  const out: SessionLog[] = [];
  // A log's file name starts with its session id's safe characters (sessionFileBase): a prefix of the id reads
  // only the files it can be.
  const lead = (sessionPrefix ?? '').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 60);
  for (const name of logFiles(dir).keys()) {
    if (!name.startsWith(lead)) continue;
    const log = readLogFile(path.join(turnsDir(dir), name));
    if (log && match(log)) out.push(log);
  }
  return out;
}

/** One document per session log: its prompts, replies and recaps, and apart its tool calls with their output. */
interface Doc {
  id: string;
  text: string;
  tools: string;
}

const FIELDS = ['text', 'tools'];

/** The document of a log. */
function docOf(name: string, log: SessionLog): Doc {
  const text: string[] = [];
  const tools: string[] = [];
  for (const p of turnPieces(log)) (p.kind === 'tool' ? tools : text).push(p.text);
  return { id: name, text: text.join('\n'), tools: tools.join('\n') };
}

/** Set while a search adds the delta's documents: terms outside the query's first characters are not indexed. */
let addScope: Set<string> | null = null;

function scopedTerm(t: string): string | null {
  const p = processTerm(t);
  return p !== null && addScope !== null && !addScope.has(p[0]!) ? null : p;
}

function indexOptions() {
  return { idField: 'id', fields: FIELDS, storeFields: [] as string[], tokenize: tokenizeText, processTerm: scopedTerm, autoVacuum: false as const };
}

/** The first characters of the query terms: the shards a search reads. */
function scopeOf(queries: string[]): Set<string> {
  const s = new Set<string>();
  for (const q of queries) for (const t of tokenizeText(q)) {
    const p = processTerm(t);
    if (p) s.add(p[0]!);
  }
  return s;
}

/**
 * The base of the turn index (`base.json`): which logs it holds (with their stat), MiniSearch's document tables,
 * and the name of each shard file (`base-<gen>-<hex of the first character>.json`: the terms that start with it).
 */
interface Base {
  v: string;
  gen: string;
  manifest: Record<string, { size: number; mtimeMs: number }>;
  tables: Record<string, unknown>;
  shards: Record<string, string>;
}

/** Logs changed or added since the base, past which a search rebuilds the base (catch-up folds them sooner). */
const DELTA_MAX = 48;
/** Past this many, catch-up rebuilds the base. */
export const DELTA_FOLD = 8;

function readBase(dir: string): Base | undefined {
  try {
    const b = JSON.parse(fs.readFileSync(path.join(turnsDir(dir), BASE_FILE), 'utf8')) as Base;
    return b && b.v === INDEX_VERSION && b.manifest && b.tables && b.shards ? b : undefined;
  } catch {
    return undefined;
  }
}

/** Builds the base from every log on disk and writes it (shards first, then base.json, then old shards go). */
function writeBase(dir: string, onDisk: Map<string, { size: number; mtimeMs: number }>): void {
  const root = turnsDir(dir);
  const ms = new MiniSearch<Doc>(indexOptions());
  const manifest: Base['manifest'] = {};
  for (const [name, st] of onDisk) {
    const log = readLogFile(path.join(root, name));
    if (log) ms.add(docOf(name, log));
    manifest[name] = st;
  }
  const { index, ...tables } = ms.toJSON() as unknown as { index: [string, unknown][] } & Record<string, unknown>;
  const byChar = new Map<string, [string, unknown][]>();
  for (const entry of index) {
    const c = entry[0][0]!;
    const list = byChar.get(c) ?? [];
    list.push(entry);
    byChar.set(c, list);
  }
  const gen = `${process.pid.toString(36)}${Date.now().toString(36)}`;
  const shards: Record<string, string> = {};
  for (const [c, entries] of byChar) {
    const name = `base-${gen}-${c.codePointAt(0)!.toString(16)}.json`;
    writeFileAtomic(path.join(root, name), JSON.stringify(entries), { fsync: false });
    shards[c] = name;
  }
  writeFileAtomic(path.join(root, BASE_FILE), JSON.stringify({ v: INDEX_VERSION, gen, manifest, tables, shards }), { fsync: false });
  for (const n of fs.readdirSync(root)) {
    if ((n.startsWith('base-') && !n.startsWith(`base-${gen}-`)) || n === 'index.json') fs.rmSync(path.join(root, n), { force: true });
  }
}

/** The logs on disk that the base lacks or holds in another state, and the base's logs gone from disk. */
function deltaOf(base: Base | undefined, onDisk: Map<string, { size: number; mtimeMs: number }>): { changed: string[]; gone: string[] } {
  const changed: string[] = [];
  for (const [name, st] of onDisk) {
    const b = base?.manifest[name];
    if (!b || b.size !== st.size || b.mtimeMs !== st.mtimeMs) changed.push(name);
  }
  const gone = base ? Object.keys(base.manifest).filter((n) => !onDisk.has(n)) : [];
  return { changed, gone };
}

/**
 * Catch-up's share: rebuilds the base when more than DELTA_FOLD logs changed since it was written, so a search
 * adds few documents of its own. Returns whether it did.
 */
export function foldTurnIndex(dir: string): boolean {
  if (!fs.existsSync(turnsDir(dir))) return false;
  const onDisk = logFiles(dir);
  const { changed, gone } = deltaOf(readBase(dir), onDisk);
  if (changed.length + gone.length <= DELTA_FOLD) return false;
  writeBase(dir, onDisk);
  return true;
}

/**
 * The turn index for a query: the base's document tables and the shards of the query's first characters, with
 * the logs changed since the base put in again (in memory, only their terms in scope). No base yet, or more than
 * DELTA_MAX logs changed: the base is rebuilt first.
 */
function openTurnIndex(dir: string, queries: string[]): MiniSearch<Doc> {
  const root = turnsDir(dir);
  const onDisk = logFiles(dir);
  let base = readBase(dir);
  let delta = deltaOf(base, onDisk);
  if (!base || delta.changed.length + delta.gone.length > DELTA_MAX) {
    try {
      writeBase(dir, onDisk);
      base = readBase(dir);
    } catch {
      /* read-only repo: everything goes in as the delta */
      base = undefined;
    }
    delta = deltaOf(base, onDisk);
  }
  const scope = scopeOf(queries);
  let ms: MiniSearch<Doc>;
  if (base) {
    const index: unknown[] = [];
    for (const c of scope) {
      const shard = base.shards[c];
      if (!shard) continue;
      try {
        index.push(...(JSON.parse(fs.readFileSync(path.join(root, shard), 'utf8')) as unknown[]));
      } catch {
        /* a shard gone (a rebuild in between): its terms are missed this once */
      }
    }
    ms = MiniSearch.loadJS({ ...base.tables, index } as never, indexOptions());
  } else ms = new MiniSearch<Doc>(indexOptions());
  for (const name of [...delta.changed, ...delta.gone]) if (ms.has(name)) ms.discard(name);
  addScope = scope;
  try {
    for (const name of delta.changed) {
      const log = readLogFile(path.join(root, name));
      if (log) ms.add(docOf(name, log));
    }
  } finally {
    addScope = null;
  }
  return ms;
}

/** A session found by its turns. */
export interface TurnHit {
  /** The session's entry id (its summary's, once committed). */
  id: string;
  session_id: string;
  title: string;
  project?: string;
  cwd?: string;
  ended?: string;
  /** The turn and the piece that matched best. */
  turn: number;
  anchor: string;
  kind: PieceKind;
  /** The tool, when the best piece is tool output. */
  tool?: string;
  score: number;
  /** Around the match; empty for tool output unless asked for. */
  snippet: string;
}

export interface TurnSearchOptions {
  queries: string[];
  limit?: number;
  /** Show tool output in snippets. */
  toolOutput?: boolean;
  /** Sessions ended since (ISO). */
  since?: string;
  /** Only sessions of this project: the tag its summaries get (projectTag), in written form. */
  tag?: string;
  /** Session ids to leave out (the running session). */
  exclude?: Set<string>;
}

/**
 * Searches the turn logs: one document per session (its prompts, replies and recaps; its tool output apart, at
 * half weight), each query's scores normalised to its best and summed; sessions that match outside tool output
 * come first. Each hit then names its best turn and piece: the piece of the session's log that holds the most
 * query terms (outside tool output when the session matched there).
 */
export function searchTurns(dir: string, options: TurnSearchOptions): TurnHit[] {
  if (!fs.existsSync(turnsDir(dir))) return [];
  const ms = openTurnIndex(dir, options.queries);
  const limit = options.limit ?? 5;
  const merged = new Map<string, { score: number; inText: boolean }>();
  const allTerms = new Set<string>();
  for (const q of options.queries) {
    const terms = queryTerms(q);
    terms.forEach((t) => allTerms.add(t));
    if (terms.length === 0) continue;
    const results: SearchResult[] = ms.search(q, { ...queryOptions(terms.length), boost: TOOL_BOOST });
    const top = Math.max(...results.map(rescore), 0) || 1;
    for (const r of results) {
      const inText = Object.values(r.match).some((fields) => fields.includes('text'));
      const m = merged.get(r.id as string) ?? { score: 0, inText: false };
      merged.set(r.id as string, { score: m.score + rescore(r) / top, inText: m.inText || inText });
    }
  }
  const ranked = [...merged].sort((a, b) => Number(b[1].inText) - Number(a[1].inText) || b[1].score - a[1].score);
  const terms = [...allTerms];
  const hits: TurnHit[] = [];
  for (const [file, m] of ranked) {
    if (hits.length >= limit) break;
    const log = readLogFile(path.join(turnsDir(dir), file));
    if (!log || options.exclude?.has(log.sessionId)) continue;
    if (options.since && !isoAtLeast(log.ended ?? log.started, options.since)) continue;
    if (options.tag && projectTag(log.project) !== options.tag) continue;
    const piece = bestPiece(log, terms, m.inText);
    if (!piece) continue;
    const hit: TurnHit = {
      id: log.id,
      session_id: log.sessionId,
      title: log.title,
      turn: piece.turn.n,
      anchor: piece.turn.anchor,
      kind: piece.kind,
      score: Math.round(m.score * 1000) / 1000,
      snippet: piece.kind === 'tool' && !options.toolOutput ? '' : makeSnippet(piece.text, terms),
    };
    if (piece.tool) hit.tool = piece.tool.name;
    if (log.project) hit.project = log.project;
    if (log.cwd) hit.cwd = log.cwd;
    if (log.ended) hit.ended = log.ended;
    hits.push(hit);
  }
  return hits;
}

/** Tool output weighs half of the rest. */
const TOOL_BOOST = { text: 1, tools: 0.5 };

/** True when `a` comes before `b` in descending lexicographic order. */
function before(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! > b[i]!;
  return false;
}

/** Among pieces of one turn that hold as many query terms, the prompt is shown first, then a recap, then a reply. */
const KIND_RANK: Record<PieceKind, number> = { prompt: 3, recap: 2, reply: 1, tool: 0 };

/**
 * The piece of a log that holds the most of the query's terms (as the index takes them; a query term matches a
 * piece term it begins), outside tool output when `inText`; ties go to the later turn (the newer state), then to
 * the prompt over a recap over a reply.
 */
function bestPiece(log: SessionLog, terms: string[], inText: boolean): ReturnType<typeof pieceText> {
  let best: { key: string; rank: number[] } | undefined;
  for (const p of turnPieces(log)) {
    if ((p.kind === 'tool') === inText) continue;
    const have = new Set<string>();
    for (const t of tokenizeText(p.text)) {
      const term = processTerm(t);
      if (term) have.add(term);
    }
    let count = 0;
    for (const q of terms) if (have.has(q) || [...have].some((h) => h.startsWith(q))) count++;
    const rank = [count, p.n, KIND_RANK[p.kind]];
    if (count > 0 && (!best || before(rank, best.rank))) best = { key: p.key, rank };
  }
  return best ? pieceText(log, best.key) : undefined;
}
