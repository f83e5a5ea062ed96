/**
 * Contract: file writes that are all-or-nothing (write a temporary sibling, fsync, rename): readers see the old
 * content or the new, never a part, and the temporary files a killed writer leaves are found by their name.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

function tempSibling(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
}

/** Writes a file atomically: readers see the old content or the new, never a part. */
export function writeFileAtomic(file: string, data: string | Uint8Array, options: { mode?: number; fsync?: boolean } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = tempSibling(file);
  const fd = fs.openSync(tmp, 'w', options.mode ?? 0o644);
  try {
    fs.writeFileSync(fd, data);
    if (options.fsync !== false) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

/** The promise form of writeFileAtomic, with fs.promises.writeFile's signature (for isomorphic-git). */
export async function writeFileAtomicAsync(file: string, data: string | Uint8Array, options?: unknown): Promise<void> {
  const mode = typeof options === 'object' && options !== null ? (options as { mode?: number }).mode : undefined;
  const tmp = tempSibling(file);
  const handle = await fs.promises.open(tmp, 'w', mode ?? 0o644);
  try {
    await handle.writeFile(data);
  } finally {
    await handle.close();
  }
  try {
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
}

/**
 * An `fs` for isomorphic-git whose writeFile is atomic, so a process killed while git writes the index, a ref
 * or an object leaves the old file or the new one, never a torn one.
 */
export const atomicFs = {
  promises: { ...fs.promises, writeFile: writeFileAtomicAsync },
};

/**
 * Removes the `.<name>.<pid>.<random>.tmp` files that writeFileAtomic leaves beside `file` when killed between
 * creating and renaming one. Call it only when no other writer can be mid-write (under the write lock).
 */
export function removeTempSiblings(file: string): void {
  const prefix = `.${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file));
  } catch {
    return;
  }
  for (const n of names) if (n.startsWith(prefix) && n.endsWith('.tmp')) fs.rmSync(path.join(path.dirname(file), n), { force: true });
}
