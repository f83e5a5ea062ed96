/**
 * Contract: the one secret guard of everything written into the data repo (spec/secrets.md). `refuseSecrets`
 * throws SECRET_DETECTED naming each kind and where (never the secret: a masked preview); `refuseSecretWrite`
 * checks a whole write (every path, every content, the commit message) and is called by the write transaction
 * for every commit. `redactFields` redacts the string values of front matter fields as `key: value` lines (so a
 * `password: ...` field is seen with its key), leaving YAML quoting to the formatter: a `[REDACTED:kind]` value
 * stays a string. `secretFreeSlugSource` is what a file-name slug may be made of: the title with every secret
 * replaced, so a slug (lower-cased, `_` turned into `-`) never carries one.
 */
import { KbError } from '../errors.js';
import { findSecrets, forgetScans, redactSecrets, type SecretFinding } from './scan.js';

/** Refuses text that carries secret-shaped content, naming each kind and where (file:line:column). */
export function refuseSecrets(text: string, where: string): void {
  const found = findSecrets(text);
  if (found.length === 0) return;
  refuse(found.map((f) => ({ ...f, where })));
}

/** A value given for a field: one string, a list (a repeated flag), or nothing. */
export type InputValue = string | readonly string[] | undefined | null;

/**
 * Refuses values given for fields (flags, file names, host markers) that hold a secret, each judged as the user
 * typed it: before any trim, split at commas, lower-casing or slugging, which can hide a secret's shape (an
 * `AKIA...` tag lower-cased no longer looks like an AWS key id). Keys name the fields in the message ("the tags").
 * Every write path calls this first, so no later message (a bad tag, a bad marker) can echo the value.
 */
export function refuseSecretInputs(inputs: Record<string, InputValue>): void {
  const found: Found[] = [];
  for (const [field, value] of Object.entries(inputs)) {
    const values = value === undefined || value === null ? [] : typeof value === 'string' ? [value] : value;
    for (const v of values) for (const f of findSecrets(v)) found.push({ ...f, field });
  }
  if (found.length) refuse(found);
}

/** A finding and where: a file (or another text) with line and column, or a field given as input. */
type Found = SecretFinding & ({ where: string; field?: undefined } | { field: string; where?: undefined });

/** How to get through: the way out of a refusal, for a live secret and for an example that only looks like one. */
const WAY_THROUGH =
  'Remove it (store secrets in a secret manager, not the KB) and try again. If it is an example, not a live secret, ' +
  'put a placeholder in its place (`<token>`, `xxxxxxxx`) or let `import --redact` write a `[REDACTED:kind]` marker; ' +
  "the examples providers publish in their docs pass as they are.";

function refuse(found: Found[]): never {
  const list = found.map((f) => `${f.kind} ${f.field !== undefined ? `in ${f.field}` : `at ${f.where}:${f.line}:${f.column}`} (${f.preview})`).join('; ');
  throw new KbError('SECRET_DETECTED', `refused: secret-shaped content would be committed: ${list}. ${WAY_THROUGH}`, {
    findings: found.map((f) => (f.field !== undefined ? { kind: f.kind, field: f.field } : { kind: f.kind, file: f.where, line: f.line, column: f.column })),
  });
}

/**
 * True for bytes that are not text (a NUL in the first 8,000 bytes, git's own test): an image, a PDF with binary
 * streams. Their content is not scanned (it holds no readable secret, and decoding it finds false ones); every
 * text-like file (SVG, plain text) is.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

/** A path safe to name in a message: each secret in it replaced by its marker. */
export function safeName(p: string): string {
  return redactSecrets(p).text;
}

/**
 * Refuses a write (files and commit message) when any path or content holds secret-shaped content. Paths are
 * scanned as they are and with `-` and `_` read as the separators a slug may have made of them.
 */
export function refuseSecretWrite(files: { path: string; content: string | Buffer | null }[], message: string): void {
  const found: Found[] = [];
  for (const f of files) {
    const name = safeName(f.path);
    for (const s of findSecrets(f.path)) found.push({ ...s, where: `the path ${name}` });
    if (f.content !== null && !(typeof f.content !== 'string' && looksBinary(f.content))) {
      const text = typeof f.content === 'string' ? f.content : f.content.toString('utf8');
      for (const s of findSecrets(text)) found.push({ ...s, where: name });
    }
  }
  for (const s of findSecrets(message)) found.push({ ...s, where: 'the commit message' });
  forgetScans(); // the write's own texts were the last to need the memory of clean ones
  if (found.length) refuse(found);
}

/** The text a file-name slug is made from: `title` with each secret replaced by its marker. */
export function secretFreeSlugSource(title: string): string {
  return findSecrets(title).length ? redactSecrets(title).text : title;
}

/** What redacting did: how many secrets and of which kinds. */
export interface Redaction {
  count: number;
  kinds: string[];
}

function merge(into: Redaction, r: { count: number; kinds: string[] }): void {
  into.count += r.count;
  for (const k of r.kinds) if (!into.kinds.includes(k)) into.kinds.push(k);
}

function redactValue(key: string | undefined, v: unknown, into: Redaction): unknown {
  if (typeof v === 'string') {
    if (key !== undefined) {
      const prefix = `${key}: `;
      const line = redactSecrets(`${prefix}${v}`);
      if (line.count > 0 && line.text.startsWith(prefix)) {
        merge(into, line);
        return line.text.slice(prefix.length);
      }
    }
    const r = redactSecrets(v);
    merge(into, r);
    return r.text;
  }
  if (Array.isArray(v)) return v.map((x) => redactValue(undefined, x, into));
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = redactValue(k, x, into);
    return out;
  }
  return v;
}

/** Front matter fields with every secret in a string value replaced by `[REDACTED:kind]`. */
export function redactFields(fields: Record<string, unknown>): { fields: Record<string, unknown> } & Redaction {
  const r: Redaction = { count: 0, kinds: [] };
  const out = redactValue(undefined, fields, r) as Record<string, unknown>;
  return { fields: out, ...r };
}
