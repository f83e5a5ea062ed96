/**
 * Contract: what the extractors of one tool call share (the tool, the working directory, a reader that never
 * throws, the sink of pieces) and the reading of the call's loose input: values that may be of any type, paths
 * relative to the working directory. Pure.
 */
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { PieceSink } from './pieces.js';

/** One call's extraction: its tool, working directory, file reader and pieces so far. */
export interface ExtractContext {
  tool: string;
  cwd?: string;
  /** Reads a file the call names or edits; undefined when it cannot (never throws). */
  read: (path: string) => string | undefined;
  out: PieceSink;
}

/** True for a plain object (not null, not an array). */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value when it is a string. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A path as shown in a piece's source: relative to cwd when inside it, else as given. */
export function displayPath(path: string, cwd: string | undefined): string {
  if (cwd && isAbsolute(path)) {
    const rel = relative(cwd, path);
    if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  }
  return path;
}

/** A path resolved against cwd (as given when there is no cwd). */
export function resolveFrom(cwd: string | undefined, path: string): string {
  return cwd ? resolve(cwd, path) : path;
}
