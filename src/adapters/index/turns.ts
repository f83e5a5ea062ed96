/**
 * Contract: the turn store and its search of spec/sessions.md, "Turns": one JSON file per session under
 * `.git/git-kb/turns/` (derived, per machine, safe to delete: rebuilt from the transcript or its archive), written
 * by the Stop hook at the end of every turn, and a MiniSearch index over their pieces (`index.json` there), brought
 * up to date by the search that reads it: a log whose size or mtime changed is taken out and put in again, so a
 * turn is found by the next search after its Stop, with no commit. The term pipeline is search's own
 * (term-count.ts), and so are the query options and scoring (search.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import MiniSearch, { type SearchResult } from 'minisearch';
import { pieceText, turnPieces, TURN_LOG_VERSION, type PieceKind, type SessionLog } from '../../core/sessions/turns.js';
import { isoAtLeast } from '../../core/format/since.js';
import { writeFileAtomic } from '../store/fsutil.js';
import { stateDir } from '../store/layout.js';
import { sessionFileBase } from '../store/session-state.js';
import { makeSnippet, queryOptions, queryTerms, rescore } from './search.js';
import { processTerm, tokenizeText } from './term-count.js';

const INDEX_VERSION = 1;
const INDEX_FILE = 'index.json';
/** A session that matches only in tool output ranks below every session that matches elsewhere; among the pieces of one kind, these weigh the scores. */
const KIND_WEIGHT: Record<PieceKind, number> = { prompt: 1, recap: 1, reply: 0.8, tool: 0.5 };

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
    if (!n.endsWith('.json') || n === INDEX_FILE) continue;
    const st = fs.statSync(path.join(root, n), { throwIfNoEntry: false });
    if (st?.isFile()) out.set(n, { size: st.size, mtimeMs: st.mtimeMs });
  }
  return out;
}

/** Every log, by a predicate on it (a session id prefix, an entry id): the first that matches, or all. */
export function findSessionLogs(dir: string, match: (log: SessionLog) => boolean): SessionLog[] {
  const out: SessionLog[] = [];
  for (const name of logFiles(dir).keys()) {
    const log = readLogFile(path.join(turnsDir(dir), name));
    if (log && match(log)) out.push(log);
  }
  return out;
}

interface Doc {
  id: string;
  text: string;
}

interface Manifest {
  [file: string]: { size: number; mtimeMs: number; ids: string[] };
}

function indexOptions() {
  return { idField: 'id', fields: ['text'], storeFields: [] as string[], tokenize: tokenizeText, processTerm, autoVacuum: false as const };
}

/** The turn index, up to date with the logs on disk (saved back when it changed). */
function openTurnIndex(dir: string): MiniSearch<Doc> {
  const root = turnsDir(dir);
  const file = path.join(root, INDEX_FILE);
  let ms: MiniSearch<Doc> | undefined;
  let manifest: Manifest = {};
  try {
    const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { v: number; manifest: Manifest; index: unknown };
    if (stored.v === INDEX_VERSION) {
      ms = MiniSearch.loadJS(stored.index as never, indexOptions());
      manifest = stored.manifest;
    }
  } catch {
    /* none yet, or damaged: rebuilt below */
  }
  if (!ms) {
    ms = new MiniSearch<Doc>(indexOptions());
    manifest = {};
  }
  const onDisk = logFiles(dir);
  let changed = false;
  for (const [name, m] of Object.entries(manifest)) {
    const now = onDisk.get(name);
    if (now && now.size === m.size && now.mtimeMs === m.mtimeMs) continue;
    for (const id of m.ids) if (ms.has(id)) ms.discard(id);
    delete manifest[name];
    changed = true;
  }
  // NOTE: discarded documents stay in the index's term lists until a vacuum; past a third of them, a rebuild
  // (which reads every log) costs less than searching around them.
  if (ms.dirtCount > 0 && ms.dirtFactor > 0.3) {
    ms = new MiniSearch<Doc>(indexOptions());
    manifest = {};
  }
  for (const [name, st] of onDisk) {
    if (manifest[name]) continue;
    const log = readLogFile(path.join(root, name));
    const ids: string[] = [];
    if (log) {
      for (const p of turnPieces(log)) {
        const id = `${name}\t${p.key}`;
        ms.add({ id, text: p.text });
        ids.push(id);
      }
    }
    manifest[name] = { size: st.size, mtimeMs: st.mtimeMs, ids };
    changed = true;
  }
  if (changed) {
    try {
      writeFileAtomic(file, JSON.stringify({ v: INDEX_VERSION, manifest, index: ms.toJSON() }), { fsync: false });
    } catch {
      /* read-only: rebuilt in memory next time */
    }
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
  /** Only sessions of this project (the tag a summary gets). */
  tag?: string;
  /** Session ids to leave out (the running session). */
  exclude?: Set<string>;
}

/**
 * Searches the turn logs: each query's scores normalised to its best and summed per piece, each piece weighed by
 * its kind; a session's score is its best piece's, and sessions that match outside tool output come first.
 */
export function searchTurns(dir: string, options: TurnSearchOptions): TurnHit[] {
  if (!fs.existsSync(turnsDir(dir))) return [];
  const ms = openTurnIndex(dir);
  const limit = options.limit ?? 5;
  const merged = new Map<string, number>();
  const allTerms = new Set<string>();
  for (const q of options.queries) {
    const terms = queryTerms(q);
    terms.forEach((t) => allTerms.add(t));
    if (terms.length === 0) continue;
    const results: SearchResult[] = ms.search(q, queryOptions(terms.length));
    const top = Math.max(...results.map(rescore), 0) || 1;
    for (const r of results) merged.set(r.id as string, (merged.get(r.id as string) ?? 0) + rescore(r) / top);
  }
  // The best piece of each session, outside tool output and in it.
  const best = new Map<string, { key: string; score: number; tool: boolean }>();
  for (const [id, raw] of merged) {
    const [file, key] = id.split('\t') as [string, string];
    const kind = key.split(':')[1] as PieceKind;
    const score = raw * (KIND_WEIGHT[kind] ?? 1);
    const tool = kind === 'tool';
    const b = best.get(file);
    if (!b || (b.tool && !tool) || (b.tool === tool && score > b.score)) best.set(file, { key, score, tool });
  }
  const ranked = [...best].sort((a, b) => Number(a[1].tool) - Number(b[1].tool) || b[1].score - a[1].score);
  const terms = [...allTerms];
  const hits: TurnHit[] = [];
  for (const [file, b] of ranked) {
    if (hits.length >= limit) break;
    const log = readLogFile(path.join(turnsDir(dir), file));
    if (!log || options.exclude?.has(log.sessionId)) continue;
    if (options.since && !isoAtLeast(log.ended ?? log.started, options.since)) continue;
    if (options.tag && (log.project ?? '').toLowerCase() !== options.tag.toLowerCase()) continue;
    const piece = pieceText(log, b.key);
    if (!piece) continue;
    const hit: TurnHit = {
      id: log.id,
      session_id: log.sessionId,
      title: log.title,
      turn: piece.turn.n,
      anchor: piece.turn.anchor,
      kind: piece.kind,
      score: Math.round(b.score * 1000) / 1000,
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
