/**
 * Contract: private key blocks (`-----BEGIN ... PRIVATE KEY-----`), whole, including a block whose END line is
 * missing (the key material that follows the header). Pure.
 */
import { K, type Hit } from './kinds.js';

const PEM_BEGIN_RE = /-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_END_RE = /-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----/g;
const PEM_LINE_RE = /^(?:[A-Za-z0-9+\/=]{1,200}|[A-Za-z][A-Za-z-]{0,40}: [^\r\n]{0,300}|)$/;

/** Adds the private key blocks of `text` to `out`. */
export function scanPem(text: string, out: Hit[]): void {
  let consumed = 0;
  let noEndFrom = Infinity;
  for (const m of text.matchAll(PEM_BEGIN_RE)) {
    if (m.index < consumed) continue;
    const headerEnd = m.index + m[0].length;
    let end = -1;
    if (headerEnd < noEndFrom) {
      PEM_END_RE.lastIndex = headerEnd;
      const e = PEM_END_RE.exec(text);
      if (e) end = e.index + e[0].length;
      else noEndFrom = headerEnd;
    }
    if (end === -1) end = truncatedPemEnd(text, headerEnd);
    out.push({ start: m.index, end, kind: K.pem, preview: m[0] + '…', tier: 0, order: 0 });
    consumed = end;
  }
}

/** End of a private key block that has no END line: the key material that follows the header. */
function truncatedPemEnd(text: string, headerEnd: number): number {
  let i = headerEnd;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r')) i++;
  if (i < text.length && text[i] !== '\n') {
    // Single-line form (for example JSON with literal \n): take the key characters that follow.
    i = headerEnd;
    while (i < text.length && /[A-Za-z0-9+\/=\\ ]/.test(text[i]!)) i++;
    return i;
  }
  const nl = i < text.length ? i : -1;
  const lineEnd = nl === -1 ? text.length : nl;
  let end = lineEnd;
  let pos = nl === -1 ? text.length : nl + 1;
  while (pos < text.length) {
    const n = text.indexOf('\n', pos);
    const le = n === -1 ? text.length : n;
    const line = text.slice(pos, le).replace(/\r$/, '').trim();
    if (!PEM_LINE_RE.test(line)) break;
    if (line !== '') end = le;
    if (n === -1) break;
    pos = n + 1;
  }
  return end;
}
