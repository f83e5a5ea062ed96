/**
 * Contract: the prose gate's verdict cache, so a retried identical call costs no second model call. A verdict
 * is keyed by a SHA-256 of the judge version (JUDGE_VERSION of src/gate/verdict.ts, passed in), the model, the
 * kernel digest (every kernel body and rule) and the pieces of prose (source, line and text); any change to one
 * of them is a new key. Verdicts live in `.git/git-kb/gate-verdicts.json` of the data repo (the newest
 * MAX_VERDICTS, for at most MAX_AGE_MS). Only real verdicts are kept (pass, or fail with violations); errors
 * and timeouts are not, so they are retried. Reading and writing never throw; a corrupt file is an empty cache.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ProsePiece } from '../../core/prose/extract.js';
import { readSmall } from '../system/read-bounded.js';
import type { Violation } from '../../core/gate/rules.js';

const VERDICTS_VERSION = 1;
const MAX_VERDICTS = 256;
const MAX_AGE_MS = 30 * 24 * 3600 * 1000;

export interface CachedVerdict {
  at: number;
  pass: boolean;
  violations: Violation[];
}

interface CacheShape {
  v: number;
  items: Record<string, CachedVerdict>;
}

/** The verdict cache file of a data repo. */
export function verdictFile(dir: string): string {
  return path.join(dir, '.git', 'git-kb', 'gate-verdicts.json');
}

/** The cache key of a judgement. */
export function verdictKey(parts: { version: number; model: string; digest: string; pieces: ProsePiece[] }): string {
  const h = crypto.createHash('sha256');
  h.update(`git-kb gate v${parts.version}\0${parts.model}\0${parts.digest}\0`);
  for (const p of parts.pieces) h.update(JSON.stringify([p.source, p.line ?? null, p.text])).update('\n');
  return h.digest('hex');
}

/** The largest verdict cache read; a bigger or non-regular one reads as empty. */
const VERDICTS_MAX_BYTES = 64 * 1024 * 1024;

function readAll(dir: string): CacheShape {
  try {
    const data = JSON.parse(readSmall(verdictFile(dir), VERDICTS_MAX_BYTES)?.toString('utf8') ?? '') as CacheShape;
    if (data?.v === VERDICTS_VERSION && data.items && typeof data.items === 'object' && !Array.isArray(data.items)) return data;
  } catch {
    /* missing or corrupt: empty */
  }
  return { v: VERDICTS_VERSION, items: {} };
}

/** The cached verdict for `key`, if any and not too old. */
export function readVerdict(dir: string, key: string, now = Date.now()): CachedVerdict | undefined {
  const v = readAll(dir).items[key];
  if (!v || typeof v.pass !== 'boolean' || !Array.isArray(v.violations) || !(now - v.at < MAX_AGE_MS)) return undefined;
  return v;
}

/** Saves a verdict (best effort), keeping the newest MAX_VERDICTS. */
export function saveVerdict(dir: string, key: string, verdict: Omit<CachedVerdict, 'at'>, now = Date.now()): void {
  try {
    const data = readAll(dir);
    data.items[key] = { at: now, ...verdict };
    const keep = Object.entries(data.items)
      .filter(([, v]) => v && now - v.at < MAX_AGE_MS)
      .sort((a, b) => b[1].at - a[1].at)
      .slice(0, MAX_VERDICTS);
    // NOTE: a temporary sibling and a rename, so a reader never sees half a file; two writers racing lose at
    // most one verdict, which is judged again.
    const file = verdictFile(dir);
    const tmp = `${file}.${process.pid}.${now}.tmp`;
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify({ v: VERDICTS_VERSION, items: Object.fromEntries(keep) }));
    try {
      fs.renameSync(tmp, file);
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      throw err;
    }
  } catch {
    /* a read-only repo just judges again next time */
  }
}
