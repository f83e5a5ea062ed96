/**
 * Contract: the one decoder of text that comes in from outside (bodies from --file or stdin, imported notes):
 * strict UTF-8. Invalid bytes are refused with INVALID_ENTRY naming the input, never replaced by U+FFFD; a
 * leading BOM is dropped.
 */
import { KbError } from '../errors.js';

const strict = new TextDecoder('utf-8', { fatal: true });

/** `bytes` as text; INVALID_ENTRY naming `what` (a file, `stdin`) when they are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return strict.decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new KbError('INVALID_ENTRY', `${what} is not valid UTF-8 text (invalid byte sequence); save it as UTF-8 and try again`, { file: what });
  }
}
