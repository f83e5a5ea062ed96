/**
 * Contract: where the files of the build are. Code bundled into dist/ (any chunk, or the hook entry) finds the
 * build's other stable files from its own location; from the sources (tests, tsc) there is no build.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The path of `rel` in the build (dist/…) when this code runs from it and the file is there; else undefined. */
export function builtFile(rel: string): string | undefined {
  const here = import.meta.url;
  const at = here.lastIndexOf('/dist/');
  const file = at === -1 ? undefined : fileURLToPath(`${here.slice(0, at)}/dist/${rel}`);
  return file && fs.existsSync(file) ? file : undefined; // sources under a folder named dist/ have no such file
}
