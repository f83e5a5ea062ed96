/** Contract: FNV-1a, 32 bits, over a string's UTF-16 units: a tiny, dependency-free hash for file and bucket names. */

/** FNV-1a of `s` as an unsigned 32-bit integer. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
