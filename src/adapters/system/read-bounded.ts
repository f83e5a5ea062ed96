/** Contract: reading a file a tool call names (`git commit -F`, `gh pr create --body-file`) for the prose gate. */
import fs from 'node:fs';

/** The largest file read; a bigger one is treated as unreadable. */
export const MAX_READ_BYTES = 2_000_000;

/** The text of a regular file of at most `maxBytes`, else undefined (missing, a folder, too big); never throws. */
export function readBounded(file: string, maxBytes = MAX_READ_BYTES): string | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
