/** A count with its noun, singular for 1 ("1 entry", "2 entries"): `many` when the plural is not noun + s. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}
