/**
 * Contract: reading refs and one config value straight from `.git`, synchronously and without isomorphic-git
 * (whose load alone costs a read command like `status` tens of milliseconds). Loose refs, then packed-refs; a
 * symbolic ref (HEAD) is followed. Anything unreadable is undefined, never an error.
 */
import { readSmall } from '../system/read-bounded.js';

/** The largest ref, packed-refs or config file read; a bigger one is unreadable. */
const REF_FILE_MAX = 16 * 1024 * 1024;

/** A file's text, or undefined when it is missing or not a regular file (a FIFO in `.git` is never waited on). */
function read(file: string): string | undefined {
  return readSmall(file, REF_FILE_MAX)?.toString('utf8');
}

/** A full object id, as refs hold it. */
export const OID = /^[0-9a-f]{40}$/;

/** The commit `ref` ('HEAD' or 'refs/...') points at, or undefined (no such ref, no commit yet). */
export function readRef(dir: string, ref: string, depth = 0): string | undefined {
  if (depth > 5 || ref.includes('..') || !(ref === 'HEAD' || ref.startsWith('refs/'))) return undefined;
  const loose = read(`${dir}/.git/${ref}`)?.trim();
  if (loose !== undefined) {
    if (loose.startsWith('ref: ')) return readRef(dir, loose.slice(5).trim(), depth + 1);
    if (OID.test(loose)) return loose;
  }
  const packed = read(`${dir}/.git/packed-refs`);
  if (!packed) return undefined;
  for (const line of packed.split('\n')) {
    if (line.startsWith('#') || line.startsWith('^')) continue;
    const sp = line.indexOf(' ');
    if (sp === 40 && line.slice(41).trim() === ref && OID.test(line.slice(0, 40))) return line.slice(0, 40);
  }
  return undefined;
}

/** The value of `section.sub.key` (e.g. remote "origin" url) in `.git/config`, the last one set, or undefined. */
export function configValue(dir: string, section: string, sub: string | undefined, key: string): string | undefined {
  const text = read(`${dir}/.git/config`);
  if (!text) return undefined;
  let inSection = false;
  let value: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (head) {
      inSection = head[1]!.toLowerCase() === section.toLowerCase() && (head[2]?.replace(/\\(.)/g, '$1') ?? undefined) === sub;
      continue;
    }
    if (!inSection) continue;
    const kv = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!kv || kv[1]!.toLowerCase() !== key.toLowerCase()) continue;
    let v = '';
    let quoted = false;
    for (const ch of kv[2] ?? '') {
      if (ch === '"') quoted = !quoted;
      else if (!quoted && (ch === '#' || ch === ';')) break;
      else v += ch;
    }
    value = v.trim();
  }
  return value;
}
